"""Output files: checked before any work, written whole or not at all.

Every file rooftop writes (artifacts, HTML reports, plots, CSVs, logs, caches) goes through
:func:`write_atomic`: the bytes go to a temporary file in the target's own folder, are flushed to
disk, and only then replace the target with ``os.replace`` (atomic on POSIX). A full disk, a
signal or an exception leaves the old file (or no file), never a truncated or empty one.

:func:`check_target` is the up-front half: the CLI calls it while parsing arguments, so a bad
suffix or an unwritable folder is refused before a model is analysed or a server is loaded. It
refuses a target that exists but is not a regular file (``/dev/full``, a FIFO, a folder): an
atomic replace would swap the device node itself.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from pathlib import Path

from rooftop.errors import RooftopError


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def check_target(path: str | Path, error: type[RooftopError], suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse ``path`` now if it cannot be written whole later; returns it as a Path.

    Checks, in order: the suffix (when ``suffixes`` is given), that the target is not an existing
    non-regular file, that its folder exists, and that a file can be created in that folder (a
    probe file is created and removed: permissions, read-only mounts and /proc all answer here).
    """
    p = Path(path)
    if suffixes and p.suffix.lower() not in suffixes:
        raise error(f"{p}: the file must end in {' or '.join(suffixes)}, not {p.suffix or 'nothing'}")
    try:
        exists = p.exists()
    except OSError as exc:  # a name too long for the file system, a path through a file
        raise error(f"{str(p)[:200]}: cannot be a file here: {_reason(exc)}") from exc
    if exists and not p.is_file():
        raise error(f"{p}: exists and is not a regular file; give a file path")
    folder = p.parent
    if not folder.is_dir():
        raise error(f"{p}: folder {folder} does not exist")
    import tempfile  # 3 ms of start-up for commands that write no file

    try:
        fd, probe = tempfile.mkstemp(prefix=f".{p.name[:40]}.", suffix=".probe", dir=folder)
    except OSError as exc:
        raise error(f"{p}: cannot write in {folder}: {_reason(exc)}") from exc
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return p


@contextlib.contextmanager
def atomic_path(path: str | Path, error: type[RooftopError]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on a clean exit it replaces ``path``, else it is removed.

    For writers that want a file name (``savefig``, ``gzip.open``); the caller writes to the
    yielded path. An ``OSError`` inside becomes one line of ``error``.
    """
    import tempfile

    target = check_target(path, error)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as exc:
        raise error(f"{target}: cannot write: {_reason(exc)}") from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def write_atomic(path: str | Path, data: str | bytes, error: type[RooftopError]) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` whole, or raise ``error`` leaving ``path`` as it was."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path, error) as tmp:
        tmp.write_bytes(raw)
    return Path(path)


@functools.cache
def _umask() -> int:
    """The process umask (read once: reading it means setting it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
