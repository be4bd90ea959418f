"""``bench agent-locomo``: the session-date parser, hit/miss scoring on a store filled here, and
a ``--quick`` smoke run on a tiny LoCoMo-shaped file written here (invented text, not the data
set), asserting the result's shape and that its numbers are consistent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from langgraph_memory import MemoryRecord, MemoryStore, Scope
from langgraph_memory.core import Evidence, Kind, Layer
from langgraph_memory.eval import agent_locomo
from langgraph_memory.eval.agent_locomo import (
    EvidenceIndex,
    parse_session_datetime,
    prompt_record_ids,
    score_question,
    select,
)
from langgraph_memory.eval.locomo import Question, load_locomo


# ---------------------------------------------------------------------------- dates
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37, tzinfo=UTC)),
        ("12:09 am on 1 January, 2024", datetime(2024, 1, 1, 0, 9, tzinfo=UTC)),
        ("12:30 pm on 15 August, 2023", datetime(2023, 8, 15, 12, 30, tzinfo=UTC)),
        ("  8:05  PM  on  3 Sept 2022 ", datetime(2022, 9, 3, 20, 5, tzinfo=UTC)),
        ("9 a.m. on 2 Feb, 2021", datetime(2021, 2, 2, 9, 0, tzinfo=UTC)),
        ("May 8, 2023", datetime(2023, 5, 8, tzinfo=UTC)),
        ("8th May 2023, 14:20", datetime(2023, 5, 8, 14, 20, tzinfo=UTC)),
        ("2023-05-08", datetime(2023, 5, 8, tzinfo=UTC)),
        ("2024年3月2日 晚上8:15", datetime(2024, 3, 2, 20, 15, tzinfo=UTC)),
        ("2023年4月9日 上午10:05", datetime(2023, 4, 9, 10, 5, tzinfo=UTC)),
        ("2023年5月8日 下午3点", datetime(2023, 5, 8, 15, 0, tzinfo=UTC)),
        ("2023年5月8日 中午12点30分", datetime(2023, 5, 8, 12, 30, tzinfo=UTC)),
        ("2023年12月31日", datetime(2023, 12, 31, tzinfo=UTC)),
    ],
)
def test_parse_session_datetime(raw: str, expected: datetime) -> None:
    got = parse_session_datetime(raw)
    assert got == expected
    assert got is not None and got.tzinfo is not None
    assert datetime.fromisoformat(got.isoformat()) == expected


@pytest.mark.parametrize("raw", ["", None, "sometime last spring", "1:00 pm on 31 February, 2023"])
def test_parse_session_datetime_gives_none(raw: str | None) -> None:
    assert parse_session_datetime(raw) is None


# ---------------------------------------------------------------------------- scoring
def _record(user: str, text: str, message_ids: list[str]) -> MemoryRecord:
    return MemoryRecord(
        user_id=user,
        text=text,
        layer=Layer.SEMANTIC,
        kind=Kind.STABLE_FACT,
        evidence=Evidence(turn_ids=message_ids, message_ids=message_ids, thread_id="t-s1"),
    )


def test_score_hit_when_evidence_record_in_prompt_miss_when_not(
    tmp_path: Path, embedder: object
) -> None:
    user = "conv-x"
    with MemoryStore(path=tmp_path / "mem", embedder=embedder) as store:  # type: ignore[arg-type]
        hit = _record(user, "Nova keeps three tortoises.", ["D1:2"])
        other = _record(user, "Nova dislikes thunderstorms.", ["D1:5"])
        both = _record(user, "Nova repaired a clock and a radio.", ["D2:1", "D2:3"])
        store.add_many([hit, other, both], scope=Scope(user_id=user))
        index = EvidenceIndex(store, user)  # not primed: ids are looked up with store.get
        q = Question(user, "How many tortoises does Nova keep?", ("D1:2",), 4)
        line = f"- [{hit.id}] stable_fact: “Nova keeps three tortoises.”"

        s = score_question(
            q, system_prompt=f"sys\n<memory>\n{line}\n</memory>", state={}, index=index
        )
        assert s.prompt_any and s.prompt_all and s.prompt_ids == 1
        assert not s.recalled_any  # nothing in the state's lists

        miss = score_question(
            q,
            system_prompt=f"sys\n- [{other.id}] stable_fact: “Nova dislikes thunderstorms.”",
            state={"recalled": [{"id": hit.id, "text": hit.text}]},
            index=index,
        )
        assert not miss.prompt_any and not miss.prompt_all
        assert miss.recalled_any and miss.recalled_all  # recalled, yet not in the prompt

        two = Question(user, "What did Nova repair?", ("D2:1", "D2:3", "D2:9"), 1)
        partial = score_question(two, system_prompt=f"[{both.id}]", state={}, index=index)
        assert partial.prompt_any and not partial.prompt_all

        # an episode list item carrying its own evidence ids, not a store record
        episodes = {"episodes": [{"id": "ep-1", "message_ids": ["D2:9"]}]}
        ep = score_question(two, system_prompt="", state=episodes, index=index)
        assert ep.recalled_any and not ep.recalled_all
        unknown = score_question(
            q, system_prompt="[00000000-0000-4000-8000-000000000000]", state={}, index=index
        )
        assert not unknown.prompt_any


def test_prompt_record_ids_and_recalled_lists() -> None:
    a, b = "3f2a1b4c-0000-4000-8000-00000000000a", "3f2a1b4c-0000-4000-8000-00000000000b"
    assert prompt_record_ids(f"- [{a}] x\n- [{b}] y\n[{a}] again [not-an-id]") == [a, b]
    state = {
        "recalled": [{"id": a}],
        "recalled_episodes": [{"id": b}],
        "memory_writes": [{"record_id": a}],
        "procedural": [{"id": b}],
        "memory_block": "text",
    }
    assert set(agent_locomo.recalled_lists(state)) == {"recalled", "recalled_episodes"}


# ---------------------------------------------------------------------------- smoke run
SESSION_1 = [
    ("Nova", "I finally planted the lemon tree in the back garden."),
    ("Pim", "Nice! Did you pick a sunny spot?"),
    ("Nova", "Yes, right next to the old stone wall."),
    ("Pim", "I signed up for a pottery class on Thursdays."),
]
SESSION_2 = [
    ("Nova", "The lemon tree has its first flowers now."),
    ("Pim", "My pottery teacher says my bowls are getting better."),
    ("Nova", "I am reading a novel about a lighthouse keeper."),
    ("Pim", "I prefer audiobooks on the tram to work."),
]
SESSION_3 = [("Nova", "We adopted a grey kitten called Pebble.")]


def tiny_locomo(path: Path) -> Path:
    """One invented conversation in LoCoMo's shape: 3 sessions (the quick mode keeps 2),
    3 answerable questions inside sessions 1-2, one in session 3 and one adversarial."""

    def session(n: int, lines: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [
            {"speaker": who, "dia_id": f"D{n}:{i + 1}", "text": text}
            for i, (who, text) in enumerate(lines)
        ]

    conv = {
        "speaker_a": "Nova",
        "speaker_b": "Pim",
        "session_1": session(1, SESSION_1),
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_2": session(2, SESSION_2),
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_3": session(3, SESSION_3),
        "session_3_date_time": "8:00 pm on 1 July, 2023",
    }
    conv["session_1"][1]["blip_caption"] = "a small tree in a pot"
    qa = [
        {
            "question": "Where did Nova plant the lemon tree?",
            "answer": "by the wall",
            "evidence": ["D1:1", "D1:3"],
            "category": 1,
        },
        {
            "question": "When does Pim go to pottery class?",
            "answer": "Thursdays",
            "evidence": ["D1:4"],
            "category": 4,
        },
        {
            "question": "When did the lemon tree flower?",
            "answer": "June 2023",
            "evidence": ["D2:1"],
            "category": 2,
        },
        {
            "question": "What is the kitten called?",
            "answer": "Pebble",
            "evidence": ["D3:1"],
            "category": 4,
        },
        {
            "question": "What is Pim's kitten called?",
            "adversarial_answer": "Pebble",
            "evidence": ["D3:1"],
            "category": 5,
        },
    ]
    path.write_text(json.dumps([{"sample_id": "conv-x", "conversation": conv, "qa": qa}]))
    return path


def test_select_quick_keeps_first_sessions_and_their_questions(tmp_path: Path) -> None:
    turns, questions = load_locomo(tiny_locomo(tmp_path / "tiny.json"))
    assert len(turns) == 9 and len(questions) == 4
    kept_turns, kept_q = select(turns, questions, conversations="1", max_sessions=2)
    assert len(kept_turns) == 8 and {t.session for t in kept_turns} == {1, 2}
    assert [q.evidence for q in kept_q] == [("D1:1", "D1:3"), ("D1:4",), ("D2:1",)]
    assert select(turns, questions, conversations="conv-x")[0] == turns
    with pytest.raises(ValueError, match="unknown conversation"):
        select(turns, questions, conversations="conv-nope")


def _between(value: float) -> bool:
    return 0.0 <= value <= 1.0


def test_quick_run_json_shape_and_consistency(tmp_path: Path) -> None:
    data = tiny_locomo(tmp_path / "tiny.json")
    out = tmp_path / "agent_locomo.json"
    lines_at = tmp_path / "per_question.jsonl"
    rc = agent_locomo.main(
        [
            *("--data", str(data), "--quick", "--k", "5", "--out", str(out), "--no-progress"),
            *("--per-question", str(lines_at)),
        ]
    )
    assert rc == 0
    # one line per question, agreeing with the summary, each with its prompt's memory part
    lines = [json.loads(x) for x in lines_at.read_text().splitlines()]
    assert [(x["conversation"], x["index"]) for x in lines] == [("conv-x", i) for i in range(3)]
    summary = json.loads(out.read_text())["results"]["overall"]
    assert sum(x["prompt_any"] for x in lines) / 3 == pytest.approx(
        summary["evidence_in_prompt_any"]
    )
    for x in lines:
        assert x["question"] and x["evidence"] and isinstance(x["memory"], str)
        rank = x["evidence_rank"]
        assert rank is None or 1 <= rank <= agent_locomo.PROBE_DEPTH
        if x["prompt_any"] and x["prompt_ids"] and rank is not None:
            assert x["memory"].count("[") >= 1
    assert any(x["evidence_rank"] is not None for x in lines)
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "agent_locomo" and doc["quick"] is True
    assert doc["model"] == agent_locomo.FAKE_MODEL_LABEL and "fake" in doc["model"]
    assert doc["conversations"] == ["conv-x"]
    assert doc["turns"] == 8 and doc["questions"] == 3 and doc["k"] == 5
    assert {"python", "cpus", "time"} <= set(doc["machine"])
    o = doc["results"]["overall"]
    assert o["n"] == 3 and o["turns"] == 8 and o["turns_without_timestamp"] == 0
    assert isinstance(o["records"], int) and o["records"] >= 1
    assert o["records_per_100_turns"] == pytest.approx(100 * o["records"] / 8)
    assert sum(o["records_by_layer"].values()) == o["records"]
    pairs = [
        ("evidence_in_prompt_any", "evidence_in_prompt_all"),
        ("recalled_any", "recalled_all"),
        ("evidence_text_in_prompt_any", "evidence_text_in_prompt_all"),
    ]
    for metrics in [o, *doc["results"]["by_category"].values()]:
        for any_key, all_key in pairs:
            assert _between(metrics[all_key]) and _between(metrics[any_key])
            assert metrics[all_key] <= metrics[any_key]
    assert set(doc["results"]["by_category"]) <= {"multi-hop", "temporal", "single-hop"}
    assert sum(m["n"] for m in doc["results"]["by_category"].values()) == 3
    assert "recalled" in doc["results"]["state_keys_seen"]
    for key in ("latency_ms_replay", "latency_ms_question", "memory_tokens_question"):
        dist = o[key]
        assert 0 < dist["p50"] <= dist["p95"] <= dist["max"]
    assert o["memory_tokens_question"]["mean"] > 0
    per = doc["results"]["by_conversation"]["conv-x"]
    assert per["turns"] == 8 and per["sessions"] == 2 and per["records"] == o["records"]
