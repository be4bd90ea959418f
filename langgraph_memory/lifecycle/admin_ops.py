"""What the admin commands do, without their argument parsing or output
(:mod:`langgraph_memory.lifecycle.admin` is the command line).

* :func:`open_store` opens the store an application uses, checked to exist first (nothing is
  created) and refused while a running app holds the embedded engine;
* :func:`user_records` reads every record of one user;
* :func:`forget_targets` opens the other stores ``forget`` acts on (checkpoints, handles, a
  stopped app's journal) and closes them afterwards;
* :func:`forget_plan` says what ``forget`` would delete; :func:`confirmed` asks the operator.

Every failure an operator can fix raises
:class:`~langgraph_memory.lifecycle.admin_checks.AdminRefusal` with nothing changed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from ..core.records import MemoryRecord
from ..store import MemoryStore
from .admin_checks import AdminRefusal, check_collection, check_store_dir

if TYPE_CHECKING:
    from ..context import HandleStore
    from ..graph.checkpoint import OwnedCheckpointSaver
    from ..write.journal import OfflineJournal

CONFIRM_PROMPT = (
    "This deletes everything kept about user {user!r}: {records} record(s), {threads} "
    "thread(s), {handles} handle(s). Type the user id to confirm: "
)
STORE_IN_USE = (
    "the memory store at {path} is open in another process (a running app?): the embedded "
    "engine allows one process per store, and nothing was changed. To forget a user while "
    "the app runs, call it inside the app: store.forget_user(user_id, checkpointer=..., "
    "handle_store=..., background_writer=..., audit=...) (or langgraph_memory.forget_user); "
    "otherwise stop the app and run this command again"
)
"""Exit 2 when a running app holds the embedded store (every command opens it)."""
JOURNAL_IN_USE = (
    "the journal {path} is held by a running BackgroundWriter, and nothing was changed: call "
    "forget_user(..., background_writer=writer) inside the app, or stop it and run this "
    "command again"
)


def open_store(*, path: str, url: str | None, api_key: str | None, collection: str) -> MemoryStore:
    """The store at ``url`` (a Qdrant server) or else ``path`` (the embedded engine), checked
    to exist first (nothing is created)."""
    if url:
        from qdrant_client import QdrantClient

        # a probe only: the store checks the server version itself when it opens
        client = QdrantClient(url=url, api_key=api_key, check_compatibility=False)
        try:
            check_collection(client, collection)
        finally:
            client.close()
        return MemoryStore(url=url, api_key=api_key, collection=collection)
    from ..errors import StoreUnavailable
    from ..store.edge import META_FILE

    check_store_dir(path, META_FILE)
    try:
        return MemoryStore(path=path)
    except StoreUnavailable as exc:
        if "already open" not in str(exc):
            raise
        raise AdminRefusal(STORE_IN_USE.format(path=path)) from exc


def user_records(store: MemoryStore, user_id: str, *, include_ledger: bool) -> list[MemoryRecord]:
    """Every record of ``user_id`` in every project and acl, current or not, newest first."""
    return store.user_records(user_id, include_internal=include_ledger)


class ForgetTargets(NamedTuple):
    """The stores besides memory that ``forget`` acts on (``None``: not given)."""

    checkpointer: OwnedCheckpointSaver | None
    handles: HandleStore | None
    journal: OfflineJournal | None


@contextmanager
def forget_targets(
    *,
    checkpoints: str | None,
    postgres_dsn: str | None,
    handles: str | None,
    journal: str | None,
) -> Iterator[ForgetTargets]:
    """Open the journal of a stopped app (refused while a writer holds it), the checkpointer
    (SQLite file or PostgreSQL DSN) and the handle directory; close them on exit."""
    from ..context import HandleStore
    from ..graph.checkpoint import create_checkpointer
    from ..write.journal import JournalInUse, OfflineJournal

    checkpointer: OwnedCheckpointSaver | None = None
    offline: OfflineJournal | None = None
    try:
        if journal:
            try:
                offline = OfflineJournal(journal)
            except JournalInUse as exc:
                raise AdminRefusal(JOURNAL_IN_USE.format(path=journal)) from exc
        if checkpoints:
            checkpointer = create_checkpointer("sqlite", path=checkpoints)
        elif postgres_dsn:
            checkpointer = create_checkpointer("postgres", dsn=postgres_dsn)
        store = HandleStore(handles) if handles else None
        yield ForgetTargets(checkpointer, store, offline)
    finally:
        if checkpointer is not None:
            checkpointer.close()
        if offline is not None:
            offline.close()


def forget_plan(
    store: MemoryStore,
    user_id: str,
    checkpointer: OwnedCheckpointSaver | None,
    handles: HandleStore | None,
) -> dict[str, Any]:
    """What ``forget`` would delete, read without changing anything."""
    records = user_records(store, user_id, include_ledger=True)
    by_layer: dict[str, int] = {}
    for record in records:
        by_layer[record.layer.value] = by_layer.get(record.layer.value, 0) + 1
    return {
        "records": len(records),
        "records_by_layer": dict(sorted(by_layer.items())),
        "threads": checkpointer.threads_of(user_id) if checkpointer is not None else None,
        "handles": len(handles.handles_of(user_id)) if handles is not None else None,
    }


def confirmed(
    plan: Mapping[str, Any],
    user_id: str,
    *,
    stdin: TextIO,
    ask: Callable[[str], str],
) -> bool | None:
    """Ask the operator to type the user id; ``None`` when stdin is not a terminal."""
    if not stdin.isatty():
        return None
    prompt = CONFIRM_PROMPT.format(
        user=user_id,
        records=plan["records"],
        threads=len(plan["threads"] or []),
        handles=plan["handles"] or 0,
    )
    try:
        answer = ask(prompt)
    except EOFError:
        return False
    return answer.strip() == user_id


def ask_on_stderr(prompt: str) -> str:
    """Print ``prompt`` on stderr (stdout stays clean for ``--json``) and read one line."""
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


__all__ = [
    "CONFIRM_PROMPT",
    "JOURNAL_IN_USE",
    "STORE_IN_USE",
    "ForgetTargets",
    "ask_on_stderr",
    "confirmed",
    "forget_plan",
    "forget_targets",
    "open_store",
    "user_records",
]
