import importlib
import pkgutil

for _info in pkgutil.iter_modules(__path__):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    globals().update({k: v for k, v in vars(_module).items() if isinstance(v, type)})
