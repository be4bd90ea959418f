"""Reads that order raw payloads and parse only what they return (issue 16): the same
records, in the same order, as parsing everything first."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from langgraph_memory import MemoryRecord, MemoryStore, Scope
from langgraph_memory.core import Evidence, Layer
from langgraph_memory.read.conversation import (
    ThreadEpisodes,
    expand_neighbours,
    thread_episodes,
    thread_index,
)
from langgraph_memory.store import Explanation, SearchHit
from langgraph_memory.store._common import payload_created_at

T0 = (datetime.now(UTC) - timedelta(days=7)).replace(microsecond=0)
"""Recent (episodes expire after the lifecycle TTL), on a whole second."""


def _times() -> list[datetime]:
    """Times that sort differently as text than as instants (a whole second is written
    without a fraction: ``...:01Z`` sorts after ``...:01.5Z`` as text), with ties."""
    base = [
        T0,
        T0,  # a tie
        T0 + timedelta(seconds=1),
        T0 + timedelta(seconds=1, microseconds=500_000),
        T0 + timedelta(seconds=1, microseconds=1),
        T0 + timedelta(days=-3),
        T0 + timedelta(seconds=1),  # another tie
        T0 + timedelta(hours=5),
    ]
    random.Random(3).shuffle(base)
    return base


def _by_parsing_everything(store: MemoryStore, scope: Scope, **kw: object) -> list[MemoryRecord]:
    """What ``list`` returned before it sorted raw payloads: every record parsed, then a
    stable sort on ``created_at``, newest first."""
    payloads = store.list_payloads(scope=scope, **kw)  # type: ignore[arg-type]
    records = [MemoryRecord.from_payload(p) for p in payloads]
    by_scroll = sorted(records, key=lambda r: r.id)  # any order: the sort below decides
    by_scroll.sort(key=lambda r: r.created_at, reverse=True)
    return by_scroll


def test_list_limit_is_the_head_of_the_full_listing_newest_first_ties_included(
    store: MemoryStore, alice: Scope
) -> None:
    records = [
        MemoryRecord(user_id="alice", text=f"fact number {i}", created_at=at)
        for i, at in enumerate(_times())
    ]
    store.add_many(records, scope=alice)
    every = store.list(scope=alice)
    assert len(every) == len(records)
    stamps = [r.created_at for r in every]
    assert stamps == sorted(stamps, reverse=True)  # newest first, as instants
    assert [p["id"] for p in store.list_payloads(scope=alice)] == [r.id for r in every]
    for limit in range(len(records) + 2):
        assert store.list(scope=alice, limit=limit) == every[:limit]
    # ties: the same multiset of ids per timestamp as parsing everything
    expected = _by_parsing_everything(store, alice)
    assert [r.created_at for r in expected] == stamps
    assert sorted(r.id for r in expected) == sorted(r.id for r in every)


def test_payload_created_at_is_the_records_instant() -> None:
    for at in _times():
        record = MemoryRecord(user_id="alice", text="x", created_at=at)
        assert payload_created_at(record.to_payload()) == record.created_at
    with pytest.raises(ValueError):  # a bad payload fails as it does as a record
        payload_created_at({"created_at": "not a time", "text": "x"})


def _episode(i: int, at: datetime, seq: int | None, predicate: str = "said") -> MemoryRecord:
    return MemoryRecord(
        user_id="alice",
        layer=Layer.EPISODIC,
        kind="event",
        subject="thread:t1",
        predicate=predicate,
        text=f"turn {i}",
        created_at=at,
        evidence=Evidence(turn_ids=[f"m{i}"], message_ids=[f"m{i}"], thread_id="t1"),
        metadata={} if seq is None else {"seq": seq},
    )


def _hit(record: MemoryRecord, score: float) -> SearchHit:
    exp = Explanation(
        dense_rank=1,
        dense_score=None,
        keyword_rank=None,
        keyword_score=None,
        fusion="union",
        fused=score,
        recency=1.0,
        confidence=1.0,
        importance=1.0,
        final=score,
    )
    return SearchHit(record=record, score=score, explanation=exp)


def test_thread_index_holds_the_episodes_thread_episodes_returns_parsed_lazily(
    store: MemoryStore, alice: Scope
) -> None:
    times = _times()
    episodes = [
        _episode(
            i, at, seq=(i * 7) % 5 if i % 3 else None, predicate="replied" if i % 2 else "said"
        )
        for i, at in enumerate(times)
    ]
    other = _episode(99, T0, 1, predicate="noted")  # same thread subject, not a conversation turn
    store.add_many([*episodes, other], scope=alice)
    lazy = thread_index(store, alice, "thread:t1")
    assert isinstance(lazy, ThreadEpisodes) and len(lazy) == len(episodes)
    listed = thread_episodes(store, alice, "thread:t1")
    assert list(lazy) == listed
    assert lazy.ids == tuple(r.id for r in listed)
    # the order said: created_at, then seq (0 when absent)
    keys = [(r.created_at, r.metadata.get("seq", 0)) for r in listed]
    assert keys == sorted(keys)
    assert lazy[-1] == listed[-1] and lazy[1:3] == listed[1:3]
    assert lazy[2] is lazy[2]  # parsed once
    with pytest.raises(IndexError):
        lazy[len(episodes)]
    # recall's neighbours are the same from the lazy thread as from the parsed one
    hits = [_hit(listed[3], 0.9), _hit(listed[0], 0.5), _hit(listed[-1], 0.4)]
    for slots in range(1, 8):
        eager = expand_neighbours(hits, {"thread:t1": listed}, slots)
        fresh = thread_index(store, alice, "thread:t1")
        assert expand_neighbours(hits, {"thread:t1": fresh}, slots) == eager


def test_from_payload_skips_only_the_metadata_walk_of_a_stored_payload() -> None:
    record = MemoryRecord(user_id="alice", text="x", metadata={"seq": 3, "n": [1, 2.5, "a"]})
    assert MemoryRecord.from_payload(record.to_payload()) == record
    with pytest.raises(ValueError):  # a new record's metadata is still walked
        MemoryRecord(user_id="alice", text="x", metadata={"bad": float("nan")})
    with pytest.raises(ValueError):  # metadata must still be a dict
        MemoryRecord.from_payload({**record.to_payload(), "metadata": [1]})
    with pytest.raises(ValueError):  # every other field is still validated
        MemoryRecord.from_payload({**record.to_payload(), "importance": 99})
