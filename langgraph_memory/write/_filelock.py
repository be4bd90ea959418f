"""The journal's file lock: an exclusive, non-blocking ``flock`` on a ``<journal>.lock`` file.

POSIX only. ``fcntl`` is imported when a lock is taken, never at import time, so importing
:mod:`langgraph_memory` works where ``fcntl`` does not exist; taking a lock there raises
:class:`~langgraph_memory.errors.ConfigError` saying so.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import IO

from ..errors import ConfigError

NO_FILE_LOCK = (
    "the write journal needs POSIX file locks (fcntl), which this platform does not have; "
    "use WritePipeline without a BackgroundWriter here"
)


def _fcntl() -> ModuleType:
    try:
        import fcntl
    except ImportError as exc:
        raise ConfigError(NO_FILE_LOCK) from exc
    return fcntl


def lock_exclusive(path: str | os.PathLike[str]) -> IO[str]:
    """Open ``path`` (created if missing) and hold an exclusive lock on it; returns the open
    handle (keep it open while the lock is needed, then :func:`unlock`). Raises ``OSError``
    when another handle holds the lock (the file is closed again), and
    :class:`~langgraph_memory.errors.ConfigError` on a platform without ``fcntl``."""
    fcntl = _fcntl()
    handle = open(path, "a+")  # noqa: SIM115 - held until unlock()
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise
    return handle


def unlock(handle: IO[str]) -> None:
    """Release the lock taken by :func:`lock_exclusive` (the handle stays open)."""
    fcntl = _fcntl()
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


__all__ = ["NO_FILE_LOCK", "lock_exclusive", "unlock"]
