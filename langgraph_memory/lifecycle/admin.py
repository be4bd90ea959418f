"""Operator commands: ``langgraph-memory inspect --user U``, ``forget --user U`` and
``audit --user U``.

Each opens the store the application uses (``--path`` for the embedded engine, or ``--url`` for a
Qdrant server) and acts on one user only; every read is scoped like the library's own.
``forget`` also deletes the user's checkpointed threads (``--checkpoints`` SQLite file or
``--postgres-dsn``), externalized payloads (``--handles`` directory) and the lines of a stopped
app's background journal (``--journal``), erases all of it from the files, prints the receipt,
then checks every store and every byte of its files again and fails unless nothing of the user
is left (:mod:`langgraph_memory.lifecycle.forget`). A store held by a running app is refused (exit
2):
forget from inside the app with :meth:`MemoryStore.forget_user`.

None of them can silently do nothing:

* every path is checked before anything is opened (:mod:`langgraph_memory.lifecycle.admin_checks`):
a
  missing store directory, checkpoint file, handle directory or audit log is refused with exit
  code 2 and a message naming the option, and nothing is created;
* ``forget --dry-run`` prints what would be deleted and deletes nothing; without ``--yes``
  ``forget`` asks the operator to type the user id, and refuses (exit 2) when stdin is not a
  terminal;
* ``--json`` prints JSON for every outcome, errors included (``{"error": ...}``);
* stored text is escaped in tables (a memory holding ``[/INST]`` or ``[bold]`` prints as
  written).

Exit codes: 0 done; 1 ``forget`` left residue or the operator declined; 2 refused arguments.

This module parses the arguments and prints; what the commands do (open the stores, read a
user's records, plan and confirm a forget) is :mod:`langgraph_memory.lifecycle.admin_ops`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..cli import PlainHelpFormatter
from ..core.config import DEFAULT_PATH
from ..core.records import MemoryRecord
from ..core.scope import Scope
from ..errors import ScopeError
from ..store import MemoryStore
from .admin_checks import (
    AdminRefusal,
    check_audit_log,
    check_audit_log_target,
    check_checkpoints_file,
    check_handles_dir,
    check_postgres,
)
from .admin_ops import (
    ask_on_stderr,
    confirmed,
    forget_plan,
    forget_targets,
    open_store,
    user_records,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 2

NOT_CONFIRMED = "nothing deleted: the confirmation did not match the user id"
NEEDS_YES = (
    "refusing to delete without confirmation: stdin is not a terminal; pass --yes to delete, "
    "or --dry-run to see what would be deleted"
)
AUDIT_APPENDED = "forget entry appended to the audit log {path}"
ONE_CHECKPOINTER = "give --checkpoints or --postgres-dsn, not both"
RESIDUE_LEFT = "something of the user is left (see the residue)"
NO_JOURNAL = "no journal file at {path} (--journal): nothing was changed"


def _open_store(ns: argparse.Namespace) -> MemoryStore:
    """The store named by ``--url`` or ``--path`` (:func:`~.admin_ops.open_store`)."""
    return open_store(path=ns.path, url=ns.url, api_key=ns.api_key, collection=ns.collection)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", required=True, help="user_id to act on (required)")
    parser.add_argument(
        "--path", default=DEFAULT_PATH, help="embedded store directory (must exist)"
    )
    parser.add_argument("--url", default=None, help="Qdrant server URL (instead of --path)")
    parser.add_argument("--api-key", default=None, help="API key of the Qdrant server (with --url)")
    parser.add_argument(
        "--collection",
        default="langgraph_memory",
        help="collection of the store (default: langgraph_memory)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON (results and errors) instead of tables"
    )


def _console() -> Console:
    from ..eval.common import make_console

    return make_console()


def _refuse(ns: argparse.Namespace, command: str, message: str, code: int) -> int:
    """Report a refused or failed command: JSON on stdout with ``--json``, else a line on
    stderr. Returns ``code``."""
    if ns.json:
        print(json.dumps({"command": command, "error": message, "exit_code": code}))
    else:
        print(f"langgraph-memory {command}: error: {message}", file=sys.stderr)
    return code


@contextmanager
def _refusals(command: str, ns: argparse.Namespace) -> Iterator[list[int]]:
    """Turns :class:`AdminRefusal` and a bad ``--user`` into exit code 2 with a message; the
    yielded list receives that code."""
    box: list[int] = []
    try:
        yield box
    except (AdminRefusal, ScopeError) as exc:
        box.append(_refuse(ns, command, str(exc), EXIT_REFUSED))


def _scope(user: str) -> Scope:
    return Scope(user_id=user)  # ScopeError on an empty id or surrounding whitespace


def _cell(value: Any) -> str:
    """A table cell: stored text with rich markup escaped (``[/INST]`` prints as written)."""
    return escape("" if value is None else str(value))


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


def inspect_main(argv: Sequence[str]) -> int:
    """``inspect --user U``: what is stored for the user, its status and provenance."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory inspect",
        description=inspect_main.__doc__,
    )
    _common(parser)
    parser.add_argument("--all", action="store_true", help="include write-path bookkeeping records")
    ns = parser.parse_args(argv)
    with _refusals("inspect", ns) as refused:
        scope = _scope(ns.user)
        with _open_store(ns) as store:
            rows = [_row(r) for r in user_records(store, scope.user_id, include_ledger=ns.all)]
    if refused:
        return refused[0]
    console = _console()
    if ns.json:
        console.print_json(json.dumps({"user_id": scope.user_id, "records": rows}, default=str))
        return EXIT_OK
    table = Table(title=_cell(f"memory of user {scope.user_id!r}: {len(rows)} record(s)"))
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
            _cell(r["id"][:8]),
            _cell(r["project_id"] or "-"),
            _cell(f"{r['layer']}/{r['kind']}"),
            _cell(status),
            _cell(r["version"]),
            _cell(r["text"][:80]),
            _cell(f"{r['source']} / {r['thread_id'] or '-'}"),
            _cell((r["superseded_by"] or "")[:8]),
        )
    console.print(table)
    return EXIT_OK


def _print_mapping(console: Console, title: str, data: Mapping[str, Any]) -> None:
    """``title`` on its own line, then ``data`` as a two-column table."""
    console.print(title, markup=False, highlight=False)
    table = Table()
    table.add_column("what")
    table.add_column("value")
    for key, value in data.items():
        if isinstance(value, Mapping):
            value = ", ".join(f"{k}: {v}" for k, v in value.items()) or "-"
        elif isinstance(value, list):
            value = f"{len(value)}: " + ", ".join(str(v) for v in value) if value else "0"
        table.add_row(_cell(key), _cell(value))
    console.print(table)


def _check_forget_args(ns: argparse.Namespace) -> None:
    """Refuse ``forget``'s paths before anything is opened (:class:`AdminRefusal`)."""
    if ns.checkpoints and ns.postgres_dsn:
        raise AdminRefusal(ONE_CHECKPOINTER)
    if ns.checkpoints:
        check_checkpoints_file(ns.checkpoints)
    elif ns.postgres_dsn:
        check_postgres(ns.postgres_dsn)
    if ns.handles:
        check_handles_dir(ns.handles)
    if ns.audit_log:
        check_audit_log_target(ns.audit_log)
    if ns.journal and not Path(ns.journal).is_file():
        raise AdminRefusal(NO_JOURNAL.format(path=ns.journal))


def forget_main(argv: Sequence[str]) -> int:
    """``forget --user U``: delete and erase everything kept about the user (from the files
    too) and print the receipt; exit 1 if any residue is left in a store or its files.

    Every path given must exist. ``--dry-run`` prints what would be deleted; otherwise the
    operator confirms by typing the user id, unless ``--yes``. While a running app holds the
    store (or ``--journal``), it refuses with exit 2: forget inside the app
    (``store.forget_user``).
    """
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory forget",
        description=forget_main.__doc__,
    )
    _common(parser)
    parser.add_argument("--checkpoints", default=None, help="SQLite checkpoint file of the app")
    parser.add_argument("--postgres-dsn", default=None, help="PostgreSQL checkpointer DSN")
    parser.add_argument("--handles", default=None, help="HandleStore directory of the app")
    parser.add_argument(
        "--journal", default=None, help="BackgroundWriter journal of the (stopped) app"
    )
    parser.add_argument(
        "--audit-log",
        default=None,
        help="append a 'forget' entry to this audit log (JSONL; its directory must exist)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be deleted; delete nothing"
    )
    parser.add_argument("--yes", action="store_true", help="delete without asking to confirm")
    ns = parser.parse_args(argv)
    from .audit import AuditLog
    from .forget import ForgetReceipt, forget_user

    receipt: ForgetReceipt | None = None
    plan: dict[str, Any] = {}
    outcome: int | None = None
    with _refusals("forget", ns) as refused:
        scope = _scope(ns.user)
        _check_forget_args(ns)  # every argument is checked before anything is opened
        with (
            _open_store(ns) as store,
            forget_targets(
                checkpoints=ns.checkpoints,
                postgres_dsn=ns.postgres_dsn,
                handles=ns.handles,
                journal=ns.journal,
            ) as targets,
        ):
            plan = forget_plan(store, scope.user_id, targets.checkpointer, targets.handles)
            if not ns.dry_run and not ns.yes:
                answer = confirmed(plan, scope.user_id, stdin=sys.stdin, ask=ask_on_stderr)
                if answer is None:
                    raise AdminRefusal(NEEDS_YES)
                if not answer:
                    outcome = _refuse(ns, "forget", NOT_CONFIRMED, EXIT_FAILED)
            if not ns.dry_run and outcome is None:
                receipt = forget_user(
                    scope.user_id,
                    store=store,
                    checkpointer=targets.checkpointer,
                    handle_store=targets.handles,
                    background_writer=targets.journal,
                    audit=AuditLog(ns.audit_log) if ns.audit_log else None,
                )
    if refused:
        return refused[0]
    if outcome is not None:
        return outcome
    console = _console()
    if receipt is None:  # --dry-run
        data = {"user_id": scope.user_id, "dry_run": True, "would_delete": plan}
        if ns.json:
            console.print_json(json.dumps(data, default=str))
        else:
            _print_mapping(console, f"dry run: forget {scope.user_id!r} would delete", plan)
            console.print("nothing was deleted (--dry-run)", markup=False)
        return EXIT_OK
    residue = receipt["residue"]
    code = EXIT_OK if not any(residue.values()) else EXIT_FAILED
    if ns.json:
        console.print_json(json.dumps(receipt, default=str))
        return code
    summary = {k: v for k, v in receipt.items() if k != "residue"}
    _print_mapping(console, f"forgot user {scope.user_id!r}", summary)
    _print_mapping(console, "left afterwards (residue; all 0 means nothing is left)", residue)
    if ns.audit_log:
        console.print(AUDIT_APPENDED.format(path=ns.audit_log), markup=False)
    if code != EXIT_OK:
        _refuse(ns, "forget", RESIDUE_LEFT, code)
    return code


def audit_main(argv: Sequence[str]) -> int:
    """``audit --user U``: the user's lifecycle transitions, evictions and deletions.

    With ``--audit-log FILE`` (which must exist) the entries of that audit log (every event,
    including deletions and forget receipts); otherwise the transitions recorded on the user's
    stored records. Only entries of ``--user`` are shown.
    """
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory audit",
        description=audit_main.__doc__,
    )
    _common(parser)
    parser.add_argument("--audit-log", default=None, help="audit log file (JSONL) to read")
    ns = parser.parse_args(argv)
    from .audit import AuditLog
    from .ops import transitions_of

    source = "audit-log" if ns.audit_log else "store"
    rows: Sequence[Mapping[str, Any]] = []
    with _refusals("audit", ns) as refused:
        scope = _scope(ns.user)
        if ns.audit_log:
            check_audit_log(ns.audit_log)
            rows = [e.to_json() for e in AuditLog(ns.audit_log).entries(scope.user_id)]
        else:
            with _open_store(ns) as store:
                rows = transitions_of(store, scope.user_id)
    if refused:
        return refused[0]
    console = _console()
    if ns.json:
        payload = {"user_id": scope.user_id, "source": source, "entries": rows}
        console.print_json(json.dumps(payload, default=str))
        return EXIT_OK
    table = Table(title=_cell(f"audit of user {scope.user_id!r} ({source}): {len(rows)} entr(ies)"))
    for col in ("at", "event", "record", "from -> to", "reason", "actor"):
        table.add_column(col)
    for row in rows:
        table.add_row(
            _cell(str(row.get("at") or "")[:19]),
            _cell(row.get("event")),
            _cell(str(row.get("record_id") or "-")[:8]),
            _cell(f"{row.get('from') or '-'} -> {row.get('to') or '-'}"),
            _cell(row.get("reason") or ""),
            _cell(row.get("actor") or ""),
        )
    console.print(table)
    return EXIT_OK


__all__ = ["audit_main", "forget_main", "inspect_main"]
