"""The write journal file: one JSON object a line, appended and ``fsync``-ed by a
:class:`~langgraph_memory.write.BackgroundWriter`.

Lines: ``{"op": "enq", "id", "text" (redacted), "scope", ...}`` for an acknowledged turn,
``{"op": "done" | "failed", "id"}`` once it is processed, and the deferred LLM pass's own
lines (:mod:`~langgraph_memory.write.reflection`). A torn last line was never acknowledged
and is skipped. :func:`scan` reads a journal, :func:`rewrite` replaces it atomically,
:func:`count_user_lines` counts a user's entries.

``langgraph-memory forget --journal PATH`` purges a user from the journal of a stopped app
with :class:`OfflineJournal`: it takes the journal's lock the way a writer does (so it refuses,
with :class:`JournalInUse`, while a writer holds it), drops every line of the user, processed
or not, and rewrites the file with the other users' unprocessed entries only (what the next
writer would replay), atomically. A running app purges through its writer
(:meth:`BackgroundWriter.purge_user`).
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from pathlib import Path
from typing import IO, Any

from ..core.logsafe import get_logger
from ..errors import ConfigError
from ._filelock import lock_exclusive, unlock

log = get_logger("write")

Item = dict[str, Any]
"""One journal line."""


def scan(path: Path, *, warn_torn: bool = False) -> tuple[list[Item], OrderedDict[str, Item]]:
    """Every line of the journal at ``path`` (none when it does not exist), and its
    unprocessed ``enq`` entries by id, in journal order. Lines that are not JSON objects
    (a torn last line) are skipped, with a warning when ``warn_torn``."""
    items: list[Item] = []
    pending: OrderedDict[str, Item] = OrderedDict()
    if not path.exists():
        return items, pending
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                # a torn last line: it was never acknowledged (fsync precedes the ack)
                if warn_torn:
                    log.warning("skipping torn journal line", extra={"event": "journal_torn_line"})
                continue
            if not isinstance(item, dict):
                continue
            items.append(item)
            if item.get("op") == "enq":
                pending[str(item.get("id"))] = item
            elif item.get("op") in {"done", "failed"}:
                pending.pop(str(item.get("id", "")), None)
    return items, pending


def rewrite(path: Path, entries: list[Item]) -> None:
    """Replace the journal at ``path`` by ``entries``, atomically and durably (write a
    temporary file, ``fsync``, rename, ``fsync`` the directory)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for entry in entries:
            fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _owned(item: Item, user_id: str) -> bool:
    scope = item.get("scope")
    return isinstance(scope, dict) and scope.get("user_id") == user_id


def count_user_lines(path: Path, user_id: str) -> int:
    """Journal lines of ``user_id`` (its ``enq`` entries) in the file at ``path``."""
    items, _ = scan(path)
    return sum(1 for item in items if _owned(item, user_id))


class JournalInUse(ConfigError):
    """A running :class:`BackgroundWriter` holds the journal; purge through it instead."""


class OfflineJournal:
    """A journal file opened for maintenance while no writer runs (see module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock_file: IO[str] | None = None
        try:
            self._lock_file = lock_exclusive(self.path.with_name(self.path.name + ".lock"))
        except OSError as exc:
            raise JournalInUse(f"journal {self.path} is in use by a BackgroundWriter") from exc
        self._lines: list[Item] = []
        self._pending: OrderedDict[str, Item] = OrderedDict()
        self._read()

    def _read(self) -> None:
        self._lines, self._pending = scan(self.path)

    def purge_user(self, user_id: str) -> dict[str, int]:
        """Drop every line of ``user_id`` and rewrite the journal with the other users'
        unprocessed entries; ``{"queued_turns": unprocessed turns dropped, "journal_lines":
        lines of the user removed}``."""

        lines = sum(1 for item in self._lines if _owned(item, user_id))
        queued = sum(1 for item in self._pending.values() if _owned(item, user_id))
        rewrite(self.path, [item for item in self._pending.values() if not _owned(item, user_id)])
        self._read()
        return {"queued_turns": queued, "journal_lines": lines}

    def queued_turns(self, user_id: str) -> int:
        """Unprocessed turns of ``user_id`` in the journal (0 after :meth:`purge_user`)."""
        return sum(
            1
            for item in self._pending.values()
            if isinstance(item.get("scope"), dict) and item["scope"].get("user_id") == user_id
        )

    def forget_user(self, user_id: str) -> int:
        """:meth:`purge_user`'s count of unprocessed turns dropped."""
        return self.purge_user(user_id)["queued_turns"]

    def close(self) -> None:
        """Release the journal's lock. Idempotent."""
        handle, self._lock_file = self._lock_file, None
        if handle is not None:
            unlock(handle)
            handle.close()


__all__ = ["Item", "JournalInUse", "OfflineJournal", "count_user_lines", "rewrite", "scan"]
