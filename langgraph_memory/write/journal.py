"""The journal of a :class:`~langgraph_memory.write.BackgroundWriter` that is not running.

``langgraph-memory forget --journal PATH`` purges a user from the journal of a stopped app
with :class:`OfflineJournal`: it takes the journal's lock the way a writer does (so it refuses,
with :class:`JournalInUse`, while a writer holds it), drops every line of the user, processed
or not, and rewrites the file with the other users' unprocessed entries only (what the next
writer would replay), atomically. A running app purges through its writer
(:meth:`BackgroundWriter.purge_user`).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import OrderedDict
from pathlib import Path
from typing import IO, Any

from ..errors import ConfigError


class JournalInUse(ConfigError):
    """A running :class:`BackgroundWriter` holds the journal; purge through it instead."""


class OfflineJournal:
    """A journal file opened for maintenance while no writer runs (see module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock_file: IO[str] | None = open(  # noqa: SIM115 - held until close()
            self.path.with_name(self.path.name + ".lock"), "a+"
        )
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self._lock_file.close()
            self._lock_file = None
            raise JournalInUse(f"journal {self.path} is in use by a BackgroundWriter") from exc
        self._pending: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lines: list[dict[str, Any]] = []
        self._read()

    def _read(self) -> None:
        self._lines = []
        self._pending = OrderedDict()
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line was never acknowledged
                if not isinstance(item, dict):
                    continue
                self._lines.append(item)
                if item.get("op") == "enq":
                    self._pending[str(item.get("id"))] = item
                elif item.get("op") in {"done", "failed"}:
                    self._pending.pop(str(item.get("id", "")), None)

    def purge_user(self, user_id: str) -> dict[str, int]:
        """Drop every line of ``user_id`` and rewrite the journal with the other users'
        unprocessed entries; ``{"queued_turns": unprocessed turns dropped, "journal_lines":
        lines of the user removed}``."""

        def owned(item: dict[str, Any]) -> bool:
            scope = item.get("scope")
            return isinstance(scope, dict) and scope.get("user_id") == user_id

        lines = sum(1 for item in self._lines if owned(item))
        queued = sum(1 for item in self._pending.values() if owned(item))
        keep = [item for item in self._pending.values() if not owned(item)]
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for item in keep:
                fh.write(json.dumps(item, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
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
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()


__all__ = ["JournalInUse", "OfflineJournal"]
