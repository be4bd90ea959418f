"""Handles: large or stale payloads moved out of the context, fetchable on demand.

Compaction replaces a tool output or an oversized message by a short stub naming a
*handle* (``h_`` + 20 hex characters). The payload is kept in a :class:`HandleStore`, scoped
to the tenant exactly like memory records (:class:`~langgraph_memory.core.scope.Scope`): a
handle put for alice is invisible to bob, and ``delete_user("alice")`` removes all of
alice's payloads (forget-user). The agent gets them back with the ``fetch_memory(handle)``
tool from :func:`~langgraph_memory.context.fetch_tool.create_fetch_memory_tool`.

Handles are content-addressed per scope: putting the same content twice for the same
scope returns the same handle, so repeated compactions never duplicate payloads.

Payloads are PII-redacted before they are kept (in memory or on disk) with the write path's
policy (:class:`~langgraph_memory.core.redact.Redactor`; ``HandleStore(redact=...)`` takes
``pipeline.redactor`` for a custom policy, ``False`` to keep payloads as given): a tool output
or transcript that held a phone number holds ``[PHONE]``, and ``fetch_memory`` returns it so.
A JSON payload (a transcript, content blocks) is redacted value by value, so it stays valid
JSON; ids, message types and roles are kept.

Storage is in memory by default; pass ``path=`` to also persist each payload as a JSON file
under ``path/<user digest>/<handle>.json`` (survives restarts; one directory per user so
forget-user is one directory removal).
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.logsafe import get_logger
from ..core.scope import Scope
from ..errors import RecordNotFound, ScopeError
from ..write.message_redaction import text_redactor

if TYPE_CHECKING:
    from ..core.redact import Redactor

logger = get_logger("context")

__all__ = ["HandleStore", "Payload", "StoredPayload", "handle_scope", "is_handle"]

Payload = str | list[Any] | dict[str, Any]
"""What :meth:`HandleStore.put` takes: text, or a JSON-serialisable list/dict."""

_HANDLE_PREFIX = "h_"
_HANDLE_LEN = 20


def is_handle(value: str) -> bool:
    """True when ``value`` has the shape of a handle (``h_`` + 20 hex characters)."""
    body = value[len(_HANDLE_PREFIX) :]
    return (
        value.startswith(_HANDLE_PREFIX)
        and len(body) == _HANDLE_LEN
        and all(c in "0123456789abcdef" for c in body)
    )


def handle_scope(scope: Scope | dict[str, Any] | str | None) -> Scope:
    """The :class:`~langgraph_memory.core.scope.Scope` a handle is stored or read under;
    :class:`~langgraph_memory.errors.ScopeError` when ``scope`` is ``None`` or invalid."""
    if scope is None:
        raise ScopeError("a scope with a user_id is required to store or fetch handles")
    return Scope.of(scope)


def _user_dir(user_id: str) -> str:
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class StoredPayload:
    """One externalized payload and who may read it."""

    handle: str
    user_id: str
    project_id: str | None
    acl: tuple[str, ...]
    content: str
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "handle": self.handle,
            "user_id": self.user_id,
            "project_id": self.project_id,
            "acl": list(self.acl),
            "content": self.content,
            "meta": self.meta,
            "created_at": self.created_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StoredPayload:
        return cls(
            handle=str(data["handle"]),
            user_id=str(data["user_id"]),
            project_id=data.get("project_id"),
            acl=tuple(data.get("acl") or ()),
            content=str(data["content"]),
            meta=dict(data.get("meta") or {}),
            created_at=str(data.get("created_at", "")),
        )


class HandleStore:
    """Scoped payload store behind handles. Thread-safe.

    Guarantees: ``get(scope, put(scope, content))`` is ``content`` as stored, i.e. PII-redacted
    unless ``redact=False`` (equal to ``content`` when it holds no PII); a scope
    that cannot read a payload (another user, another project, missing ACL label) gets
    :class:`~langgraph_memory.errors.RecordNotFound`, the same error as for an unknown
    handle, so handle existence never leaks across tenants; an invalid scope raises
    :class:`~langgraph_memory.errors.ScopeError`.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, redact: bool | Redactor = True
    ) -> None:
        self._redactor = text_redactor(redact)
        self._items: dict[str, StoredPayload] = {}
        self._lock = threading.RLock()
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _make_handle(scope: Scope, content: str) -> str:
        digest = hashlib.sha256()
        for part in (scope.user_id, scope.project_id or "", ",".join(scope.acl), content):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00")
        return _HANDLE_PREFIX + digest.hexdigest()[:_HANDLE_LEN]

    def _file(self, user_id: str, handle: str) -> Path | None:
        if self.path is None:
            return None
        return self.path / _user_dir(user_id) / f"{handle}.json"

    def _load(self, user_id: str, handle: str) -> StoredPayload | None:
        item = self._items.get(handle)
        if item is not None:
            return item
        file = self._file(user_id, handle)
        if file is None or not file.exists():
            return None
        try:
            item = StoredPayload.from_json(json.loads(file.read_text("utf-8")))
        except (OSError, ValueError, KeyError):
            logger.warning("unreadable handle file %s", file, extra={"handle": handle})
            return None
        self._items[handle] = item
        return item

    # ------------------------------------------------------------------ API
    def put(
        self,
        scope: Scope | dict[str, Any] | str,
        content: Payload,
        meta: dict[str, Any] | None = None,
    ) -> str:
        """Store ``content`` for ``scope`` and return its handle (same content -> same handle).

        ``content`` is text, or a JSON-serialisable list/dict (kept as its JSON text). PII is
        redacted before anything is kept; the handle is derived from the redacted content.
        ``meta`` is kept as given: ids, counts and kinds, never conversation text."""
        sc = handle_scope(scope)
        if self._redactor is not None:
            content = (
                self._redactor.text(content)
                if isinstance(content, str)
                else self._redactor.json(content)
            )
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False, default=str)
        handle = self._make_handle(sc, content)
        with self._lock:
            existing = self._load(sc.user_id, handle)
            if existing is not None:
                return handle
            item = StoredPayload(
                handle=handle,
                user_id=sc.user_id,
                project_id=sc.project_id,
                acl=sc.acl,
                content=content,
                meta=dict(meta or {}),
                created_at=datetime.now(UTC).isoformat(),
            )
            self._items[handle] = item
            file = self._file(sc.user_id, handle)
            if file is not None:
                file.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=file.parent, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(item.to_json(), fh, ensure_ascii=False, default=str)
                os.replace(tmp, file)
        logger.debug(
            "stored payload", extra={"handle": handle, "user_id": sc.user_id, "chars": len(content)}
        )
        return handle

    def _get_item(self, scope: Scope | dict[str, Any] | str, handle: str) -> StoredPayload:
        sc = handle_scope(scope)
        with self._lock:
            item = self._load(sc.user_id, str(handle).strip())
        if item is None or not sc.can_read(item.user_id, item.project_id, list(item.acl)):
            raise RecordNotFound(f"no stored content for handle {handle!r} in this scope")
        return item

    def get(self, scope: Scope | dict[str, Any] | str, handle: str) -> str:
        """The payload behind ``handle``; ``RecordNotFound`` if unknown or not visible."""
        return self._get_item(scope, handle).content

    def get_meta(self, scope: Scope | dict[str, Any] | str, handle: str) -> dict[str, Any]:
        """The metadata stored with ``handle`` (a copy)."""
        return dict(self._get_item(scope, handle).meta)

    def contains(self, scope: Scope | dict[str, Any] | str, handle: str) -> bool:
        """True when ``handle`` is readable in ``scope``."""
        try:
            self._get_item(scope, handle)
        except RecordNotFound:
            return False
        return True

    def list(self, scope: Scope | dict[str, Any] | str) -> list[str]:
        """Handles readable in ``scope`` (in-memory ones plus, when persistent, on disk)."""
        sc = handle_scope(scope)
        with self._lock:
            if self.path is not None:
                folder = self.path / _user_dir(sc.user_id)
                if folder.exists():
                    for file in folder.glob("*.json"):
                        self._load(sc.user_id, file.stem)
            return sorted(
                h
                for h, item in self._items.items()
                if sc.can_read(item.user_id, item.project_id, list(item.acl))
            )

    def delete(self, scope: Scope | dict[str, Any] | str, handle: str) -> bool:
        """Delete one payload readable in ``scope``; True when something was removed."""
        try:
            item = self._get_item(scope, handle)
        except RecordNotFound:
            return False
        with self._lock:
            self._items.pop(item.handle, None)
            file = self._file(item.user_id, item.handle)
            if file is not None and file.exists():
                file.unlink()
        return True

    def handles_of(self, user_id: str) -> builtins.list[str]:
        """Every handle of ``user_id`` (memory and disk, every project and acl): what
        :meth:`delete_user` would remove. Reads only."""
        user_id = Scope(user_id=user_id).user_id
        with self._lock:
            handles = {h for h, item in self._items.items() if item.user_id == user_id}
            if self.path is not None:
                folder = self.path / _user_dir(user_id)
                if folder.exists():
                    handles.update(f.stem for f in folder.glob("*.json"))
        return sorted(handles)

    def delete_user(self, user_id: str) -> int:
        """Forget-user: remove every payload of ``user_id`` (memory and disk). Returns the count."""
        user_id = Scope(user_id=user_id).user_id  # refuses empty ids and surrounding whitespace
        with self._lock:
            handles = {h for h, item in self._items.items() if item.user_id == user_id}
            for h in handles:
                del self._items[h]
            if self.path is not None:
                folder = self.path / _user_dir(user_id)
                if folder.exists():
                    handles.update(f.stem for f in folder.glob("*.json"))
                    shutil.rmtree(folder)
        logger.info("deleted handles of user", extra={"user_id": user_id, "count": len(handles)})
        return len(handles)

    def managed_paths(self) -> builtins.list[Path]:
        """The directory holding the payload files (``[]`` for an in-memory store)."""
        return [] if self.path is None else [self.path]

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    # async twins: the store is in-process and fast, so these call the sync methods
    async def aput(
        self,
        scope: Scope | dict[str, Any] | str,
        content: Payload,
        meta: dict[str, Any] | None = None,
    ) -> str:
        """Async :meth:`put`."""
        return self.put(scope, content, meta)

    async def aget(self, scope: Scope | dict[str, Any] | str, handle: str) -> str:
        """Async :meth:`get`."""
        return self.get(scope, handle)

    async def adelete_user(self, user_id: str) -> int:
        """Async :meth:`delete_user`."""
        return self.delete_user(user_id)
