"""Atomic file replacement: a crash or Ctrl-C leaves each file either old or new, never half.

The new bytes go to a temporary file in the same folder (same filesystem, so `os.replace`
is an atomic rename), are flushed to disk, get the old file's permission bits, and only then
replace the file. A symbolic link is written through (its target is replaced, the link
stays). A file without any write permission is refused, even for root: replacing it would
silently override the user's explicit "do not modify". Like any editor that saves by rename,
this gives the file a new inode: other hard links keep the old contents.

A target that is no regular file (a device such as /dev/null, a FIFO, a socket) is written
through, as `ruff --output-file` and the shell's `>` do: renaming over it would replace
the device with a plain file (and a reader waiting on a FIFO would wait forever).
`is_stream` tells the command which output paths are such streams (/dev/stdout included),
where no file may be put beside them.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile


def write_atomic(path: str, data: bytes, *, new_file_mode: int | None = None) -> None:
    """Replace the contents of `path` with `data`, atomically.

    A missing file is created with `new_file_mode` (default: 0o666 less the umask).
    """
    target = os.path.realpath(path)
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and _is_special(old.st_mode):
        write_through(path, data)
        return
    if old is not None:
        if stat.S_ISDIR(old.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not old.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise PermissionError(errno.EACCES, "file is read-only", path)
        mode = stat.S_IMODE(old.st_mode)
    else:
        mode = new_file_mode if new_file_mode is not None else 0o666 & ~_umask()
    folder, name = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".dp2ddp-tmp", dir=folder or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if old is not None and (old.st_uid, old.st_gid) != _owner(tmp):
            _try_chown(tmp, old.st_uid, old.st_gid)
        os.replace(tmp, target)
    except BaseException:  # KeyboardInterrupt included: never leave the temporary behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_through(path: str, data: bytes) -> None:
    """Write `data` into `path` as it is (a device, a FIFO, /dev/stdout): never replaced."""
    with open(path, "wb") as handle:
        handle.write(data)


def is_stream(path: str) -> bool:
    """Whether `path` names a stream rather than a file in a folder: an existing device,
    FIFO or socket, or any name in /dev itself or in a process's descriptor folder
    (/dev/stdout, /dev/fd/1, /proc/self/fd/1), whatever it resolves to."""
    try:
        if _is_special(os.stat(path).st_mode):
            return True
    except OSError:
        pass
    folder = os.path.dirname(os.path.abspath(path))
    real = os.path.realpath(folder)
    return folder in _DEVICE_FOLDERS or real in _DEVICE_FOLDERS or real.startswith("/proc/")


_DEVICE_FOLDERS = ("/dev", "/dev/fd")


def _is_special(mode: int) -> bool:
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _owner(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_uid, st.st_gid


def _try_chown(path: str, uid: int, gid: int) -> None:
    """Keep the owner when allowed (e.g. running as root on a user's file); else keep going."""
    chown = getattr(os, "chown", None)  # absent on Windows
    if chown is None:
        return
    try:
        chown(path, uid, gid)
    except OSError:
        pass
