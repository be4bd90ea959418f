"""Neighbouring turns read around each hit instead of listing the thread (issue 16): the
same neighbours in the same order as the listing (ties at one instant, equal ``seq``, no
``seq``, turns that are no longer current, imports dated by session), reads that do not
grow with the thread, the listing as the fallback (a hit without the ordering field, an
engine that cannot order), erasure, and the whole prebuilt graph replayed with the old
listing and with the lookup (the same memory block every turn). Both backends, the real
default embedder, a scripted chat model; no timing assertions (``bench turn`` measures)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from langgraph_memory import (
    MemoryContext,
    MemoryRecord,
    MemoryStore,
    Scope,
    WritePipeline,
    create_checkpointer,
    create_memory_agent,
    forget_user,
)
from langgraph_memory.graph.nodes import load_memory
from langgraph_memory.read import conversation
from langgraph_memory.read.conversation import (
    NeighbourReads,
    ThreadNeighbours,
    _adjacent,
    expand_neighbours,
    thread_index,
    thread_neighbours,
)
from langgraph_memory.store.filters import Range
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write.conversation import EpisodeTurn, build_episode
from tests.conftest import make_store

ALICE = Scope(user_id="alice")
DAY = datetime(2024, 3, 1, 9, 15, 7, 250000, tzinfo=UTC)
"""Off the minute: a turn said on a whole minute is found by listing (said_on_the_minute)."""


def _episode(
    thread: str,
    turn: str,
    text: str,
    at: datetime,
    seq: int | None,
    *,
    role: str = "user",
    metadata: dict[str, Any] | None = None,
) -> MemoryRecord:
    record = build_episode(
        ALICE,
        EpisodeTurn(text=text, turn_id=turn, role=role, thread_id=thread, said_at=at, seq=seq),  # type: ignore[arg-type]
    )
    if metadata is not None:
        record = record.model_copy(update={"metadata": metadata})
    return record


def _tricky_thread() -> list[MemoryRecord]:
    """One thread with every ordering case: distinct instants, several turns at one instant
    (ordered by ``seq``), equal ``seq`` at one instant (id order), turns without ``seq``
    (ordered as 0), a reply said later, and runs of ties at both ends."""
    out: list[MemoryRecord] = []
    for i in range(4):  # the thread opens with four turns said at one instant
        out.append(_episode("t", f"open{i}", f"opening remark number {i}", DAY, 10 - i))
    for i in range(6):  # distinct instants
        at = DAY + timedelta(hours=1 + i)
        out.append(_episode("t", f"d{i}", f"distinct turn {i} about hiking", at, i))
    noon = DAY + timedelta(hours=12)
    for i in range(5):  # one instant, equal seq: the id order decides
        out.append(_episode("t", f"same{i}", f"same seq turn {i} about Lisbon", noon, 7))
    for i in range(3):  # one instant, no seq at all (ordered as seq 0)
        meta = {"role": "user", "said_at": noon.isoformat()}
        out.append(_episode("t", f"noseq{i}", f"no seq turn {i} about tea", noon, 0, metadata=meta))
    out.append(_episode("t", "reply", "a reply said later", noon + timedelta(minutes=3), 99))
    late = DAY + timedelta(days=2)
    for i in range(4):  # the thread closes with ties too
        out.append(_episode("t", f"close{i}", f"closing remark {i}", late, i))
    return out


def _same_as_listing(store: MemoryStore, subject: str, *, most: int = 3) -> ThreadNeighbours:
    """Ask ``thread_neighbours`` for every episode of ``subject`` with 1..``most``
    neighbours a side and require what the thread's listing gives; returns the lookup."""
    listed = thread_index(store, ALICE, subject)
    assert len(listed) > 0
    lookup = thread_neighbours(store, ALICE, subject)
    for record in list(listed):
        for n in range(1, most + 1):
            want = _adjacent(listed, record, n)
            got = lookup.around(record, n)
            assert got == want, (record.text, n)
    return lookup


def test_the_neighbours_are_the_listings_ties_and_missing_seq_included(store: MemoryStore) -> None:
    records = _tricky_thread()
    other = [
        _episode("u", f"o{i}", f"other thread {i}", DAY + timedelta(hours=i), i) for i in range(3)
    ]
    store.add_many([*records, *other], scope=ALICE)
    store.add("a semantic fact said at noon too", scope=ALICE)
    # a turn that is no longer current is in neither
    store.invalidate(records[7].id, scope=ALICE, reason="test")
    lookup = _same_as_listing(store, "thread:t")
    assert lookup.listings == 0  # never fell back
    gone = lookup.around(records[7])
    assert gone is None and _adjacent(thread_index(store, ALICE, "thread:t"), records[7], 1) is None
    _same_as_listing(store, "thread:u")


@pytest.mark.parametrize("dated", ["by the second", "by the day"])
def test_an_import_dated_by_session_keeps_its_order(store: MemoryStore, dated: str) -> None:
    """import_conversation dates every turn of a session alike and orders them by ``seq``:
    the lookup reads each session's instant whole and keeps that order; dated by the day
    (a whole minute), the thread is listed, as before."""
    turns: list[dict[str, Any]] = []
    for session in range(3):
        when = DAY + timedelta(days=7 * session)
        for i in range(5):
            turns.append(
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"session {session} line {i}: about plan {session * 5 + i}",
                    "timestamp": when.isoformat() if dated == "by the second" else str(when.date()),
                }
            )
    WritePipeline(store).import_conversation(
        turns, scope=ALICE, thread_id="imp", extract_facts=False, batch_size=4
    )
    lookup = _same_as_listing(store, "thread:imp")
    assert lookup.listings == (0 if dated == "by the second" else 1)


def test_a_thread_said_on_whole_minutes_is_listed_once(store: MemoryStore) -> None:
    minute = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    records = [_episode("m", f"m{i}", f"minute turn {i}", minute, i) for i in range(8)]
    store.add_many(records, scope=ALICE)
    lookup = _same_as_listing(store, "thread:m")
    assert lookup.listings == 1 and lookup.reads == 1
    found = store.search("minute turn", ALICE, k=1).hits[0]
    assert found.record.subject == "thread:m"
    assert NeighbourReads(store, ALICE, [found])._wanted == []  # no first reads for it


def _counting_payloads(store: MemoryStore) -> tuple[list[int], Callable[[], None]]:
    """Count the payloads the engine returns to ``store`` (every scroll, ordered or not)
    from now on; returns the count cell and an undo."""
    seen = [0]
    backend = store.backend
    scroll_page, scroll_ordered = backend.scroll_page, backend.scroll_ordered

    def page(*args: Any, **kwargs: Any) -> Any:
        out = scroll_page(*args, **kwargs)
        seen[0] += len(out[0])
        return out

    def ordered(*args: Any, **kwargs: Any) -> Any:
        out = scroll_ordered(*args, **kwargs)
        seen[0] += sum(len(page) for page in out or [])
        return out

    backend.scroll_page = page  # type: ignore[method-assign]
    backend.scroll_ordered = ordered  # type: ignore[method-assign]

    def undo() -> None:
        backend.scroll_page = scroll_page  # type: ignore[method-assign]
        backend.scroll_ordered = scroll_ordered  # type: ignore[method-assign]

    return seen, undo


def _long_thread(turns: int) -> list[MemoryRecord]:
    return [
        _episode(
            "long",
            f"l{i}",
            f"long thread turn {i} on topic {i % 17}",
            DAY + timedelta(minutes=i),
            i,
        )
        for i in range(turns)
    ]


def test_the_lookup_reads_a_window_not_the_thread(store: MemoryStore) -> None:
    records = _long_thread(150)
    store.add_many(records, scope=ALICE)
    listed = thread_index(store, ALICE, "thread:long")
    seen, undo = _counting_payloads(store)
    try:
        for at in (0, 1, 75, 148, 149):
            before = seen[0]
            lookup = thread_neighbours(store, ALICE, "thread:long")
            assert lookup.around(records[at], 1) == _adjacent(listed, records[at], 1)
            read = seen[0] - before
            # the hit, and on each side the nearest record plus the one that says the
            # nearest instant holds no other record: 5 at most, of 150
            assert read == lookup.payloads <= 5, (at, read)
            assert lookup.reads <= 2 and lookup.listings == 0
    finally:
        undo()


def test_ties_cost_the_instants_they_share_not_the_thread(store: MemoryStore) -> None:
    """Ten sessions of 15 turns, each session said at one instant (an import dated by
    session): a hit reads its own session whole and a few records of the next ones."""
    records = [
        _episode("s", f"s{s}-{i}", f"session {s} turn {i}", DAY + timedelta(days=s), i)
        for s in range(10)
        for i in range(15)
    ]
    store.add_many(records, scope=ALICE)
    listed = thread_index(store, ALICE, "thread:s")
    for at in (0, 7, 14, 15, 80, 149):
        lookup = thread_neighbours(store, ALICE, "thread:s")
        assert lookup.around(records[at], 1) == _adjacent(listed, records[at], 1)
        assert lookup.payloads <= 2 * 15 + 5 < len(listed), (at, lookup.payloads)
    # one recall, several hits in one session: the session is read once
    lookup = thread_neighbours(store, ALICE, "thread:s")
    for at in (31, 33, 36, 38):
        assert lookup.around(records[at], 1) == _adjacent(listed, records[at], 1)
    assert lookup.payloads <= 15 + 3, lookup.payloads


def test_a_hit_without_the_ordering_field_falls_back_to_the_listing(store: MemoryStore) -> None:
    records = _long_thread(12)
    store.add_many(records, scope=ALICE)
    hit = records[5]
    payload = store.backend.retrieve([hit.id])[0]
    del payload[conversation.ORDER_FIELD]  # as a payload written without it would be
    vector = store.backend.retrieve_vectors([hit.id])[hit.id]
    store.backend.upsert([(hit.id, vector, payload)])
    lookup = thread_neighbours(store, ALICE, "thread:long")
    want = _adjacent(thread_index(store, ALICE, "thread:long"), hit, 2)
    assert want is not None and lookup.around(hit, 2) == want
    assert lookup.listings == 1
    assert lookup.around(records[9], 1) == _adjacent(
        thread_index(store, ALICE, "thread:long"), records[9], 1
    )
    assert lookup.listings == 1  # one listing serves the thread from then on


def test_an_engine_that_cannot_order_falls_back_to_the_listing(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = _long_thread(12)
    store.add_many(records, scope=ALICE)
    monkeypatch.setattr(store.backend, "scroll_ordered", lambda *a, **k: None)
    lookup = thread_neighbours(store, ALICE, "thread:long")
    assert lookup.around(records[4], 1) == _adjacent(
        thread_index(store, ALICE, "thread:long"), records[4], 1
    )
    assert lookup.listings == 1


def test_ordered_payloads_is_list_payloads_ordered_and_cut(store: MemoryStore) -> None:
    records = _long_thread(20)
    store.add_many(records, scope=ALICE)
    everything = store.list_payloads(scope=ALICE, filters={"subject": "thread:long"})
    middle = records[10].created_at.timestamp()
    got = store.ordered_payloads(
        scope=ALICE,
        key="_created",
        reads=[(None, 5, False), (None, 5, True), (Range("_created", lt=middle), 3, True)],
        filters={"subject": "thread:long"},
    )
    assert got is not None and len(got) == 3
    by_time = sorted(everything, key=lambda p: p["_created"])
    want = [by_time[:5], by_time[::-1][:5], by_time[:10][::-1][:3]]
    assert [[p["id"] for p in page] for page in got] == [[p["id"] for p in w] for w in want]
    assert store.ordered_payloads(scope=Scope("bob"), key="_created", reads=[(None, 5, False)]) == [
        []
    ]


def test_one_recall_reads_every_hits_first_neighbours_in_one_engine_call(
    store: MemoryStore,
) -> None:
    records = _long_thread(60) + [
        _episode("other", f"o{i}", f"other {i}", DAY + timedelta(hours=i), i) for i in range(30)
    ]
    store.add_many(records, scope=ALICE)
    hits = [records[i] for i in (5, 30, 59, 70, 80)]
    found = store.search("turn", ALICE, k=1).hits[0]
    ranked = [
        found.model_copy(update={"record": r, "score": 1 - i / 10}) for i, r in enumerate(hits)
    ]
    listed = {s: thread_index(store, ALICE, s) for s in ("thread:long", "thread:other")}
    calls = [0]
    real = store.backend.scroll_ordered

    def counted(reads: Any) -> Any:
        calls[0] += 1
        return real(reads)

    store.backend.scroll_ordered = counted  # type: ignore[method-assign]
    batch = NeighbourReads(store, ALICE, ranked)
    threads = {s: thread_neighbours(store, ALICE, s, batch=batch) for s in listed}
    assert expand_neighbours(ranked, threads, 20) == expand_neighbours(ranked, listed, 20)
    assert calls[0] == 1 and all(t.reads == 0 for t in threads.values())  # one round trip
    assert sum(t.payloads for t in threads.values()) <= 5 * 5


def test_forget_user_leaves_nothing_to_read_around(store: MemoryStore) -> None:
    records = _long_thread(10)
    store.add_many(records, scope=ALICE)
    assert thread_neighbours(store, ALICE, "thread:long").around(records[3]) is not None
    forget_user("alice", store=store)
    assert store.list(scope=ALICE, current_only=False) == []
    assert store.ordered_payloads(
        scope=ALICE, key="_created", reads=[(None, 10, False)], current_only=False
    ) == [[]]
    assert thread_neighbours(store, ALICE, "thread:long").around(records[3]) is None


# ---------------------------------------------------------------- the prebuilt graph, replayed
_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _normal(block: str) -> str:
    """``block`` with record ids numbered by appearance and wall-clock times (the replies,
    said when the run made them) replaced: the two runs are made a little apart."""
    order: dict[str, str] = {}
    text = _TIME.sub("<time>", block)
    return _UUID.sub(lambda m: order.setdefault(m[0], f"R{len(order)}"), text)


_TALK = [
    "We are planning a trip to Lisbon in May with the kids",
    "My daughter Ana is allergic to peanuts",
    "I started running again, about 5k three times a week",
    "The Lisbon hotel is near the Alfama district",
    "My brother lives in Porto and teaches piano",
    "I switched the orders service to Postgres last month",
    "We might take the train from Lisbon to Porto",
    "Ana loves the aquarium, we should book tickets",
    "My knee hurts after long runs on asphalt",
    "The piano recital in Porto is on the 12th",
    "I prefer window seats on trains",
    "Postgres replication lag was bad on Friday",
]
_QUESTIONS = [
    "where are we staying in Lisbon?",
    "what is Ana allergic to?",
    "how far do I run?",
    "who lives in Porto?",
    "what database did I switch to?",
    "when is the recital?",
]


def _replay(
    store: MemoryStore,
    *,
    reference: bool,
    monkeypatch: pytest.MonkeyPatch,
    asynchronous: bool = False,
) -> tuple[list[str], int]:
    """An import dated by session, then a conversation over three threads (turns sent in
    dated batches, so several share an instant, and undated ones) with questions asked in
    new threads after each batch, through the prebuilt graph; ``reference``: each thread is
    listed as before. Returns every turn's memory block and the number of payloads the
    neighbour reads returned."""
    payloads = [0]
    with monkeypatch.context() as patch:

        def listing(st: MemoryStore, scope: Scope, subject: str, **kw: Any) -> Any:
            if reference:  # the thread's listing, as before
                return thread_index(st, scope, subject)
            return thread_neighbours(st, scope, subject, **kw)

        real_expand = load_memory.expand_neighbours

        def checked(hits: Any, threads: Any, slots: int, **kw: Any) -> Any:
            got = real_expand(hits, threads, slots, **kw)
            if not reference:  # every expansion equals the listing's, on the spot
                listed = {s: thread_index(store, ALICE, s) for s in threads}
                assert real_expand(hits, listed, slots, **kw) == got
                payloads[0] += sum(
                    t.payloads
                    for t in dict(threads.items()).values()
                    if isinstance(t, ThreadNeighbours)
                )
            return got

        patch.setattr(load_memory, "thread_neighbours", listing)
        patch.setattr(load_memory, "expand_neighbours", checked)
        WritePipeline(store).import_conversation(
            [
                {
                    "role": "user",
                    "content": f"In {2019 + s} we went to {place} for {what}",
                    "timestamp": f"{2019 + s}-08-0{1 + i}",
                }
                for s, (place, what) in enumerate(
                    (("Kyoto", "the temples"), ("Lisbon", "the food"))
                )
                for i in range(3)
            ],
            scope=ALICE,
            thread_id="imported",
            extract_facts=False,
        )
        agent = create_memory_agent(
            ScriptedChatModel(responder=lambda m, t: f"Noted about {m[-1].content[:24]}."),
            store=store,
            checkpointer=create_checkpointer("memory"),
        )
        ctx = MemoryContext(user_id="alice")
        ask = MemoryContext(user_id="alice", save=False, recall_k=6)
        blocks: list[str] = []

        def invoke(messages: list[HumanMessage], thread: str, context: MemoryContext) -> None:
            payload = {"messages": messages}
            config: Any = {"configurable": {"thread_id": thread}}
            if asynchronous:
                out = asyncio.run(agent.ainvoke(payload, config, context=context))
            else:
                out = agent.invoke(payload, config, context=context)
            blocks.append(_normal(out["memory_block"]))

        for batch in range(4):
            thread = ("a", "b", "c")[batch % 3]
            said = _TALK[3 * batch : 3 * batch + 3]
            dated = batch % 2 == 0  # a dated batch: its turns share one instant
            # a dated batch: its turns share one instant (with seconds: read around hits)
            extra = {"timestamp": f"2024-0{batch + 1}-15T10:20:3{batch}.5+00:00"} if dated else {}
            invoke(
                [
                    HumanMessage(t, id=f"m{batch}-{i}", additional_kwargs=extra)
                    for i, t in enumerate(said)
                ],
                thread,
                ctx,
            )
            for q, question in enumerate(_QUESTIONS[batch : batch + 3]):
                invoke([HumanMessage(question, id=f"q{batch}-{q}")], f"ask{batch}-{q}", ask)
    return blocks, payloads[0]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_prebuilt_graph_shows_the_same_memory_block_every_turn(
    backend: str,
    tmp_path: Path,
    embedder: Any,
    edge_template: Path,
    monkeypatch: pytest.MonkeyPatch,
    asynchronous: bool,
) -> None:
    runs = []
    for name, reference in (("reference", True), ("lookup", False)):
        (tmp_path / name).mkdir()
        st = make_store(backend, tmp_path / name, embedder, template=edge_template)
        try:
            runs.append(
                _replay(st, reference=reference, monkeypatch=monkeypatch, asynchronous=asynchronous)
            )
        finally:
            st.close()
    (want, _), (got, read) = runs
    assert got == want
    assert sum("Relevant past conversation" in b for b in got) >= 6  # not vacuous
    assert any("Kyoto" in b for b in got)  # the import's tied turns were reached
    assert read > 0
