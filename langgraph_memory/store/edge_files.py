"""The files of an embedded store directory besides the shard (stateful, no engine).

``langgraph_memory.json`` (:data:`META_FILE`) names the current shard and the store's
embedder, and is replaced atomically (the commit point of a vacuum); ``langgraph_memory.lock``
(:data:`LOCK_FILE`) is held with ``flock`` while a handle is open, so a second open of the
same path raises :class:`~langgraph_memory.errors.StoreUnavailable`. POSIX only (``fcntl``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import IO, Any

from ..core.logsafe import get_logger
from ..errors import ConfigError, StoreUnavailable

log = get_logger("store")

META_FILE = "langgraph_memory.json"
LOCK_FILE = "langgraph_memory.lock"
DEFAULT_SHARD = "shard"
"""The shard directory of a store that was never vacuumed (and of stores from before)."""
IN_USE = (
    "memory store at {path} is already open (by this or another process); the embedded "
    "engine allows one open handle per path. Share one MemoryStore, or use a Qdrant server "
    "for several processes."
)
"""The message of :class:`StoreUnavailable` for a store that is open elsewhere."""


def fsync_dir(path: Path) -> None:
    """Make a rename or removal inside ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ActivityLock:
    """A re-entrant lock that remembers when it was last taken (the store's last use)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.last_used = time.monotonic()

    def __enter__(self) -> ActivityLock:
        self._lock.acquire()
        self.last_used = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self.last_used = time.monotonic()
        self._lock.release()


def check_path(path: Path) -> None:
    """:class:`ConfigError` unless ``path`` can be a store directory."""
    raw = str(path)
    if not raw or "\x00" in raw:
        raise ConfigError("store path must be a non-empty path without NUL bytes")
    if path.exists() and not path.is_dir():
        raise ConfigError(f"store path {path} exists and is not a directory")


def take_lock(path: Path) -> IO[str]:
    """The held lock file of the store at ``path``; :class:`StoreUnavailable` if another
    handle (in this or another process) holds it."""
    handle = open(path / LOCK_FILE, "a+")  # noqa: SIM115 - held while open
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()
        raise StoreUnavailable(IN_USE.format(path=path)) from exc
    return handle


def release_lock(handle: IO[str] | None) -> None:
    """Release and close a lock file from :func:`take_lock` (``None``: nothing held)."""
    if handle is not None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()


def write_meta(path: Path, meta: dict[str, Any]) -> None:
    """Replace the metadata file atomically (write, fsync, rename, fsync the directory)."""
    tmp = path / (META_FILE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(meta, sort_keys=True))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path / META_FILE)
    fsync_dir(path)


def remove_leftovers(path: Path, current_shard: str) -> None:
    """Remove shard directories other than ``current_shard``: a copy a crash interrupted
    before its commit, or an old shard a crash left after it."""
    for entry in sorted(path.iterdir()):
        is_shard = entry.name == DEFAULT_SHARD or entry.name.startswith(DEFAULT_SHARD + "-")
        if entry.is_dir() and is_shard and entry.name != current_shard:
            log.info("removing leftover shard directory %s", entry)
            shutil.rmtree(entry)
    (path / (META_FILE + ".tmp")).unlink(missing_ok=True)


__all__ = [
    "DEFAULT_SHARD",
    "IN_USE",
    "LOCK_FILE",
    "META_FILE",
    "ActivityLock",
    "check_path",
    "fsync_dir",
    "release_lock",
    "remove_leftovers",
    "take_lock",
    "write_meta",
]
