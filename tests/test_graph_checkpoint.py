"""The ownership-recording checkpointer: conformance, ownership, forget-user, both backends."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime

from langgraph_memory import create_checkpointer
from langgraph_memory.errors import ConfigError, ScopeError
from langgraph_memory.graph.checkpoint import OwnedCheckpointSaver
from langgraph_memory.graph.checkpoint.saver import PruningOwnedCheckpointSaver

POSTGRES_DSN = os.environ.get("LGM_TEST_POSTGRES_DSN")


def _require_postgres() -> str:
    """The test DSN; in CI its absence is a failure (the postgres path must be tested)."""
    if POSTGRES_DSN:
        return POSTGRES_DSN
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("CI=true but LGM_TEST_POSTGRES_DSN is not set: run .ci/start_postgres.sh")
    pytest.skip("no PostgreSQL (set LGM_TEST_POSTGRES_DSN; .ci/start_postgres.sh starts one)")


def _make(kind: str, tmp_path: Any) -> OwnedCheckpointSaver:
    if kind == "memory":
        return create_checkpointer("memory")
    if kind == "sqlite":
        return create_checkpointer("sqlite", path=tmp_path / f"cp-{uuid.uuid4().hex}.sqlite")
    return create_checkpointer("postgres", dsn=_require_postgres())


# ---------------------------------------------------------------------------- conformance
async def _conformance(kind: str, tmp_path: Any) -> None:
    # The suite runs against the scoped (default) checkpointer, not the unscoped() admin view:
    # it writes its checkpoints without a user_id (so no thread has an owner, and unowned
    # threads stay readable) and lists only by thread_id, never list(None), which is what a
    # scoped checkpointer refuses without a user. tests/test_security_checkpoint.py checks the
    # read rules for owned threads.
    made: list[OwnedCheckpointSaver] = []

    @checkpointer_test(name=f"lgm-{kind}")
    async def factory() -> AsyncIterator[OwnedCheckpointSaver]:
        saver = _make(kind, tmp_path)
        made.append(saver)
        yield saver
        saver.close()

    report = await validate(factory)
    failures = {
        cap: [f for f in (res.failures or [])]
        for cap, res in report.results.items()
        if res.detected and res.passed is not True
    }
    assert report.passed_all_base(), failures
    assert report.passed_all(), failures
    assert made, "the factory was never used"


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_conformance(kind: str, tmp_path: Any) -> None:
    await _conformance(kind, tmp_path)


async def test_conformance_postgres(tmp_path: Any) -> None:
    _require_postgres()
    await _conformance("postgres", tmp_path)


def test_postgres_exposes_prune_and_sqlite_does_not(tmp_path: Any) -> None:
    sqlite = create_checkpointer("sqlite", path=tmp_path / "a.sqlite")
    assert type(sqlite) is OwnedCheckpointSaver
    sqlite.close()
    pg = create_checkpointer("postgres", dsn=_require_postgres())
    assert isinstance(pg, PruningOwnedCheckpointSaver)
    pg.close()


def test_bad_kind_and_missing_dsn(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError):
        create_checkpointer("redis")  # type: ignore[arg-type]
    monkeypatch.delenv("LGM_POSTGRES_DSN", raising=False)
    with pytest.raises(ConfigError, match="dsn"):
        create_checkpointer("postgres")


# ---------------------------------------------------------------------------- ownership in a graph
@dataclass
class _Ctx:
    user_id: str


class _S(TypedDict, total=False):
    n: int


def _count(state: _S, runtime: Runtime[_Ctx]) -> dict[str, int]:
    return {"n": state.get("n", 0) + 1}


def _graph(cp: OwnedCheckpointSaver) -> Any:
    builder = StateGraph(_S, context_schema=_Ctx)
    builder.add_node("count", _count)
    builder.set_entry_point("count")
    builder.set_finish_point("count")
    return builder.compile(checkpointer=cp)


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_ownership_recorded_enforced_and_forgotten(kind: str, tmp_path: Any) -> None:
    cp = _make(kind, tmp_path)
    run = uuid.uuid4().hex[:6]  # the postgres database outlives a test run
    alice, bob = f"alice-{run}", f"bob-{run}"
    try:
        graph = _graph(cp)
        t1, t2, tb = (f"{kind}-{name}-{run}" for name in ("a1", "a2", "b1"))
        graph.invoke({"n": 0}, {"configurable": {"thread_id": t1}}, context=_Ctx(alice))
        graph.invoke({"n": 5}, {"configurable": {"thread_id": t2}}, context=_Ctx(alice))
        graph.invoke({"n": 0}, {"configurable": {"thread_id": tb}}, context=_Ctx(bob))
        assert cp.thread_owner(t1) == alice
        assert cp.threads_of(alice) == sorted([t1, t2])
        assert cp.threads_of(bob) == [tb]
        # bob cannot run on (and so cannot read) alice's thread
        with pytest.raises(ScopeError, match="another user") as err:
            graph.invoke({"n": 0}, {"configurable": {"thread_id": t1}}, context=_Ctx(bob))
        assert alice not in str(err.value)
        # alice continues her thread
        out = graph.invoke({"n": 1}, {"configurable": {"thread_id": t1}}, context=_Ctx(alice))
        assert out["n"] == 2
        deleted = cp.delete_user(alice)
        assert set(deleted) == {t1, t2}
        assert cp.get_tuple({"configurable": {"thread_id": t1, "checkpoint_ns": ""}}) is None
        assert cp.get_tuple({"configurable": {"thread_id": t2, "checkpoint_ns": ""}}) is None
        assert cp.threads_of(alice) == []
        bobs = {"configurable": {"thread_id": tb, "checkpoint_ns": "", "user_id": bob}}
        assert cp.get_tuple(bobs) is not None
        cp.delete_user(bob)
    finally:
        cp.close()


def _with_user(config: dict[str, Any], user_id: str) -> Any:
    return {"configurable": {**config["configurable"], "user_id": user_id}}


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_async_graph_on_same_checkpointer(kind: str, tmp_path: Any) -> None:
    cp = _make(kind, tmp_path)
    try:
        graph = _graph(cp)
        cfg = {"configurable": {"thread_id": "async-1"}}
        await graph.ainvoke({"n": 0}, cfg, context=_Ctx("carol"))
        out = await graph.ainvoke({"n": 10}, cfg, context=_Ctx("carol"))
        assert out["n"] == 11
        # the sync API sees what the async API wrote
        assert graph.get_state(_with_user(cfg, "carol")).values["n"] == 11
        assert cp.threads_of("carol") == ["async-1"]
        with pytest.raises(ScopeError):
            await graph.ainvoke({"n": 0}, cfg, context=_Ctx("dave"))
        assert await cp.adelete_user("carol") == ["async-1"]
        assert (
            await cp.aget_tuple({"configurable": {"thread_id": "async-1", "checkpoint_ns": ""}})
            is None
        )
    finally:
        cp.close()


def test_sqlite_ownership_survives_reopen(tmp_path: Any) -> None:
    path = tmp_path / "cp.sqlite"
    cp = create_checkpointer("sqlite", path=path)
    _graph(cp).invoke({"n": 0}, {"configurable": {"thread_id": "x"}}, context=_Ctx("erin"))
    cp.close()
    again = create_checkpointer("sqlite", path=path)
    try:
        assert again.thread_owner("x") == "erin"
        assert again.delete_user("erin") == ["x"]
    finally:
        again.close()


def test_wrapper_forwards_allowlist_and_versions(tmp_path: Any) -> None:
    cp = create_checkpointer("memory")
    clone = cp.with_allowlist([("mymod", "MyType")])
    assert isinstance(clone, OwnedCheckpointSaver)
    assert clone.ownership is cp.ownership
    v1 = cp.get_next_version(None, None)
    v2 = cp.get_next_version(v1, None)
    assert isinstance(v1, str) and v2 > v1
    assert cp.serde is cp.inner.serde
    # unknown attributes are forwarded to the wrapped saver
    assert cp.storage is cp.inner.storage  # type: ignore[attr-defined]
    with pytest.raises(ScopeError):
        cp.delete_user("")


def test_wrap_any_saver_and_context_manager(tmp_path: Any) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from langgraph_memory.graph.checkpoint import checkpointer, wrap_checkpointer

    wrapped = wrap_checkpointer(InMemorySaver())
    assert type(wrapped) is OwnedCheckpointSaver and not wrapped.async_via_threads
    _graph(wrapped).invoke({"n": 0}, {"configurable": {"thread_id": "w"}}, context=_Ctx("gus"))
    assert wrapped.threads_of("gus") == ["w"]
    with checkpointer("sqlite", path=tmp_path / "cm.sqlite") as cp:
        assert cp.async_via_threads
        _graph(cp).invoke({"n": 0}, {"configurable": {"thread_id": "x"}}, context=_Ctx("hal"))
        assert cp.threads_of("hal") == ["x"]
    # closed on exit: the sqlite connection no longer works
    with pytest.raises(Exception, match="closed"):
        cp.get_tuple({"configurable": {"thread_id": "x", "checkpoint_ns": ""}})


_STRICT_SCRIPT = r"""
import sys
from langgraph.graph import START, END, StateGraph
from langgraph.runtime import Runtime
from langgraph_memory import create_checkpointer
from langgraph_memory.context import Constraint
from langgraph_memory import AgentState, MemoryContext

def node(state: AgentState, runtime: Runtime[MemoryContext]) -> dict:
    return {"plan": ["x"]}

cp = create_checkpointer("sqlite", path=sys.argv[1])
g = StateGraph(AgentState, context_schema=MemoryContext)
g.add_node("n", node)
g.add_edge(START, "n")
g.add_edge("n", END)
graph = g.compile(checkpointer=cp)
cfg = {"configurable": {"thread_id": "s"}}
rule = Constraint(id="c", text="be kind")
graph.invoke({"constraints": [rule]}, cfg, context=MemoryContext(user_id="ivy"))
graph.invoke({"plan": []}, cfg, context=MemoryContext(user_id="ivy"))
owned = {"configurable": {"thread_id": "s", "user_id": "ivy"}}
value = graph.get_state(owned).values["constraints"][0]
assert isinstance(value, Constraint) and value == rule, value
print("STRICT-OK")
"""


def test_strict_msgpack_allowlist_reaches_the_wrapped_saver(tmp_path: Any) -> None:
    """Under LANGGRAPH_STRICT_MSGPACK the graph passes its schema allowlist through
    ``with_allowlist``; typed constraints in state must still round-trip."""
    import subprocess
    import sys

    env = {**os.environ, "LANGGRAPH_STRICT_MSGPACK": "true"}
    proc = subprocess.run(
        [sys.executable, "-c", _STRICT_SCRIPT, str(tmp_path / "strict.sqlite")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "STRICT-OK" in proc.stdout, proc.stderr[-2000:]
    assert "Deserializing unregistered type" not in proc.stderr
