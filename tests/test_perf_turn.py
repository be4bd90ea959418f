"""What one agent turn costs in model calls, and that making it cheaper changed no result
(issue 16): the embedding cache, the batched episode + fact embedding, and bookkeeping
records without a model vector. Real engine, real default embedder, a scripted chat model
(the only fake); no timing assertions (``bench turn`` measures time)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from langgraph_memory import (
    MemoryConfig,
    MemoryContext,
    MemoryRecord,
    MemoryStore,
    Scope,
    WritePipeline,
    create_memory_agent,
)
from langgraph_memory.core import Kind, Layer, Status
from langgraph_memory.embeddings import EmbeddingCache
from langgraph_memory.errors import ConfigError
from langgraph_memory.eval.common import AGENT_TURNS
from langgraph_memory.graph.nodes import LoadMemory
from langgraph_memory.graph.nodes.load_memory import always_injected
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import lexicon

DEV = Path(__file__).parent / "data" / "write" / "dev"
EPOCH0 = datetime(1970, 1, 1, tzinfo=UTC)


class CountingEmbedder:
    """The real embedder, recording every batch of texts that reaches it."""

    parallel_encode = True

    def __init__(self, real) -> None:  # type: ignore[no-untyped-def]
        self.real = real
        self.name = real.name
        self.dims = real.dims
        self.batches: list[list[str]] = []
        self.fail = False

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise RuntimeError("model down")
        self.batches.append(list(texts))
        return np.asarray(self.real.encode(texts))

    def texts(self) -> list[str]:
        return [t for batch in self.batches for t in batch]


def _conversation() -> list[str]:
    turns = list(AGENT_TURNS)
    for name in ("slots_dev.jsonl", "en_dev.jsonl", "zh_dev.jsonl"):
        lines = (DEV / name).read_text(encoding="utf-8").splitlines()[:8]
        turns += [json.loads(line)["text"] for line in lines]
    return turns


def _record_rows(store: MemoryStore, scope: Scope) -> list[tuple[str, ...]]:
    """Every stored record of ``scope`` (history included, internal bookkeeping left out) as
    sorted comparable rows."""
    return sorted(
        (
            r.layer.value,
            r.kind.value,
            r.subject or "",
            r.predicate or "",
            r.object or "",
            r.text,
            r.status.value,
        )
        for r in store.list(scope=scope, current_only=False)
    )


def _written(store: MemoryStore, turns: Sequence[str]) -> tuple[list[list[str]], list[tuple]]:  # type: ignore[type-arg]
    pipeline = WritePipeline(store)
    scope = Scope(user_id="u")
    actions = []
    for i, text in enumerate(turns):
        report = pipeline.process_turn(text, scope=scope, turn_id=f"t{i}", thread_id="th")
        actions.append([d.action for d in report.decisions])
    return actions, _record_rows(store, scope)


def test_the_cache_and_batching_change_no_record_a_conversation_writes(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    turns = _conversation()
    plain = CountingEmbedder(embedder)
    with MemoryStore(
        config=MemoryConfig(path=str(tmp_path / "plain"), embedding_cache=0), embedder=plain
    ) as store:
        assert not isinstance(store.embedder, EmbeddingCache)
        expected = _written(store, turns)
    cached = CountingEmbedder(embedder)
    with MemoryStore(path=tmp_path / "cached", embedder=cached) as store:
        assert isinstance(store.embedder, EmbeddingCache)
        got = _written(store, turns)
    assert got == expected  # texts, kinds, predicates, objects, statuses; and every decision
    kinds = {row[1] for row in expected[1]}
    assert {"preference", "episode"} <= kinds or len(kinds) >= 2  # not vacuous: facts written
    assert sum(1 for row in expected[1] if row[0] == "semantic") >= 5
    # the same results from fewer model calls, and no text embedded twice
    assert len(cached.batches) < len(plain.batches)
    assert len(cached.texts()) == len(set(cached.texts()))
    assert not any(t.startswith("write ledger entry") for t in cached.texts() + plain.texts())


def test_one_agent_turn_embeds_each_text_once_in_two_model_calls(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    counting = CountingEmbedder(embedder)
    with MemoryStore(path=tmp_path / "m", embedder=counting) as store:
        store.add_many(["We use Postgres for the orders service"], scope=Scope(user_id="u"))
        agent = create_memory_agent(
            ScriptedChatModel(responder=lambda m, t: "OK."),
            store=store,
            checkpointer=InMemorySaver(),
        )
        context = MemoryContext(user_id="u")
        config = {"configurable": {"thread_id": "t"}}
        agent.invoke({"messages": [HumanMessage("hello there", id="h0")]}, config, context=context)
        counting.batches.clear()
        text = "I prefer green tea in the morning"
        agent.invoke({"messages": [HumanMessage(text, id="h1")]}, config, context=context)
        facts = store.list(scope=Scope(user_id="u"), filters={"layer": "semantic"})
    assert any("green tea" in (f.object or "") for f in facts)  # the turn did write a fact
    # recall's query, then one call for the episode and the fact together; the classifier's
    # input (the message itself) came from the cache, the ledger entry needed no vector
    assert len(counting.batches) == 2, counting.batches
    assert counting.batches[0] == [text]
    assert len(counting.batches[1]) == 2
    assert all(t.startswith(text) and t != text for t in counting.batches[1])


def _ledger_like(text: str) -> MemoryRecord:
    return MemoryRecord(
        user_id="u",
        text=text,
        layer=Layer.WORKING,
        kind=Kind.EVENT,
        status=Status.ARCHIVED,
        valid_from=EPOCH0,
        valid_to=EPOCH0,
    )


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_record_valid_at_no_instant_gets_no_model_vector_until_it_becomes_valid(
    kind, tmp_path, embedder
) -> None:  # type: ignore[no-untyped-def]
    from qdrant_client import QdrantClient

    counting = CountingEmbedder(embedder)
    store = (
        MemoryStore(path=tmp_path / "m", embedder=counting)
        if kind == "edge"
        else MemoryStore(client=QdrantClient(":memory:"), embedder=counting)
    )
    with store:
        scope = Scope(user_id="u")
        tea = store.add("the user drinks green tea every morning", scope=scope)
        counting.batches.clear()
        text = "bookkeeping entry about green tea mornings"
        rid = store.add(_ledger_like(text), scope=scope)
        assert counting.batches == []  # no model call for it
        assert not np.any(store.backend.retrieve_vectors([rid])[rid])  # the zero placeholder
        for mode in ("dense", "hybrid", "keyword"):
            assert rid not in store.search(text, scope, k=5, mode=mode).ids
        store.update(rid, scope=scope, valid_from=datetime.now(UTC), valid_to=None, status="active")
        vector = store.backend.retrieve_vectors([rid])[rid]
        assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-3)  # now a model vector
        assert store.search(text, scope, k=1, mode="dense").ids == [rid]
        assert tea in store.search("green tea", scope, k=5).ids


def test_embedding_cache_serves_repeats_and_embeds_new_texts_in_one_call(embedder) -> None:  # type: ignore[no-untyped-def]
    counting = CountingEmbedder(embedder)
    cache = EmbeddingCache(counting, size=3)
    assert (cache.name, cache.dims) == (embedder.name, embedder.dims)
    first = cache.encode(["a cat", "a dog"])
    assert counting.batches == [["a cat", "a dog"]]
    assert np.allclose(first, embedder.encode(["a cat", "a dog"]), atol=1e-5)
    again = cache.encode(["a dog", "a bird", "a dog", "a cat"])
    assert counting.batches[1] == ["a bird"]  # only the new text, once
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[3], first[0])
    again[0] += 1.0  # the caller's copy: the cache keeps its rows
    assert np.array_equal(cache.encode(["a dog"])[0], first[1])
    assert cache.prefetch(["a fish", "a dog"]) == 1  # size 3: "a cat" is pushed out (LRU)
    cache.encode(["a cat"])
    assert counting.batches[-1] == ["a cat"]
    counting.fail = True
    with pytest.raises(RuntimeError, match="model down"):
        cache.encode(["never seen"])
    counting.fail = False
    cache.encode(["never seen"])
    assert counting.batches[-1] == ["never seen"]  # the failure cached nothing
    assert cache.encode([]).shape == (0, embedder.dims)
    with pytest.raises(ConfigError):
        EmbeddingCache(counting, size=0)


def test_the_alias_regex_cache_holds_every_alias_of_the_lexicon() -> None:
    # scanned in a cycle, an LRU smaller than the alias set never hits: every turn then
    # recompiled hundreds of patterns (half of a turn's save time, issue 16)
    aliases = {a for table in lexicon.TOPICS.values() for v in table.values() for a in v}
    aliases |= {a for v in lexicon.LANGUAGES.values() for a in v}
    aliases |= {a for v in lexicon.TIMEZONES.values() for a in v}
    aliases |= set(lexicon.SPECIFIC_ALIASES)
    maxsize = lexicon._alias_re.cache_info().maxsize
    assert maxsize is None or maxsize >= len(aliases)
    lexicon._alias_re.cache_clear()
    for _ in range(2):
        lexicon.topic_of("we use Postgres and I drink green tea")
    info = lexicon._alias_re.cache_info()
    assert info.misses <= len(aliases) and info.hits >= info.misses


def test_erasing_empties_the_embedding_cache(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    with MemoryStore(path=tmp_path / "m", embedder=embedder) as store:
        scope = Scope(user_id="u")
        cache = store.embedder
        assert isinstance(cache, EmbeddingCache)
        rid = store.add("my locker code is at the front desk", scope=scope)
        store.search("locker code", scope)
        assert cache.prefetch(["locker code"]) == 0  # remembered
        store.delete(rid, scope=scope)
        assert cache.prefetch(["locker code"]) == 1  # the erasure dropped every cached text
        store.add("a second note", scope=scope)
        store.delete_user("u")
        assert cache.prefetch(["a second note"]) == 1


def test_a_repeated_or_replayed_turn_without_facts_costs_no_model_call(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    counting = CountingEmbedder(embedder)
    with MemoryStore(path=tmp_path / "m", embedder=counting) as store:
        pipeline = WritePipeline(store)
        scope = Scope(user_id="u")
        text = "What did I tell you about my travel plans?"
        first = pipeline.process_turn(text, scope=scope, turn_id="t1", thread_id="th")
        assert first.episode is not None and first.episode.action == "inserted"
        assert isinstance(store.embedder, EmbeddingCache)
        store.embedder.clear()  # nothing served from memory: only calls the turn needs
        counting.batches.clear()
        replay = pipeline.process_turn(text, scope=scope, turn_id="t1", thread_id="th")
        again = pipeline.process_turn(
            text, scope=scope, turn_id="t2", thread_id="th", previous_turn="hello"
        )
        assert replay.episode is not None and replay.episode.action == "duplicate_turn"
        assert again.episode is not None and again.episode.action == "reinforced"
        # the classifier embeds the question once; the episodes, never written, are not embedded
        assert counting.texts() == [text]


# ---------------------------------------------------------------- issue 16: the turn's path
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


_SAID_AT = re.compile(r"said \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")


def _numbered_ids(text: str) -> str:
    """``text`` with each record id replaced by its order of appearance (``R0``, ``R1``…) and
    the wall-clock minute an excerpt was said by a placeholder (the two runs compared are
    made a little apart: a minute may turn between them)."""
    order: dict[str, str] = {}
    text = _SAID_AT.sub("said <minute> UTC", text)
    return _UUID.sub(lambda m: order.setdefault(m[0], f"R{len(order)}"), text)


def _standing_by_two_listings(store: MemoryStore, scope: Scope) -> tuple[list[str], list[str]]:
    """load_memory's procedural records and always-injected constraints as it read them
    before issue 16: one listing each (the reference the single listing must equal)."""
    procedural = store.list(scope=scope, filters={"layer": "procedural"}, limit=50)
    constraints = store.list(
        scope=scope, filters={"kind": "constraint", "layer": ["semantic", "episodic"]}, limit=20
    )
    return [r.id for r in procedural], [r.id for r in constraints if always_injected(r)]


def _scripted_agent_run(path: Path, embedder, reference: bool) -> tuple[list[str], list[tuple]]:  # type: ignore[no-untyped-def, type-arg]
    """A scripted conversation over two threads through the prebuilt graph (seeded procedural
    memory, explicit and guessed constraints, facts); returns each turn's memory block (ids
    replaced by their order of appearance) and every record written. ``reference``: the
    standing records come from the two listings of before issue 16."""
    scope = Scope(user_id="u")
    with MemoryStore(path=path, embedder=embedder) as store:
        store.add_many(
            [
                MemoryRecord(
                    user_id="u",
                    text="Answer in short bullet points",
                    layer=Layer.PROCEDURAL,
                    kind=Kind.INSTRUCTION,
                ),
                MemoryRecord(
                    user_id="u",
                    text="Never book red-eye flights",
                    kind=Kind.CONSTRAINT,
                    metadata={"explicit": True},
                ),
                MemoryRecord(
                    user_id="u",
                    text="Keep answers under 100 words",
                    kind=Kind.CONSTRAINT,
                    metadata={"extractor": "classifier"},
                ),
                "We use Postgres for the orders service",
                "My sister lives in Osaka",
            ],
            scope=scope,
        )
        original = LoadMemory._standing

        def two_listings(self, listed):  # type: ignore[no-untyped-def]
            procedural, constraints = original(self, listed)
            ids = ([r.id for r in procedural], [r.id for r in constraints])
            assert ids == _standing_by_two_listings(store, scope)  # one listing, same records
            if not reference:
                return procedural, constraints
            wanted = set(ids[0]) | set(ids[1])
            by_id = {r.id: r for r in store.get_many(sorted(wanted), scope=scope)}
            return [by_id[i] for i in ids[0]], [by_id[i] for i in ids[1]]

        LoadMemory._standing = two_listings  # type: ignore[method-assign]
        try:
            agent = create_memory_agent(
                ScriptedChatModel(responder=lambda m, t: f"Noted, about {m[-1].content[:24]}."),
                store=store,
                checkpointer=InMemorySaver(),
            )
            blocks = []
            for i, text in enumerate(_conversation()[:16]):
                thread = "a" if i % 3 else "b"
                out = agent.invoke(
                    {"messages": [HumanMessage(text, id=f"m{i}")]},
                    {"configurable": {"thread_id": thread}},
                    context=MemoryContext(user_id="u"),
                )
                blocks.append(_numbered_ids(out["memory_block"]))
            store.flush_uses()
        finally:
            LoadMemory._standing = original  # type: ignore[method-assign]
        rows = _record_rows(store, scope)
    return blocks, rows


def test_the_turn_path_changes_no_memory_block_and_no_record(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    expected = _scripted_agent_run(tmp_path / "reference", embedder, reference=True)
    got = _scripted_agent_run(tmp_path / "fast", embedder, reference=False)
    assert got == expected
    blocks, rows = got
    assert all("Answer in short bullet points" in b for b in blocks)  # procedural, every turn
    assert all("Never book red-eye flights" in b for b in blocks)  # the explicit rule too
    assert any("Relevant past conversation" in b for b in blocks)  # excerpts were rendered
    assert sum(1 for row in rows if row[0] == "semantic") >= 5  # facts were written


def test_background_writes_wait_while_a_recall_is_in_flight(
    tmp_path, embedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.store import foreground
    from langgraph_memory.write.background import BackgroundWriter

    monkeypatch.setattr(foreground, "BACKGROUND_BUDGET_S", 60.0)  # the test releases the gate

    scope = Scope(user_id="u")
    with MemoryStore(path=tmp_path / "m", embedder=embedder) as store:
        store.foreground.max_wait_s = 60.0  # no timeout decides
        writer = BackgroundWriter(WritePipeline(store), tmp_path / "journal")
        try:
            with store.foreground.serving():  # a recall in flight (this thread)
                writer.enqueue("I prefer green tea", scope=scope, turn_id="t1", thread_id="th")
                deadline = time.monotonic() + 30
                while store.foreground.waits == 0 and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert store.foreground.waits >= 1  # the writer reached the store and waited
                assert writer.outstanding == 1
                assert store.count(scope=scope) == 0  # nothing written during the recall
            assert writer.flush(timeout=60)
        finally:
            writer.close(timeout=60)
        assert any("green tea" in (r.object or "") for r in store.list(scope=scope))


def test_a_background_thread_holding_the_write_lock_never_waits(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.store.foreground import ForegroundGate, background_work

    gate = ForegroundGate(max_wait_s=60.0)
    with gate.serving(), background_work(budget_s=60.0):
        gate.yield_to_foreground(holding_write_lock=True)  # returns at once: no wait
        assert gate.waits == 0
    with background_work(budget_s=0.0), gate.serving():
        gate.yield_to_foreground()  # an exhausted budget never waits
        assert gate.waits == 0
