"""Pure selection and rendering of recalled facts and conversation excerpts."""

from __future__ import annotations

from datetime import UTC, datetime

from langgraph_memory import MemoryRecord, SearchHit
from langgraph_memory.context import default_token_counter
from langgraph_memory.core import Evidence, Layer
from langgraph_memory.read.conversation import (
    CONVERSATION_HEADER,
    Excerpt,
    echoes_a_fact,
    expand_neighbours,
    memory_parts,
    render_conversation,
    select_hits,
)
from langgraph_memory.read.guard import quote
from langgraph_memory.store import Explanation


def _episode(i: int, text: str, thread: str = "t1", day: int = 1) -> MemoryRecord:
    return MemoryRecord(
        user_id="u",
        layer=Layer.EPISODIC,
        kind="event",
        subject=f"thread:{thread}",
        predicate="said",
        text=text,
        created_at=datetime(2024, 1, day, tzinfo=UTC),
        evidence=Evidence(turn_ids=[f"m{i}"], message_ids=[f"m{i}"], thread_id=thread),
        metadata={"seq": i},
    )


def _fact(text: str, turn: str = "f") -> MemoryRecord:
    return MemoryRecord(
        user_id="u", kind="preference", text=text, evidence=Evidence(message_ids=[turn])
    )


def _hit(record: MemoryRecord, score: float, *, dense: int | None = None) -> SearchHit:
    exp = Explanation(
        dense_rank=dense,
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


def test_matching_fact_is_kept_even_when_episodes_outscore_it() -> None:
    episodes = [_hit(_episode(i, f"talk {i}"), 0.9 - i * 0.01, dense=i + 1) for i in range(6)]
    fact = _hit(_fact("I prefer tea"), 0.2, dense=2)
    unrelated = _hit(_fact("I live in Oslo"), 0.1)  # matched by neither retriever's top k
    chosen = select_hits([*episodes, fact, unrelated], 4, min_facts=2)
    ids = [h.record.id for h in chosen]
    assert fact.record.id in ids and unrelated.record.id not in ids and len(chosen) == 4
    assert select_hits([*episodes, fact], 4, min_facts=0)[-1].record.id != fact.record.id


def test_reserve_leaves_slots_for_neighbours_and_neighbours_follow_their_hit() -> None:
    thread = [_episode(i, f"turn {i}") for i in range(6)]
    hits = [_hit(thread[3], 0.9), _hit(thread[0], 0.5)]
    chosen = select_hits(hits, 4, reserve=2)
    assert len(chosen) == 2
    excerpts = expand_neighbours(chosen, {"thread:t1": thread}, 4)
    texts = [e.record.text for e in excerpts]
    assert texts == ["turn 3", "turn 0", "turn 4", "turn 2"]  # next turn first, then previous
    assert all(e.score < 0.9 for e in excerpts[2:]) and excerpts[2].anchor == thread[3].id


def test_rendering_groups_by_thread_in_order_and_fits_its_budget() -> None:
    a = [_episode(i, f"first thread turn {i}", "a", day=2) for i in range(3)]
    b = [_episode(10, "second thread turn", "b", day=1)]
    excerpts = [Excerpt(r, 1.0 - i / 10, r.id) for i, r in enumerate([a[2], b[0], a[0], a[1]])]
    counter = default_token_counter()
    lines, kept, dropped = render_conversation(
        excerpts, quote=quote, budget_tokens=None, counter=counter
    )
    assert lines[0] == CONVERSATION_HEADER and not dropped
    text = "\n".join(lines)
    assert text.index("conversation b") < text.index("conversation a")  # older thread first
    assert text.index("turn 0") < text.index("turn 1") < text.index("turn 2")
    full = counter.count_text(text)
    small, kept, dropped = render_conversation(
        excerpts, quote=quote, budget_tokens=full - 5, counter=counter
    )
    assert counter.count_text("\n".join(small)) <= full - 5 and dropped and kept
    assert a[2].id in {e.record.id for e in kept}  # the best-scored excerpt is dropped last


def test_an_episode_that_a_fact_repeats_is_an_echo() -> None:
    ep = _episode(1, "I prefer tea.")
    assert echoes_a_fact(ep, [_fact("I prefer tea", turn="m1")])
    assert not echoes_a_fact(ep, [_fact("I prefer tea", turn="other")])
    assert not echoes_a_fact(_episode(2, "I prefer tea, and I live in Oslo"), [_fact("x", "m2")])


def test_a_fact_about_the_world_leaves_its_dated_excerpt() -> None:
    ep = _episode(1, "My cat Miso had surgery on Tuesday")
    fact = _fact("My cat Miso had surgery on Tuesday", turn="m1").model_copy(
        update={"kind": "stable_fact"}
    )
    assert not echoes_a_fact(ep, [fact])  # when it was said still matters


def test_memory_parts_splits_the_block() -> None:
    block = "\n".join(
        [
            "<memory>",
            "Known constraints & facts (recalled memory):",
            '- [1] preference: "tea"',
            CONVERSATION_HEADER,
            "- said 2024-01-01 (conversation t):",
            '  - [2] user: "hello there"',
            "</memory>",
        ]
    )
    facts, past = memory_parts(block)
    assert "tea" in facts and "hello" not in facts
    assert "hello there" in past and "tea" not in past


def test_an_echo_gives_its_slot_to_the_next_hit() -> None:
    fact = _hit(_fact("I prefer tea", turn="m1"), 0.9, dense=1)
    echo = _hit(_episode(1, "I prefer tea"), 0.8, dense=2)
    others = [_hit(_episode(i, f"other {i}"), 0.5 - i / 100) for i in range(2, 6)]
    chosen = select_hits([fact, echo, *others], 3)
    assert [h.record.text for h in chosen] == ["I prefer tea", "other 2", "other 3"]


def test_a_note_restating_its_turn_gives_way_to_the_dated_episode(store) -> None:  # type: ignore[no-untyped-def]
    """A free-text note holds only its turn's words; the episode says the same with a date."""
    from langgraph_memory import Scope, WritePipeline
    from langgraph_memory.read.conversation import prefer_dated_words, select_hits

    scope = Scope(user_id="u")
    pipeline = WritePipeline(store)
    report = pipeline.process_turn(
        "Our on-call rotation swaps every other week",  # no value a slot names: a note
        scope=scope,
        turn_id="t1",
        message_id="m1",
        thread_id="th",
        said_at="2024-05-01T10:00:00+00:00",
    )
    assert report.wrote and report.episode is not None
    hits = store.search("how often does the on-call rotation swap?", scope, k=10).hits
    kinds = {h.record.layer.value for h in hits}
    assert kinds == {"semantic", "episodic"}
    merged = prefer_dated_words(hits)
    assert [h.record.layer.value for h in merged] == ["episodic"]
    assert merged[0].score == max(h.score for h in hits)
    assert [h.record.layer.value for h in select_hits(hits, 5)] == ["episodic"]


def test_a_note_is_represented_by_its_episode_only_when_it_is_most_of_the_turn() -> None:
    """A clause that is the whole turn is recalled as its episode, with its own rank; one
    clause of a long turn is recalled as itself; an episode gone leaves the note."""
    from langgraph_memory.read.conversation import represented_by_episodes

    short = _episode(1, "Prod sits behind Cloudflare.")
    long = _episode(
        2,
        "We spent the week on the migration. Prod sits behind Cloudflare. The staging box "
        "is still on the old provider, and the DNS move is planned for next month.",
    )

    def note(of: MemoryRecord) -> MemoryRecord:
        meta = {"extractor": "classifier", "episode_id": of.id}
        return MemoryRecord(
            user_id="u", predicate="note", text="Prod sits behind Cloudflare", metadata=meta
        )

    whole, part = note(short), note(long)
    hits = [_hit(whole, 0.9), _hit(part, 0.8), _hit(short, 0.5)]
    alive = {short.id: short, long.id: long}
    kept = represented_by_episodes(hits, lambda ids: {i: alive[i] for i in ids if i in alive})
    assert [(h.record.id, h.score) for h in kept] == [(short.id, 0.9), (part.id, 0.8)]
    gone = represented_by_episodes(hits, lambda ids: {})
    assert [h.record.id for h in gone] == [whole.id, part.id, short.id]


def test_only_the_best_free_text_facts_compete_and_structured_ones_never_capped() -> None:
    from langgraph_memory.read.conversation import cap_free_text_facts, is_free_text_fact

    notes = [
        _hit(MemoryRecord(user_id="u", predicate=p, text=f"clause {i}"), 0.9 - i / 100, dense=i)
        for i, p in enumerate(["note", "prefers", "likes", "note"], start=1)
    ]
    pet = _hit(MemoryRecord(user_id="u", predicate="pet", text="a dog named Rex"), 0.8, dense=5)
    rule = _hit(
        MemoryRecord(user_id="u", kind="constraint", predicate="note", text="no emojis"), 0.79
    )
    episodes = [_hit(_episode(i, f"turn {i}"), 0.5 - i / 100, dense=9 + i) for i in range(6)]
    hits = [*episodes, *notes, pet, rule]
    assert all(is_free_text_fact(h.record) for h in notes)
    assert not is_free_text_fact(pet.record) and not is_free_text_fact(rule.record)
    chosen = [h.record.id for h in select_hits(hits, 8, max_free_text=2)]
    assert [n.record.id for n in notes if n.record.id in chosen] == [
        notes[0].record.id,
        notes[1].record.id,
    ]
    assert pet.record.id in chosen and rule.record.id in chosen
    assert sum(1 for h in hits if h.record.id in chosen and h in episodes) == 4
    uncapped = [h.record.id for h in select_hits(hits, 8, max_free_text=None)]
    assert all(n.record.id in uncapped for n in notes)
    assert len(cap_free_text_facts(hits, 0)) == len(hits) - len(notes)
