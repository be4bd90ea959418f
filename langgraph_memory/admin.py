"""Operator commands: ``langgraph-memory inspect --user U``, ``forget --user U`` and
``audit --user U``.

Both open the store the application uses (``--path`` for the embedded engine, or ``--url`` for a
Qdrant server) and act on one user only; every read is scoped like the library's own.
``forget`` also deletes the user's checkpointed threads (``--checkpoints`` SQLite file or
``--postgres-dsn``) and externalized payloads (``--handles`` directory), prints the receipt, then
scans every store again and fails unless nothing of the user is left.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from rich.table import Table

from .config import DEFAULT_PATH
from .records import MemoryRecord
from .scope import Scope
from .store import MemoryStore
from .write.resolve import LEDGER_SUBJECT  # the write path's bookkeeping records


def _open_store(ns: argparse.Namespace) -> MemoryStore:
    if ns.url:
        return MemoryStore(url=ns.url, api_key=ns.api_key, collection=ns.collection)
    return MemoryStore(path=ns.path)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", required=True, help="user_id to act on (required)")
    parser.add_argument("--path", default=DEFAULT_PATH, help="embedded store directory")
    parser.add_argument("--url", default=None, help="Qdrant server URL (instead of --path)")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--collection", default="langgraph_memory")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _row(record: MemoryRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "project_id": record.project_id,
        "layer": record.layer.value,
        "kind": record.kind.value,
        "status": record.status.value,
        "current": record.is_current(),
        "version": record.version,
        "subject": record.subject,
        "predicate": record.predicate,
        "object": record.object,
        "text": record.text,
        "source": record.source.value,
        "thread_id": record.evidence.thread_id,
        "turn_ids": record.evidence.turn_ids,
        "superseded_by": record.superseded_by,
        "valid_from": record.valid_from.isoformat() if record.valid_from else None,
        "valid_to": record.valid_to.isoformat() if record.valid_to else None,
        "expire_at": record.expire_at.isoformat() if record.expire_at else None,
        "created_at": record.created_at.isoformat(),
    }


def user_records(store: MemoryStore, user_id: str, *, include_ledger: bool) -> list[MemoryRecord]:
    """Every record of ``user_id`` in every project and acl, current or not, newest first."""
    from .store.filters import Eq

    records = [MemoryRecord.from_payload(p) for p in store.backend.scroll(Eq("user_id", user_id))]
    if not include_ledger:
        records = [r for r in records if r.subject != LEDGER_SUBJECT]
    records.sort(key=lambda r: r.created_at, reverse=True)
    return records


def inspect_main(argv: Sequence[str]) -> int:
    """``inspect --user U``: what is stored for the user, its status and provenance."""
    parser = argparse.ArgumentParser(
        prog="langgraph-memory inspect", description=inspect_main.__doc__
    )
    _common(parser)
    parser.add_argument("--all", action="store_true", help="include write-path bookkeeping records")
    ns = parser.parse_args(argv)
    from .eval.common import make_console

    scope = Scope(user_id=ns.user)  # validates the user id (ScopeError on bad input)
    with _open_store(ns) as store:
        rows = [_row(r) for r in user_records(store, scope.user_id, include_ledger=ns.all)]
    console = make_console()
    if ns.json:
        console.print_json(json.dumps({"user_id": scope.user_id, "records": rows}, default=str))
        return 0
    table = Table(title=f"memory of user {scope.user_id!r}: {len(rows)} record(s)")
    for col in (
        "id",
        "project",
        "layer/kind",
        "status",
        "v",
        "text",
        "source / thread",
        "superseded_by",
    ):
        table.add_column(col)
    for r in rows:
        status = r["status"] + ("" if r["current"] else " (not current)")
        table.add_row(
            r["id"][:8],
            r["project_id"] or "-",
            f"{r['layer']}/{r['kind']}",
            status,
            str(r["version"]),
            r["text"][:80],
            f"{r['source']} / {r['thread_id'] or '-'}",
            (r["superseded_by"] or "")[:8],
        )
    console.print(table)
    return 0


def forget_main(argv: Sequence[str]) -> int:
    """``forget --user U``: delete everything kept about the user and print the receipt."""
    parser = argparse.ArgumentParser(
        prog="langgraph-memory forget", description=forget_main.__doc__
    )
    _common(parser)
    parser.add_argument("--checkpoints", default=None, help="SQLite checkpoint file of the app")
    parser.add_argument("--postgres-dsn", default=None, help="PostgreSQL checkpointer DSN")
    parser.add_argument("--handles", default=None, help="HandleStore directory of the app")
    parser.add_argument(
        "--audit-log", default=None, help="append a 'forget' entry to this audit log (JSONL)"
    )
    ns = parser.parse_args(argv)
    from .checkpoint import create_checkpointer
    from .context import HandleStore
    from .eval.common import make_console
    from .lifecycle import AuditLog
    from .prebuilt import forget_user

    scope = Scope(user_id=ns.user)
    checkpointer = None
    if ns.checkpoints:
        checkpointer = create_checkpointer("sqlite", path=ns.checkpoints)
    elif ns.postgres_dsn:
        checkpointer = create_checkpointer("postgres", dsn=ns.postgres_dsn)
    handles = HandleStore(ns.handles) if ns.handles else None
    try:
        with _open_store(ns) as store:
            receipt = forget_user(
                scope.user_id,
                store=store,
                checkpointer=checkpointer,
                handle_store=handles,
                audit=AuditLog(ns.audit_log) if ns.audit_log else None,
            )
    finally:
        if checkpointer is not None:
            checkpointer.close()
    residue = receipt["residue"]
    make_console().print_json(json.dumps(receipt, default=str))
    return 0 if not any(residue.values()) else 1


def audit_main(argv: Sequence[str]) -> int:
    """``audit --user U``: the user's lifecycle transitions, evictions and deletions.

    With ``--audit-log FILE`` the entries of that audit log (every event, including deletions
    and forget receipts); otherwise the transitions recorded on the user's stored records.
    Only entries of ``--user`` are shown.
    """
    parser = argparse.ArgumentParser(prog="langgraph-memory audit", description=audit_main.__doc__)
    _common(parser)
    parser.add_argument("--audit-log", default=None, help="audit log file (JSONL) to read")
    ns = parser.parse_args(argv)
    from .eval.common import make_console
    from .lifecycle import AuditLog, transitions_of

    scope = Scope(user_id=ns.user)
    if ns.audit_log:
        source = "audit-log"
        rows = [e.to_json() for e in AuditLog(ns.audit_log).entries(scope.user_id)]
    else:
        source = "store"
        with _open_store(ns) as store:
            rows = transitions_of(store, scope.user_id)
    console = make_console()
    if ns.json:
        payload = {"user_id": scope.user_id, "source": source, "entries": rows}
        console.print_json(json.dumps(payload, default=str))
        return 0
    table = Table(title=f"audit of user {scope.user_id!r} ({source}): {len(rows)} entr(ies)")
    for col in ("at", "event", "record", "from -> to", "reason", "actor"):
        table.add_column(col)
    for row in rows:
        table.add_row(
            str(row.get("at") or "")[:19],
            str(row.get("event")),
            str(row.get("record_id") or "-")[:8],
            f"{row.get('from') or '-'} -> {row.get('to') or '-'}",
            str(row.get("reason") or ""),
            str(row.get("actor") or ""),
        )
    console.print(table)
    return 0


__all__ = ["audit_main", "forget_main", "inspect_main", "user_records"]
