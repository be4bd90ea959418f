"""Security: another user's conversation is never readable through the checkpointer.

Through a compiled ``create_memory_agent`` graph on the SQLite and in-memory checkpointers:
reads of an owned thread by another user or by no named user raise ``ScopeError`` (sync and
async, ``get_state`` and ``get_state_history``), cross-thread listings are scoped to the named
user, the ``unscoped()`` admin view still sees everything, and async-capability detection does
not depend on the class name.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from langgraph_memory import (
    MemoryContext,
    MemoryStore,
    create_checkpointer,
    create_memory_agent,
    forget_user,
)
from langgraph_memory.errors import ScopeError
from langgraph_memory.graph.checkpoint import OwnedCheckpointSaver, wrap_checkpointer
from langgraph_memory.graph.checkpoint.capabilities import is_sync_only
from tests.fakes import ScriptedChatModel

SECRET = "my therapy session moved to Thursday at the Elm Street clinic"
"""Private words (not PII: nothing the redactor takes out, so the owner reads them as said)."""


@pytest.fixture(params=["sqlite", "memory"])
def cp(request, tmp_path) -> Iterator[OwnedCheckpointSaver]:  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        saver = create_checkpointer("sqlite", path=tmp_path / f"cp-{uuid.uuid4().hex}.sqlite")
    else:
        saver = create_checkpointer("memory")
    yield saver
    saver.close()


def _cfg(thread: str, user_id: str | None = None) -> Any:
    conf: dict[str, Any] = {"thread_id": thread}
    if user_id is not None:
        conf["user_id"] = user_id
    return {"configurable": conf}


def _agent(mstore: MemoryStore, cp: OwnedCheckpointSaver) -> Any:
    model = ScriptedChatModel(responder=lambda msgs, tools: "noted")
    agent = create_memory_agent(model, store=mstore, checkpointer=cp)
    agent.invoke(
        {"messages": [("user", SECRET)]},
        _cfg("t-alice"),
        context=MemoryContext(user_id="alice"),
    )
    agent.invoke(
        {"messages": [("user", "hello from bob")]},
        _cfg("t-bob"),
        context=MemoryContext(user_id="bob"),
    )
    return agent


def _texts(snapshots: Any) -> str:
    return " ".join(str(m.content) for s in snapshots for m in s.values.get("messages", []))


def test_other_user_cannot_read_history_or_state(
    mstore: MemoryStore, cp: OwnedCheckpointSaver
) -> None:
    agent = _agent(mstore, cp)
    mallory = _cfg("t-alice", "mallory")
    with pytest.raises(ScopeError, match="another user"):
        list(agent.get_state_history(mallory))
    with pytest.raises(ScopeError, match="another user"):
        agent.get_state(mallory)
    with pytest.raises(ScopeError, match="another user"):
        list(cp.list(mallory))


def test_no_user_cannot_read_an_owned_thread(mstore: MemoryStore, cp: OwnedCheckpointSaver) -> None:
    agent = _agent(mstore, cp)
    with pytest.raises(ScopeError, match="user_id"):
        agent.get_state(_cfg("t-alice"))
    with pytest.raises(ScopeError, match="user_id"):
        list(agent.get_state_history(_cfg("t-alice")))
    with pytest.raises(ScopeError, match="user_id"):
        cp.list(None)
    with pytest.raises(ScopeError, match="user_id"):
        cp.list({"configurable": {}})
    with pytest.raises(ScopeError, match="whitespace"):
        agent.get_state(_cfg("t-alice", "alice "))


def test_owner_reads_own_history(mstore: MemoryStore, cp: OwnedCheckpointSaver) -> None:
    agent = _agent(mstore, cp)
    history = list(agent.get_state_history(_cfg("t-alice", "alice")))
    assert history and SECRET in _texts(history)
    assert SECRET in _texts([agent.get_state(_cfg("t-alice", "alice"))])
    # the run context names the user too (metadata user_id works like configurable)
    assert agent.get_state(
        {"configurable": {"thread_id": "t-alice"}, "metadata": {"user_id": "alice"}}
    )


def test_cross_thread_listing_yields_only_the_named_users_threads(
    mstore: MemoryStore, cp: OwnedCheckpointSaver
) -> None:
    _agent(mstore, cp)
    alices = list(cp.list({"configurable": {"user_id": "alice"}}))
    assert alices and {t.config["configurable"]["thread_id"] for t in alices} == {"t-alice"}
    assert len(list(cp.list({"configurable": {"user_id": "alice"}}, limit=1))) == 1
    assert list(cp.list({"configurable": {"user_id": "nobody"}})) == []
    # the documented admin escape hatch sees every thread
    every = {t.config["configurable"]["thread_id"] for t in cp.unscoped().list(None)}
    assert every == {"t-alice", "t-bob"}
    with pytest.raises(ScopeError, match="another user"):
        cp.unscoped().get_tuple(_cfg("t-alice", "mallory"))


async def test_async_reads_are_checked(mstore: MemoryStore, cp: OwnedCheckpointSaver) -> None:
    agent = _agent(mstore, cp)
    with pytest.raises(ScopeError, match="another user"):
        [s async for s in agent.aget_state_history(_cfg("t-alice", "mallory"))]
    with pytest.raises(ScopeError, match="another user"):
        await agent.aget_state(_cfg("t-alice", "mallory"))
    with pytest.raises(ScopeError, match="user_id"):
        [s async for s in agent.aget_state_history(_cfg("t-alice"))]
    with pytest.raises(ScopeError, match="user_id"):
        [t async for t in cp.alist(None)]
    own = [s async for s in agent.aget_state_history(_cfg("t-alice", "alice"))]
    assert SECRET in _texts(own)
    alices = [t async for t in cp.alist({"configurable": {"user_id": "alice"}})]
    assert {t.config["configurable"]["thread_id"] for t in alices} == {"t-alice"}


def test_forget_user_still_works(mstore: MemoryStore, cp: OwnedCheckpointSaver) -> None:
    agent = _agent(mstore, cp)
    receipt = forget_user("alice", store=mstore, checkpointer=cp)
    assert receipt["threads"] == ["t-alice"]
    assert not any(receipt["residue"].values())  # zeros, or None where nothing is on disk
    assert agent.get_state(_cfg("t-alice")).values == {}  # gone, and no longer owned
    assert agent.get_state(_cfg("t-bob", "bob")).values["messages"]


# ---------------------------------------------------------------------------- async detection
class _MySqliteSaver(SqliteSaver):
    """A subclass: still sync-only (its aget_tuple is SqliteSaver's stub)."""


class _MyMemorySaver(InMemorySaver):
    """A subclass of an async-capable saver."""


def test_sync_only_is_decided_by_the_methods_not_the_class_name(tmp_path: Any) -> None:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "sub.sqlite", check_same_thread=False)
    try:
        sub = _MySqliteSaver(conn)
        assert is_sync_only(sub) and wrap_checkpointer(sub).async_via_threads
        assert not is_sync_only(_MyMemorySaver())
        assert not wrap_checkpointer(_MyMemorySaver()).async_via_threads
    finally:
        conn.close()

    class Bare(BaseCheckpointSaver[Any]):
        pass

    assert is_sync_only(Bare())


class _MyAsyncSqliteSaver(AsyncSqliteSaver):
    """A subclass of an async saver: async-capable (it implements every async method)."""


class _HalfAsyncSqliteSaver(SqliteSaver):
    """A SqliteSaver subclass that implements only ``aget_tuple``: its ``aput`` is still
    SqliteSaver's stub, so it must be served through threads."""

    async def aget_tuple(self, config: Any) -> Any:
        return self.get_tuple(config)


def test_sync_only_is_decided_by_capability(tmp_path: Any) -> None:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "half.sqlite", check_same_thread=False)
    try:
        half = _HalfAsyncSqliteSaver(conn)
        assert is_sync_only(half) and wrap_checkpointer(half).async_via_threads
    finally:
        conn.close()


async def test_async_sqlite_subclass_works_async_without_threads(
    tmp_path: Any, mstore: MemoryStore
) -> None:
    import aiosqlite

    async with aiosqlite.connect(tmp_path / "async-sub.sqlite") as conn:
        saver = _MyAsyncSqliteSaver(conn)
        assert not is_sync_only(saver)
        cp = wrap_checkpointer(saver)
        assert not cp.async_via_threads
        model = ScriptedChatModel(responder=lambda msgs, tools: "noted")
        agent = create_memory_agent(model, store=mstore, checkpointer=cp)
        await agent.ainvoke(
            {"messages": [("user", SECRET)]},
            _cfg("t-async"),
            context=MemoryContext(user_id="alice"),
        )
        assert cp.thread_owner("t-async") == "alice"
        with pytest.raises(ScopeError):
            await cp.aget_tuple(_cfg("t-async", "bob"))
        state = await agent.aget_state(_cfg("t-async", "alice"))
        assert SECRET in _texts([state])


async def test_sqlite_subclass_works_async(tmp_path: Any) -> None:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "sub2.sqlite", check_same_thread=False)
    try:
        saver = _MySqliteSaver(conn)
        saver.setup()
        cp = wrap_checkpointer(saver)
        assert await cp.aget_tuple(_cfg("nothing")) is None
        assert [t async for t in cp.alist(_cfg("nothing"))] == []
    finally:
        conn.close()
