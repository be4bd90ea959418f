"""Security fuzz: random readers against every read surface, zero cross-tenant leaks.

Seeded hypothesis suites (``derandomize=True``, no example database) attack:

* the checkpointer (``cp.list`` with/without thread and user ids, ``get_state``,
  ``get_state_history``) of a compiled ``create_memory_agent`` holding threads of several users;
* the BaseStore adapter ``LangGraphMemoryStore`` (random puts under several users' namespaces,
  UUID keys shared across users included, then ``search``/``get``/``list_namespaces``);
* the ``load_memory`` node with JSON-dict run contexts (user, project, acl);
* ``MemoryMiddleware`` inside ``langchain.agents.create_agent`` (the system prompt).

Every example runs one or more *cases* (one read and its checks). A case leaks when a reader
gets something another user (or a project/acl it may not see) owns; it wrongly hides when a
reader does not get what it owns and may see. Both are collected and asserted on, with the
case count, at the end of each test. The default run is CI-sized (``DEFAULT_EXAMPLES``); the
``slow`` variants run ``SLOW_EXAMPLES`` (>= 10,000 examples, so >= 10,000 cases, across the
surfaces; ``LGM_FUZZ_SLOW_SCALE`` scales them down to check the variant runs).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langgraph.store.base import Item
from qdrant_client import QdrantClient

from langgraph_memory import (
    LangGraphMemoryStore,
    LoadMemory,
    MemoryContext,
    MemoryMiddleware,
    MemoryRecord,
    MemoryStore,
    Scope,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.errors import ScopeError
from langgraph_memory.graph.checkpoint import OwnedCheckpointSaver
from tests.fakes import ScriptedChatModel, fake_runtime, fake_state

DEFAULT_EXAMPLES = {"checkpoint": 30, "store": 50, "load_memory": 40, "middleware": 15}
"""Examples per surface in the default (CI) run."""

SLOW_EXAMPLES = {"checkpoint": 2000, "store": 3500, "load_memory": 3000, "middleware": 1500}
"""Examples per surface in the ``slow`` run: 10,000 in all (each example is >= 1 case)."""

_SLOW_SCALE = float(os.environ.get("LGM_FUZZ_SLOW_SCALE", "1"))

USERS = ["u-alice", "u-bob", "u-carol", "u-dave"]
STRANGERS = ["u-mallory", "u-alice-2", "U-ALICE"]
PROJECTS = [None, "apollo", "zeus"]
ACLS: list[list[str]] = [[], [], ["finance"], ["hr"], ["finance", "hr"]]
TOPICS = [
    "prefers green tea",
    "is allergic to peanuts",
    "works on the billing service",
    "喜欢爬山",
    "password hint is the cat's name",
    "meets the dentist on Friday",
]
VOCAB = [*" ".join(TOPICS).split(), "tea", "password", "dentist", "note", "ref"]


def _settings(n: int) -> Any:
    return settings(
        max_examples=max(1, n),
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


def _n(surface: str, slow: bool) -> int:
    if slow:
        return max(1, int(SLOW_EXAMPLES[surface] * _SLOW_SCALE))
    return DEFAULT_EXAMPLES[surface]


@dataclass
class Tally:
    """Cases run, leaks and wrongly hidden records found (as readable strings)."""

    surface: str
    cases: int = 0
    leaks: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    own_checks: int = 0  # cases that checked the reader does get something it owns

    def check(self, examples: int) -> None:
        print(f"{self.surface}: {self.cases} cases, {self.own_checks} own-record checks")
        assert self.own_checks > 0, f"{self.surface}: no case checked an owner's own read"
        assert self.cases >= examples, (
            f"{self.surface}: only {self.cases} cases ran for {examples} examples"
        )
        assert not self.leaks, (
            f"{self.surface}: {len(self.leaks)} cross-tenant leaks in {self.cases} cases: "
            f"{self.leaks[:5]}"
        )
        assert not self.hidden, (
            f"{self.surface}: {len(self.hidden)} own records wrongly hidden in {self.cases} "
            f"cases: {self.hidden[:5]}"
        )


def _mstore(embedder: Any) -> MemoryStore:
    return MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)


# ============================================================================ checkpointer
def _cfg(thread: str | None, user: str | None, *, via_metadata: bool = False) -> Any:
    conf: dict[str, Any] = {}
    if thread is not None:
        conf["thread_id"] = thread
    out: dict[str, Any] = {"configurable": conf}
    if user is not None:
        if via_metadata:
            out["metadata"] = {"user_id": user}
        else:
            conf["user_id"] = user
    return out


def _secret(user: str, thread: str) -> str:
    return f"secret {uuid.uuid5(uuid.NAMESPACE_URL, user + '/' + thread).hex[:12]} of {user}"


@dataclass
class CheckpointWorld:
    agent: Any
    cp: OwnedCheckpointSaver
    owner: dict[str, str]  # thread -> user

    def threads_of(self, user: str) -> set[str]:
        return {t for t, u in self.owner.items() if u == user}


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def cp_world(request, tmp_path_factory, embedder) -> Iterator[CheckpointWorld]:  # type: ignore[no-untyped-def]
    """Two threads per user written through a compiled ``create_memory_agent``."""
    mstore = _mstore(embedder)
    # redact=False: this fuzz is about who may read a thread; the planted secrets look like
    # API keys and would otherwise be redacted at rest (tests/test_security_at_rest.py)
    if request.param == "sqlite":
        cp = create_checkpointer(
            "sqlite", path=tmp_path_factory.mktemp("cp") / "cp.sqlite", redact=False
        )
    else:
        cp = create_checkpointer("memory", redact=False)
    model = ScriptedChatModel(responder=lambda msgs, tools: "noted")
    agent = create_memory_agent(model, store=mstore, checkpointer=cp)
    owner: dict[str, str] = {}
    for user in USERS[:3]:
        for n in range(2):
            thread = f"t-{user}-{n}"
            owner[thread] = user
            agent.invoke(
                {"messages": [("user", _secret(user, thread))]},
                _cfg(thread, None),
                context=MemoryContext(user_id=user),
            )
    yield CheckpointWorld(agent, cp, owner)
    cp.close()
    mstore.close()


def _tuple_texts(tuples: Any) -> str:
    return " ".join(
        str(getattr(m, "content", m))
        for t in tuples
        for m in t.checkpoint.get("channel_values", {}).get("messages", [])
    )


def _snapshot_texts(snapshots: Any) -> str:
    return " ".join(str(m.content) for s in snapshots for m in s.values.get("messages", []))


CP_OPS = ["get_state", "history", "list_thread", "list_user", "list_nobody"]


def _cp_case(world: CheckpointWorld, tally: Tally, op: str, reader: str | None, thread: str,
             via_metadata: bool, limit: int | None) -> None:  # fmt: skip
    tally.cases += 1
    owner = world.owner.get(thread)
    foreign = [_secret(u, t) for t, u in world.owner.items() if u != reader]
    where = f"{op} reader={reader!r} thread={thread!r} meta={via_metadata} limit={limit}"
    cfg = _cfg(thread, reader, via_metadata=via_metadata)
    mine = world.threads_of(reader) if reader else set()
    try:
        if op == "get_state":
            text = _snapshot_texts([world.agent.get_state(cfg)])
        elif op == "history":
            text = _snapshot_texts(list(world.agent.get_state_history(cfg, limit=limit)))
        elif op == "list_thread":
            got = list(world.cp.list(cfg, limit=limit))
            if any(t.config["configurable"]["thread_id"] != thread for t in got):
                tally.leaks.append(f"{where}: listed another thread")
            text = _tuple_texts(got)
        else:  # list_user / list_nobody: a cross-thread listing
            who = reader if op == "list_user" else None
            got = list(world.cp.list(_cfg(None, who, via_metadata=via_metadata), limit=limit))
            threads = {t.config["configurable"]["thread_id"] for t in got}
            allowed = mine if who else set()
            if threads - allowed:
                tally.leaks.append(f"{where}: listed {sorted(threads - allowed)}")
            tally.own_checks += bool(allowed)
            if limit is None and threads != allowed:
                tally.hidden.append(f"{where}: own threads {sorted(allowed - threads)} missing")
            if limit is not None and len(got) > limit:
                tally.leaks.append(f"{where}: {len(got)} items > limit")
            if who is None and got:
                tally.leaks.append(f"{where}: a listing naming no user returned {len(got)}")
            text = _tuple_texts(got)
            thread = ""
            owner = None
    except ScopeError:
        allowed_read = (op == "list_user" and reader is not None) or (
            op in ("get_state", "history", "list_thread") and owner is not None and owner == reader
        )
        if allowed_read:
            tally.hidden.append(f"{where}: refused an allowed read")
        return
    if any(s in text for s in foreign):
        tally.leaks.append(f"{where}: another user's secret in {text[:80]!r}")
    if owner is not None and owner != reader and text.strip():
        tally.leaks.append(f"{where}: read another user's thread: {text[:80]!r}")
    if owner is not None and owner == reader:
        tally.own_checks += 1
    if owner is not None and owner == reader and _secret(owner, thread) not in text:
        tally.hidden.append(f"{where}: own secret missing")


def _run_checkpoint(world: CheckpointWorld, n: int) -> None:
    tally = Tally("checkpoint")
    threads = [*world.owner, "t-unknown", "t-u-alice-9"]
    readers = st.one_of(st.sampled_from([*USERS, *STRANGERS]), st.none())
    case = st.tuples(
        st.sampled_from(CP_OPS),
        readers,
        st.sampled_from(threads),
        st.booleans(),
        st.one_of(st.none(), st.integers(1, 3)),
    )

    own_case = st.sampled_from(sorted(world.owner.items())).flatmap(
        lambda tu: st.tuples(
            st.sampled_from(CP_OPS[:4]),
            st.just(tu[1]),
            st.just(tu[0]),
            st.booleans(),
            st.one_of(st.none(), st.integers(1, 3)),
        )
    )

    @_settings(n)
    @given(st.lists(st.one_of(case, own_case), min_size=1, max_size=3))
    def fuzz(cases: list[tuple[Any, ...]]) -> None:
        for op, reader, thread, meta, limit in cases:
            _cp_case(world, tally, op, reader, thread, meta, limit)

    fuzz()
    tally.check(n)


def test_fuzz_checkpointer(cp_world: CheckpointWorld) -> None:
    _run_checkpoint(cp_world, _n("checkpoint", False))


@pytest.mark.slow
def test_fuzz_checkpointer_slow(cp_world: CheckpointWorld) -> None:
    _run_checkpoint(cp_world, _n("checkpoint", True))


# ============================================================================ BaseStore
SHARED_KEYS = [str(uuid.uuid5(uuid.NAMESPACE_DNS, f"shared-{i}")) for i in range(4)]
"""UUID keys that every user tries to put (each namespace's item is its own record)."""


@dataclass
class StoreWorld:
    lg: LangGraphMemoryStore
    # (namespace, key) -> text, as the owner last wrote it
    items: dict[tuple[tuple[str, ...], str], str] = field(default_factory=dict)
    counter: int = 0


@pytest.fixture(scope="module")
def store_world(embedder) -> Iterator[StoreWorld]:  # type: ignore[no-untyped-def]
    mstore = _mstore(embedder)
    template = ("{user_id}", "{project_id}")
    yield StoreWorld(LangGraphMemoryStore(mstore, prefix=("mem",), namespace_template=template))
    mstore.close()


def _ns(user: str, project: str | None) -> tuple[str, ...]:
    return ("mem", user) if project is None else ("mem", user, project)


def _store_put(world: StoreWorld, tally: Tally, user: str, project: str | None, key: str,
               topic: str) -> None:  # fmt: skip
    world.counter += 1
    text = f"{user} {topic} (item {world.counter:05d})"
    ns = _ns(user, project)
    try:
        world.lg.put(ns, key, {"text": text, "tag": user})
    except Exception as exc:  # a refused put is fine, as long as it writes nothing
        if (ns, key) not in world.items:
            after = world.lg.get(ns, key)
            if after is not None:
                tally.leaks.append(f"refused put {ns}/{key} ({exc!r}) still wrote {after.value}")
        return
    world.items[(ns, key)] = text


def _check_item(world: StoreWorld, tally: Tally, where: str, reader_ns: tuple[str, ...],
                item: Item) -> None:  # fmt: skip
    ns = tuple(item.namespace)
    if ns[: len(reader_ns)] != reader_ns:
        tally.leaks.append(f"{where}: got an item of {ns}")
        return
    owned = world.items.get((ns, item.key))
    if owned is None or owned != item.value.get("text"):
        tally.leaks.append(
            f"{where}: item {ns}/{item.key} text {item.value.get('text')!r} is not the owner's"
        )
    if not str(item.value.get("text", "")).startswith(ns[1] + " "):
        tally.leaks.append(f"{where}: text {item.value.get('text')!r} written by another user")


def _store_read(world: StoreWorld, tally: Tally, op: str, reader: str, project: str | None,
                query: str | None, key: str) -> None:  # fmt: skip
    tally.cases += 1
    lg = world.lg
    ns = _ns(reader, project)
    where = f"{op} ns={ns} query={query!r} key={key!r}"
    if op == "search":
        for hit in lg.search(ns, query=query, limit=10):
            _check_item(world, tally, where, ns, hit)
    elif op == "search_all":  # the owner sees every item of the namespace
        hits = lg.search(ns, limit=1000)
        for hit in hits:
            _check_item(world, tally, where, ns, hit)
        own_keys = {k for (n, k) in world.items if n == ns}
        tally.own_checks += bool(own_keys)
        hit_keys = {h.key for h in hits if tuple(h.namespace) == ns}
        if own_keys - hit_keys:
            tally.hidden.append(f"{where}: own keys {sorted(own_keys - hit_keys)[:3]} missing")
    elif op == "get":
        item = lg.get(ns, key)
        want = world.items.get((ns, key))
        tally.own_checks += want is not None
        if item is not None:
            _check_item(world, tally, where, ns, item)
        elif want is not None:
            tally.hidden.append(f"{where}: own item missing")
        if item is not None and want is None:
            tally.leaks.append(f"{where}: got {item.value.get('text')!r} never put here")
    else:  # list_namespaces
        got = set(lg.list_namespaces(prefix=ns[:2], limit=1000))
        want_ns = {n for (n, _k) in world.items if n[:2] == ns[:2]}
        if got - want_ns:
            tally.leaks.append(f"{where}: listed {sorted(got - want_ns)}")
        # list_namespaces(prefix=("mem", user)) lists every namespace of the user (projects
        # included), never another user's
        if ("mem", reader) in want_ns and ("mem", reader) not in got:
            tally.hidden.append(f"{where}: own namespace missing")
        for bad in (("mem",), ()):
            try:
                leaked = lg.list_namespaces(prefix=bad)
            except ScopeError:
                continue
            tally.leaks.append(f"{where}: list_namespaces(prefix={bad}) gave {leaked}")


def _run_store(world: StoreWorld, n: int) -> None:
    tally = Tally("store")
    keys = st.one_of(st.sampled_from(["pref", "note", "a.b", "key with spaces"]),
                     st.sampled_from(SHARED_KEYS))  # fmt: skip
    put = st.tuples(
        st.sampled_from(USERS),
        st.sampled_from(PROJECTS),
        keys,
        st.sampled_from(TOPICS),
    )
    read = st.tuples(
        st.sampled_from(["search", "search_all", "get", "list_namespaces"]),
        st.sampled_from([*USERS, *STRANGERS]),
        st.sampled_from(PROJECTS),
        st.one_of(
            st.none(),
            st.sampled_from(TOPICS),
            st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4).map(" ".join),
        ),
        keys,
    )

    @_settings(n)
    @given(st.lists(put, max_size=3), st.lists(read, min_size=1, max_size=3))
    def fuzz(puts: list[tuple[Any, ...]], reads: list[tuple[Any, ...]]) -> None:
        for user, project, key, topic in puts:
            _store_put(world, tally, user, project, key, topic)
            _store_read(world, tally, "get", user, project, None, key)
            _store_read(world, tally, "search", user, project, topic, key)
        for op, reader, project, query, key in reads:
            _store_read(world, tally, op, reader, project, query, key)

    fuzz()
    tally.check(n)


def test_fuzz_langgraph_store(store_world: StoreWorld) -> None:
    _run_store(store_world, _n("store", False))


@pytest.mark.slow
def test_fuzz_langgraph_store_slow(store_world: StoreWorld) -> None:
    _run_store(store_world, _n("store", True))


# ============================================================================ load_memory
@dataclass
class RecallWorld:
    store: MemoryStore
    records: list[MemoryRecord]


@pytest.fixture(scope="module")
def recall_world(embedder) -> Iterator[RecallWorld]:  # type: ignore[no-untyped-def]
    """Every user holds the same topics (shared wording) in several projects and acls."""
    import random

    rng = random.Random(11)
    mstore = _mstore(embedder)
    records: list[MemoryRecord] = []
    for user in USERS:
        for j, topic in enumerate(TOPICS):
            project = rng.choice(PROJECTS)
            rec = MemoryRecord(
                user_id=user,
                project_id=project,
                acl=rng.choice(ACLS),
                kind="stable_fact",
                text=f"{user} {topic} (ref {user}-{j:02d})",
            )
            mstore.add(rec, scope=Scope(user, project_id=project))
            records.append(rec)
    yield RecallWorld(mstore, records)
    mstore.close()


def _ctx(user: str, project: str | None, acl: list[str] | None, style: int) -> dict[str, Any]:
    """A JSON-dict run context; ``style`` varies which keys are present."""
    ctx: dict[str, Any] = {"user_id": user}
    if project is not None or style % 2:
        ctx["project_id"] = project
    if acl or style % 3 == 0:
        ctx["acl"] = acl
    if style % 4 == 1:
        ctx["unrelated"] = {"user_id": "u-alice"}  # extra keys are ignored
    return ctx


def _scope_of(ctx: dict[str, Any]) -> Scope:
    return Scope(ctx["user_id"], project_id=ctx.get("project_id"), acl=tuple(ctx.get("acl") or ()))


def _recall_checks(world: RecallWorld, tally: Tally, where: str, scope: Scope, query: str,
                   ids: list[str], text: str) -> None:  # fmt: skip
    for rec in world.records:
        if scope.can_read(rec.user_id, rec.project_id, rec.acl):
            continue
        if rec.id in ids or rec.id in text:
            tally.leaks.append(f"{where}: record {rec.id} of {rec.user_id} shown")
        elif rec.text in text:
            tally.leaks.append(f"{where}: text {rec.text!r} shown")
    for rec in world.records:
        if rec.text == query and scope.can_read(rec.user_id, rec.project_id, rec.acl):
            tally.own_checks += 1
            if rec.id not in ids:
                tally.hidden.append(f"{where}: own exact-text record {rec.id} not recalled")


def _query_strategy(world: RecallWorld) -> Any:
    return st.one_of(
        st.sampled_from([r.text for r in world.records]),
        st.sampled_from(TOPICS),
        st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4).map(" ".join),
    )


def _ctx_strategy() -> Any:
    return st.builds(
        _ctx,
        st.sampled_from(USERS + STRANGERS[:1]),
        st.sampled_from(PROJECTS),
        st.one_of(st.none(), st.sampled_from(ACLS)),
        st.integers(0, 11),
    )


def _case_strategy(world: RecallWorld) -> Any:
    """(context, query): random, or an owner's context (its record's project and acl) asking
    for its own record's exact text or for another record's (same wording, other tenant)."""
    owner_case = st.tuples(
        st.sampled_from(world.records), st.integers(0, 11), st.sampled_from(world.records)
    ).map(
        lambda t: (
            _ctx(t[0].user_id, t[0].project_id, list(t[0].acl), t[1]),
            t[0].text if t[1] % 3 else t[2].text,
        )
    )
    return st.one_of(st.tuples(_ctx_strategy(), _query_strategy(world)), owner_case)


def _run_load_memory(world: RecallWorld, n: int) -> None:
    tally = Tally("load_memory")
    node = LoadMemory(world.store, touch_used=False)

    @_settings(n)
    @given(st.lists(_case_strategy(world), min_size=1, max_size=2))
    def fuzz(cases: list[tuple[dict[str, Any], str]]) -> None:
        for ctx, query in cases:
            tally.cases += 1
            out = node(fake_state(query), fake_runtime(context=ctx))
            ids = [r["id"] for r in out["recalled"]] + [p["id"] for p in out["procedural"]]
            text = out["memory_block"] + " ".join(str(r.get("text")) for r in out["recalled"])
            where = f"ctx={ctx} query={query!r}"
            _recall_checks(world, tally, where, _scope_of(ctx), query, ids, text)

    fuzz()
    tally.check(n)


def test_fuzz_load_memory(recall_world: RecallWorld) -> None:
    _run_load_memory(recall_world, _n("load_memory", False))


@pytest.mark.slow
def test_fuzz_load_memory_slow(recall_world: RecallWorld) -> None:
    _run_load_memory(recall_world, _n("load_memory", True))


# ============================================================================ middleware
def _run_middleware(world: RecallWorld, n: int) -> None:
    tally = Tally("middleware")
    model = ScriptedChatModel(responder=lambda msgs, tools: "noted")
    agent = create_agent(
        model,
        [],
        middleware=[MemoryMiddleware(world.store)],
        context_schema=MemoryContext,
        system_prompt="You are terse.",
    )
    make: Callable[..., MemoryContext] = MemoryContext

    @_settings(n)
    @given(_case_strategy(world))
    def fuzz(case: tuple[dict[str, Any], str]) -> None:
        ctx, query = case
        tally.cases += 1
        fields = {k: v for k, v in ctx.items() if k in ("user_id", "project_id", "acl")}
        fields["acl"] = tuple(fields.get("acl") or ())
        # save=False: the fuzz queries (other users' texts) must not become the reader's memory
        agent.invoke(
            {"messages": [("user", query)]},  # type: ignore[call-overload]
            context=make(**fields, save=False),
        )
        system = str(model.last_prompt[0].content)
        ids = [r.id for r in world.records if f"[{r.id}]" in system]
        _recall_checks(world, tally, f"ctx={ctx} query={query!r}", _scope_of(ctx), query, ids,
                       system)  # fmt: skip

    fuzz()
    tally.check(n)


def test_fuzz_middleware(recall_world: RecallWorld) -> None:
    _run_middleware(recall_world, _n("middleware", False))


@pytest.mark.slow
def test_fuzz_middleware_slow(recall_world: RecallWorld) -> None:
    _run_middleware(recall_world, _n("middleware", True))


def test_slow_budget_is_at_least_ten_thousand_cases() -> None:
    assert sum(SLOW_EXAMPLES.values()) >= 10_000
