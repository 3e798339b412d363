from . import pose_net  # noqa: F401
