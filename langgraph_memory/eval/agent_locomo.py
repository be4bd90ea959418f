"""End-to-end LoCoMo benchmark through the agent: ``python -m langgraph_memory bench agent-locomo``.

Unlike ``bench locomo`` (which stores every turn directly), this replays LoCoMo through the
real graph, so what is measured is what the write path keeps and what reaches the prompt:

1. per conversation (``user_id`` = the conversation id, e.g. ``conv-26``), a
   :func:`~langgraph_memory.graph.prebuilt.create_memory_agent` over a fresh embedded store and a
   SQLite checkpointer, with a **fake chat model** (a scripted acknowledgement, no LLM);
2. every turn is sent in order as ``HumanMessage("<speaker>: <text>", id=<dia_id>,
   additional_kwargs={"timestamp": <session date, ISO-8601>})``, one thread per session;
3. every question (categories 1-4) is asked in a new thread of the same user with
   ``MemoryContext(save=False, recall_k=K)``.

Reported per question: ``evidence_in_prompt_any/all`` (the headline: an evidence turn is
backing a record whose ``[id]`` is in the system prompt the model received), ``recalled_any/all``
(the same from the record lists in the returned state: ``recalled``, ``episodes``, ...), and,
as a cross-check, ``evidence_text_in_prompt_any/all`` (the turn's own text is quoted in the
prompt). Also records written per 100 turns (current records, write-path ledger excluded),
memory tokens per prompt and whole-turn latency (``invoke`` wall time) of replay and question
turns.

The data set (CC BY-NC 4.0) is read from ``../shared/bench/locomo10.json`` or ``--data``; it is
never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from tqdm import tqdm

from ..cli import PlainHelpFormatter
from .common import machine_info, make_console, percentile, print_table, write_json
from .locomo import (
    CATEGORIES,
    DEFAULT_DATA,
    Question,
    Turn,
    find_data,
    load_locomo,
    turn_text,
)

FAKE_MODEL_LABEL = "fake chat model: scripted acknowledgement (no LLM)"
ACKNOWLEDGEMENT = "Thanks for sharing."
DEFAULT_K = 10

STATE_RECALL_KEYS: tuple[str, ...] = ("recalled", "episodes", "recalled_episodes")
"""State keys whose lists of ``{"id": ...}`` dicts count as recalled. Any other key of the
returned state holding such a list is counted too (``AUTO_DETECT_RECALL_KEYS``), except those in
``IGNORED_STATE_KEYS``; the keys actually seen are reported in the result."""
AUTO_DETECT_RECALL_KEYS = True
IGNORED_STATE_KEYS: frozenset[str] = frozenset(
    {"messages", "memory_writes", "violations", "constraints", "procedural"}
)

_UUID_IN_BRACKETS = re.compile(
    r"\[([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\]", re.IGNORECASE
)
_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_TIME_RE = re.compile(r"\b(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\b\.?", re.I)
_TIME24_RE = re.compile(r"\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b")
_DMY_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?\s+(\d{4})\b", re.I)
_MDY_RE = re.compile(r"\b([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", re.I)
_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_ZH_DATE_RE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_ZH_TIME_RE = re.compile(
    r"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)?\s*(\d{1,2})\s*(?:[:：]\s*(\d{2})|点(?:\s*(\d{1,2})\s*分?)?)"
)
_ZH_AFTERNOON = frozenset({"下午", "傍晚", "晚上", "夜里"})


# ---------------------------------------------------------------------------- dates
def parse_session_datetime(value: str | None) -> datetime | None:
    """Parse a LoCoMo session date such as ``"1:56 pm on 8 May, 2023"`` into an aware UTC
    datetime (LoCoMo gives no time zone; UTC is assumed). Also accepts ``"May 8, 2023"``,
    ``"8 May 2023"``, 24-hour times, ISO dates and Chinese dates (``"2024年3月2日 晚上8:15"``,
    ``"2023年5月8日 下午3点"``); a date without a time is midnight. Returns
    ``None`` when no date can be found (the turn is then sent without a timestamp)."""
    if not value or not isinstance(value, str):
        return None
    text = " ".join(value.split())
    year = month = day = None
    for pattern, order in ((_DMY_RE, "dmy"), (_MDY_RE, "mdy")):
        for m in pattern.finditer(text):
            a, b, y = m.groups()
            d_raw, mon_raw = (a, b) if order == "dmy" else (b, a)
            mon = _MONTHS.get(mon_raw.lower())
            if mon is not None:
                year, month, day = int(y), mon, int(d_raw)
                break
        if year is not None:
            break
    zh = _ZH_DATE_RE.search(text) if year is None else None
    if zh is not None:
        year, month, day = (int(g) for g in zh.groups())
    if year is None:
        iso = _ISO_RE.search(text)
        if iso is None:
            return None
        year, month, day = (int(g) for g in iso.groups())
    hour = minute = second = 0
    m12 = _TIME_RE.search(text)
    zh_time = _ZH_TIME_RE.search(text[zh.end() :]) if zh is not None else None
    if zh_time is not None:
        part, h, m_colon, m_dian = zh_time.groups()
        hour, minute = int(h), int(m_colon or m_dian or 0)
        if (part in _ZH_AFTERNOON and hour < 12) or (part == "中午" and hour < 11):
            hour += 12
    elif m12 is not None:
        hour = int(m12.group(1)) % 12 + (12 if m12.group(4).lower() == "p" else 0)
        minute, second = int(m12.group(2) or 0), int(m12.group(3) or 0)
    else:
        m24 = _TIME24_RE.search(text)
        if m24 is not None:
            hour, minute, second = int(m24.group(1)), int(m24.group(2)), int(m24.group(3) or 0)
    try:
        return datetime(year, month or 1, day or 1, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None


# ---------------------------------------------------------------------------- the fake model
def fake_chat_model() -> Any:
    """The fake chat model of the benchmark: the package's
    :class:`~langgraph_memory.testing.ScriptedChatModel`, always answering
    ``"Thanks for sharing."``; it records every prompt in ``model.calls``."""
    from ..testing import ScriptedChatModel

    return ScriptedChatModel(responder=lambda _m, _t: ACKNOWLEDGEMENT, label=FAKE_MODEL_LABEL)


def _prompt_system_text(calls: Sequence[Sequence[Any]]) -> str:
    """The system text of the last model call of a turn ('' when the model was not called)."""
    from ..testing import system_text

    return system_text(calls[-1]) if calls else ""


# ---------------------------------------------------------------------------- evidence
def _ids_of(item: Mapping[str, Any]) -> set[str]:
    """Evidence ids an item of a state list carries itself (episodes may not be records)."""
    out: set[str] = set()
    evidence = item.get("evidence")
    sources: list[Any] = [item]
    if isinstance(evidence, Mapping):
        sources.append(evidence)
    for src in sources:
        for key in ("message_ids", "turn_ids"):
            values = src.get(key)
            if isinstance(values, list | tuple):
                out.update(str(v) for v in values if v)
    for key in ("dia_id", "message_id", "turn_id"):
        if item.get(key):
            out.add(str(item[key]))
    return out


class EvidenceIndex:
    """Record id → the dia ids (message/turn ids) of its evidence, for one user.

    Filled from every record of the user (:meth:`prime`, current or not), and looked up with
    ``store.get`` for an id it has not seen; unknown ids map to nothing."""

    def __init__(self, store: Any, user_id: str) -> None:
        from ..core.scope import Scope

        self.store = store
        self.scope = Scope(user_id=user_id)
        self._cache: dict[str, frozenset[str]] = {}

    @staticmethod
    def _evidence(record: Any) -> frozenset[str]:
        ev = record.evidence
        return frozenset(str(i) for i in [*ev.message_ids, *ev.turn_ids] if i)

    def prime(self, records: Iterable[Any]) -> None:
        """Remember the evidence of ``records``."""
        for record in records:
            self._cache[record.id] = self._evidence(record)

    def of(self, record_id: str) -> frozenset[str]:
        """The evidence ids of ``record_id`` (empty when it is not a record of this user)."""
        if record_id not in self._cache:
            from ..errors import LangGraphMemoryError

            try:
                self._cache[record_id] = self._evidence(self.store.get(record_id, scope=self.scope))
            except (LangGraphMemoryError, ValueError, KeyError):
                self._cache[record_id] = frozenset()
        return self._cache[record_id]


def recalled_lists(state: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """The record lists of a returned state: :data:`STATE_RECALL_KEYS`, plus (with
    :data:`AUTO_DETECT_RECALL_KEYS`) any other list of dicts that all have an ``"id"``."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for key, value in state.items():
        if key in IGNORED_STATE_KEYS or not isinstance(value, list) or not value:
            continue
        if key not in STATE_RECALL_KEYS and not AUTO_DETECT_RECALL_KEYS:
            continue
        items = [v for v in value if isinstance(v, Mapping) and v.get("id")]
        if items and (key in STATE_RECALL_KEYS or len(items) == len(value)):
            out[key] = items
    return out


def prompt_record_ids(text: str) -> list[str]:
    """Record ids rendered as ``[<uuid>]`` in prompt text, in order, without repeats."""
    return list(dict.fromkeys(m.lower() for m in _UUID_IN_BRACKETS.findall(text)))


def _neutral(text: str) -> str:
    from ..graph.nodes import neutralize

    return neutralize(text).casefold()


@dataclass
class QuestionScore:
    """How one question scored."""

    category: int
    evidence: tuple[str, ...]
    prompt_any: bool
    prompt_all: bool
    recalled_any: bool
    recalled_all: bool
    text_any: bool
    text_all: bool
    prompt_ids: int
    recalled_ids: int
    ranked_ids: int = 0
    """Recalled records that took one of the ``k`` ranked slots (always-injected constraints
    and procedural memory excluded)."""
    ranked_any: bool = False
    ranked_all: bool = False
    """Evidence among the ranked slots alone (not counting always-injected records)."""


def score_question(
    question: Question,
    *,
    system_prompt: str,
    state: Mapping[str, Any],
    index: EvidenceIndex,
    turn_texts: Mapping[str, str] | None = None,
) -> QuestionScore:
    """Score one answered question: which evidence turns back a record whose id is in
    ``system_prompt`` (what the model received) and which back a record in the state's recalled
    lists; with ``turn_texts`` (dia id → turn text) also whether the turn's own text is quoted
    in the prompt."""
    wanted = set(question.evidence)
    in_prompt: set[str] = set()
    ids = prompt_record_ids(system_prompt)
    for rid in ids:
        in_prompt |= index.of(rid)
    recalled: set[str] = set()
    ranked: set[str] = set()
    n_recalled = n_ranked = 0
    for items in recalled_lists(state).values():
        for item in items:
            n_recalled += 1
            found = index.of(str(item["id"]).lower()) | _ids_of(item)
            recalled |= found
            explanation = item.get("explanation")
            if not (isinstance(explanation, Mapping) and explanation.get("reason") == "always"):
                n_ranked += 1
                ranked |= found
    text_hits: set[str] = set()
    if turn_texts:
        prompt = _neutral(system_prompt)
        for dia in wanted:
            said = turn_texts.get(dia)
            if said and _neutral(said)[:80] in prompt:
                text_hits.add(dia)
    return QuestionScore(
        category=question.category,
        evidence=question.evidence,
        prompt_any=bool(wanted & in_prompt),
        prompt_all=wanted <= in_prompt,
        recalled_any=bool(wanted & recalled),
        recalled_all=wanted <= recalled,
        text_any=bool(text_hits),
        text_all=bool(wanted) and text_hits == wanted,
        prompt_ids=len(ids),
        recalled_ids=n_recalled,
        ranked_ids=n_ranked,
        ranked_any=bool(wanted & ranked),
        ranked_all=wanted <= ranked,
    )


def question_detail(
    conv_id: str, index: int, question: Question, score: QuestionScore, system_prompt: str
) -> dict[str, Any]:
    """One line of the per-question file (``--per-question``): enough to diff two runs."""
    from ..graph.nodes import DEFAULT_SYSTEM_PROMPT

    return {
        "conversation": conv_id,
        "index": index,
        "category": question.category,
        "question": question.question,
        "evidence": list(question.evidence),
        "prompt_any": score.prompt_any,
        "prompt_all": score.prompt_all,
        "prompt_ids": score.prompt_ids,
        "memory": system_prompt.replace(DEFAULT_SYSTEM_PROMPT, "", 1).strip(),
    }


PROBE_DEPTH = 200
"""Depth of the candidate probe of ``--per-question``: every fused candidate of the
store's default ``RecallConfig`` (100 per retriever) fits in it."""


def evidence_rank(store: Any, user_id: str, question: Question, index: EvidenceIndex) -> int | None:
    """The 1-based rank of the best-ranked record backing an evidence turn in the store's own
    ranking of ``question`` (facts and episodes, as ``load_memory`` searches them), up to
    :data:`PROBE_DEPTH`; ``None`` when no such record is among the candidates."""
    from ..graph.nodes import _RECALL_LAYERS

    wanted = set(question.evidence)
    hits = store.search(
        question.question, user_id, k=PROBE_DEPTH, filters={"layer": list(_RECALL_LAYERS)}
    ).hits
    for rank, hit in enumerate(hits, start=1):
        if index.of(hit.record.id) & wanted:
            return rank
    return None


# ---------------------------------------------------------------------------- one conversation
@dataclass
class ConversationResult:
    """Everything measured on one conversation."""

    conversation: str
    turns: int
    sessions: int
    records: int
    records_by_layer: dict[str, int]
    turns_without_timestamp: int
    replay_ms: list[float] = field(default_factory=list)
    question_ms: list[float] = field(default_factory=list)
    question_memory_tokens: list[int] = field(default_factory=list)
    replay_memory_tokens: list[int] = field(default_factory=list)
    scores: list[QuestionScore] = field(default_factory=list)
    state_keys: set[str] = field(default_factory=set)
    seconds: float = 0.0
    details: list[dict[str, Any]] = field(default_factory=list)
    """Per question (only with ``details=True``): question, evidence, scores and the memory
    part of the system prompt, for diffing two runs question by question."""


def current_records(store: Any, user_id: str) -> list[Any]:
    """The user's current records, the write path's ledger excluded (as ``inspect`` shows)."""
    from ..lifecycle.admin_ops import user_records

    return [r for r in user_records(store, user_id, include_ledger=False) if r.is_current()]


def _memory_tokens(system_prompt: str, counter: Any) -> int:
    """Tokens the memory adds to the system prompt (everything beyond the base prompt)."""
    from ..graph.nodes import DEFAULT_SYSTEM_PROMPT

    extra = system_prompt.replace(DEFAULT_SYSTEM_PROMPT, "", 1).strip()
    return int(counter.count_text(extra)) if extra else 0


def run_conversation(
    conv_id: str,
    turns: Sequence[Turn],
    questions: Sequence[Question],
    root: Path,
    *,
    k: int = DEFAULT_K,
    embedder: Any = None,
    progress: bool = False,
    details: bool = False,
) -> ConversationResult:
    """Replay one conversation through a fresh agent, then ask its questions (module doc);
    with ``details`` also keep :attr:`ConversationResult.details`."""
    from langchain_core.messages import HumanMessage

    from ..context.tokens import default_token_counter
    from ..graph.checkpoint.saver import create_checkpointer
    from ..graph.prebuilt import create_memory_agent
    from ..graph.state import MemoryContext
    from ..store import MemoryStore

    started = time.perf_counter()
    counter = default_token_counter()
    root.mkdir(parents=True, exist_ok=True)
    store = MemoryStore(path=root / "store", embedder=embedder)
    checkpointer = create_checkpointer("sqlite", path=root / "cp.sqlite")
    model = fake_chat_model()
    agent = create_memory_agent(model, store=store, checkpointer=checkpointer)
    replay_ctx = MemoryContext(user_id=conv_id)
    ask_ctx = MemoryContext(user_id=conv_id, save=False, recall_k=k)
    result = ConversationResult(conv_id, len(turns), 0, 0, {}, 0)
    try:
        sessions: set[int] = set()
        bar = tqdm(total=len(turns), desc=f"{conv_id} replay", disable=not progress, unit="turn")
        for turn in turns:
            sessions.add(turn.session)
            when = parse_session_datetime(turn.date)
            kwargs: dict[str, Any] = {}
            if when is not None:
                kwargs["timestamp"] = when.isoformat()
            else:
                result.turns_without_timestamp += 1
            message = HumanMessage(
                content=turn_text(turn), id=turn.dia_id, additional_kwargs=kwargs
            )
            model.calls.clear()
            t0 = time.perf_counter()
            agent.invoke(
                {"messages": [message]},
                {"configurable": {"thread_id": f"{conv_id}-s{turn.session}"}},
                context=replay_ctx,
            )
            result.replay_ms.append((time.perf_counter() - t0) * 1e3)
            result.replay_memory_tokens.append(
                _memory_tokens(_prompt_system_text(model.calls), counter)
            )
            bar.update(1)
        bar.close()
        result.sessions = len(sessions)
        records = current_records(store, conv_id)
        result.records = len(records)
        by_layer: dict[str, int] = defaultdict(int)
        for r in records:
            by_layer[r.layer.value] += 1
        result.records_by_layer = dict(by_layer)
        index = EvidenceIndex(store, conv_id)
        from ..lifecycle.admin_ops import user_records

        index.prime(user_records(store, conv_id, include_ledger=True))
        texts = {t.dia_id: turn_text(t) for t in turns}
        for i, q in enumerate(
            tqdm(questions, desc=f"{conv_id} questions", disable=not progress, unit="q")
        ):
            model.calls.clear()
            t0 = time.perf_counter()
            state = agent.invoke(
                {"messages": [HumanMessage(content=q.question, id=f"q{i}")]},
                {"configurable": {"thread_id": f"{conv_id}-q{i}"}},
                context=ask_ctx,
            )
            result.question_ms.append((time.perf_counter() - t0) * 1e3)
            system = _prompt_system_text(model.calls)
            result.question_memory_tokens.append(_memory_tokens(system, counter))
            result.state_keys |= set(recalled_lists(state))
            score = score_question(
                q, system_prompt=system, state=state, index=index, turn_texts=texts
            )
            result.scores.append(score)
            if details:
                line = question_detail(conv_id, i, q, score, system)
                line["evidence_rank"] = evidence_rank(store, conv_id, q, index)
                result.details.append(line)
    finally:
        checkpointer.close()
        store.close()
    result.seconds = time.perf_counter() - started
    return result


# ---------------------------------------------------------------------------- selection
def select(
    turns: Sequence[Turn],
    questions: Sequence[Question],
    *,
    conversations: str | int | None = None,
    max_sessions: int | None = None,
) -> tuple[list[Turn], list[Question]]:
    """Keep the chosen conversations (a count: the first N in file order; or comma-separated
    ids) and, with ``max_sessions``, their first sessions and only the questions whose
    evidence lies entirely inside them."""
    order = list(dict.fromkeys(t.conversation for t in turns))
    keep: list[str] = order
    if conversations is not None and str(conversations).strip():
        spec = str(conversations).strip()
        if spec.isdigit():
            keep = order[: int(spec)]
        else:
            wanted = [c.strip() for c in spec.split(",") if c.strip()]
            unknown = [c for c in wanted if c not in order]
            if unknown:
                raise ValueError(f"unknown conversation id(s) {unknown}; known: {order}")
            keep = wanted
    kept = set(keep)
    turns = [t for t in turns if t.conversation in kept]
    questions = [q for q in questions if q.conversation in kept]
    if max_sessions is not None:
        first: dict[str, set[int]] = {}
        for c in keep:
            first[c] = set(sorted({t.session for t in turns if t.conversation == c})[:max_sessions])
        turns = [t for t in turns if t.session in first[t.conversation]]
        present = {(t.conversation, t.dia_id) for t in turns}
        questions = [
            q for q in questions if all((q.conversation, e) in present for e in q.evidence)
        ]
    rank = {c: i for i, c in enumerate(keep)}
    turns.sort(key=lambda t: rank[t.conversation])  # stable: turn order kept
    questions.sort(key=lambda q: rank[q.conversation])
    return turns, questions


# ---------------------------------------------------------------------------- summary
def _rate(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _metrics(scores: Sequence[QuestionScore]) -> dict[str, Any]:
    return {
        "n": len(scores),
        "evidence_in_prompt_any": _rate([s.prompt_any for s in scores]),
        "evidence_in_prompt_all": _rate([s.prompt_all for s in scores]),
        "recalled_any": _rate([s.recalled_any for s in scores]),
        "recalled_all": _rate([s.recalled_all for s in scores]),
        "evidence_text_in_prompt_any": _rate([s.text_any for s in scores]),
        "evidence_text_in_prompt_all": _rate([s.text_all for s in scores]),
        "ranked_any": _rate([s.ranked_any for s in scores]),
        "ranked_all": _rate([s.ranked_all for s in scores]),
    }


def _dist(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": sum(values) / len(values) if values else float("nan"),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "max": max(values) if values else float("nan"),
    }


def summarise(
    results: Sequence[ConversationResult], dev: Sequence[str] | None = None
) -> dict[str, Any]:
    """The overall numbers, per category, per split (``dev``: the development
    conversations' ids; the others are held out) and per conversation."""
    scores = [s for r in results for s in r.scores]
    turns = sum(r.turns for r in results)
    records = sum(r.records for r in results)
    by_cat: dict[str, Any] = {}
    for cat, name in CATEGORIES.items():
        these = [s for s in scores if s.category == cat]
        if these:
            by_cat[name] = _metrics(these)
    layers: dict[str, int] = defaultdict(int)
    for r in results:
        for layer, n in r.records_by_layer.items():
            layers[layer] += n
    return {
        "overall": {
            **_metrics(scores),
            "turns": turns,
            "records": records,
            "records_per_100_turns": 100.0 * records / turns if turns else float("nan"),
            "records_by_layer": dict(layers),
            "turns_without_timestamp": sum(r.turns_without_timestamp for r in results),
            "memory_tokens_question": _dist(
                [float(v) for r in results for v in r.question_memory_tokens]
            ),
            "memory_tokens_replay": _dist(
                [float(v) for r in results for v in r.replay_memory_tokens]
            ),
            "prompt_record_ids_mean": _rate_mean([s.prompt_ids for s in scores]),
            "prompt_record_ids_max": max((s.prompt_ids for s in scores), default=0),
            "ranked_records_mean": _rate_mean([s.ranked_ids for s in scores]),
            "ranked_records_max": max((s.ranked_ids for s in scores), default=0),
            "state_recalled_items_mean": _rate_mean([s.recalled_ids for s in scores]),
            "latency_ms_replay": _dist([v for r in results for v in r.replay_ms]),
            "latency_ms_question": _dist([v for r in results for v in r.question_ms]),
        },
        "by_category": by_cat,
        "splits": _splits(results, dev) if dev is not None else {},
        "by_conversation": {
            r.conversation: {
                **_metrics(r.scores),
                "turns": r.turns,
                "sessions": r.sessions,
                "records": r.records,
                "records_per_100_turns": 100.0 * r.records / r.turns if r.turns else float("nan"),
                "seconds": r.seconds,
            }
            for r in results
        },
        "state_keys_seen": sorted({k for r in results for k in r.state_keys}),
    }


DEV_CONVERSATIONS = 5
"""The first five conversations of the file are the development split (defaults may be
chosen on them); the other five are held out and reported separately."""


def _dev_split(turns: Sequence[Turn]) -> list[str] | None:
    """LoCoMo's development conversations (the first five of the file); ``None`` for other
    LoCoMo-shaped sets (the shipped synthetic sets are held out whole)."""
    ids = list(dict.fromkeys(t.conversation for t in turns))
    if not all(i.startswith("conv-") for i in ids):
        return None
    return ids[:DEV_CONVERSATIONS]


def _splits(results: Sequence[ConversationResult], dev: Sequence[str]) -> dict[str, Any]:
    """Metrics of the development and the held-out conversations, separately."""
    out: dict[str, Any] = {}
    for name, members in (
        ("dev", [r for r in results if r.conversation in dev]),
        ("held_out", [r for r in results if r.conversation not in dev]),
    ):
        scores = [s for r in members for s in r.scores]
        if scores:
            out[name] = {"conversations": [r.conversation for r in members], **_metrics(scores)}
    return out


def _rate_mean(values: Sequence[int]) -> float:
    return sum(values) / len(values) if values else float("nan")


# ---------------------------------------------------------------------------- entry points
def run(
    data: str | Path = DEFAULT_DATA,
    *,
    k: int = DEFAULT_K,
    conversations: str | int | None = None,
    max_sessions: int | None = None,
    embedder: str = "use-multilingual",
    progress: bool = True,
    quick: bool = False,
    per_question: str | Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark and return the result document (see the module docstring); with
    ``per_question`` also write one JSON line per question there (:func:`question_detail`)."""
    from ..embeddings import load_embedder

    path = find_data(data)
    all_turns, all_questions = load_locomo(path)
    turns, questions = select(
        all_turns, all_questions, conversations=conversations, max_sessions=max_sessions
    )
    model = load_embedder(embedder)  # loaded once, shared by every conversation's store
    started = time.perf_counter()
    results: list[ConversationResult] = []
    with tempfile.TemporaryDirectory(prefix="lgm-agent-locomo-") as tmp:
        for conv_id in dict.fromkeys(t.conversation for t in turns):
            results.append(
                run_conversation(
                    conv_id,
                    [t for t in turns if t.conversation == conv_id],
                    [q for q in questions if q.conversation == conv_id],
                    Path(tmp) / conv_id,
                    k=k,
                    embedder=model,
                    progress=progress,
                    details=per_question is not None,
                )
            )
    if per_question is not None:
        target = Path(per_question)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as fh:
            for r in results:
                for line in r.details:
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return {
        "benchmark": "agent_locomo",
        "data": str(path),
        "model": FAKE_MODEL_LABEL,
        "embedder": model.name,
        "k": k,
        "quick": quick,
        "max_sessions": max_sessions,
        "conversations": [r.conversation for r in results],
        "turns": len(turns),
        "questions": len(questions),
        "seconds": time.perf_counter() - started,
        "results": summarise(results, dev=_dev_split(all_turns)),
        "machine": machine_info(),
    }


def report(console: Console, result: dict[str, Any]) -> None:
    """Print the overall, per-category and per-conversation tables."""
    res = result["results"]
    o = res["overall"]
    cols = [
        "scope",
        "n",
        "prompt any",
        "prompt all",
        "recalled any",
        "recalled all",
        "text any",
        "ranked any",
    ]

    def row(name: str, m: Mapping[str, Any]) -> list[Any]:
        return [
            name,
            m["n"],
            m["evidence_in_prompt_any"],
            m["evidence_in_prompt_all"],
            m["recalled_any"],
            m["recalled_all"],
            m["evidence_text_in_prompt_any"],
            m.get("ranked_any", float("nan")),
        ]

    title = (
        f"LoCoMo through the agent — {len(result['conversations'])} conversation(s), "
        f"{result['turns']} turns, {result['questions']} questions, k={result['k']}, "
        f"model: {result['model']}"
    )
    rows = [row("overall", o)] + [row(c, m) for c, m in res["by_category"].items()]
    rows += [row(f"split: {name}", m) for name, m in res.get("splits", {}).items()]
    print_table(console, title, cols, rows)
    qt, rt = o["memory_tokens_question"], o["memory_tokens_replay"]
    lq, lr = o["latency_ms_question"], o["latency_ms_replay"]
    print_table(
        console,
        "writes, prompt size and latency",
        ["metric", "value"],
        [
            ["records per 100 turns", o["records_per_100_turns"]],
            ["records (current, ledger excluded)", o["records"]],
            ["records by layer", ", ".join(f"{k}={v}" for k, v in o["records_by_layer"].items())],
            ["memory tokens / question prompt, mean", qt["mean"]],
            ["memory tokens / question prompt, p95", qt["p95"]],
            ["records in question prompt, mean", o["prompt_record_ids_mean"]],
            ["records in question prompt, max", o["prompt_record_ids_max"]],
            ["  of which ranked (k slots), mean", o["ranked_records_mean"]],
            ["  of which ranked (k slots), max", o["ranked_records_max"]],
            ["memory tokens / replay prompt, mean", rt["mean"]],
            ["memory tokens / replay prompt, p95", rt["p95"]],
            ["replay turn ms, p50", lr["p50"]],
            ["replay turn ms, p95", lr["p95"]],
            ["question turn ms, p50", lq["p50"]],
            ["question turn ms, p95", lq["p95"]],
            ["state record lists seen", ", ".join(res["state_keys_seen"]) or "-"],
            ["total seconds", result["seconds"]],
        ],
    )
    if len(res["by_conversation"]) > 1:
        print_table(
            console,
            "per conversation",
            ["conversation", "turns", "rec/100 turns", "n", "prompt any", "prompt all", "s"],
            [
                [
                    c,
                    m["turns"],
                    m["records_per_100_turns"],
                    m["n"],
                    m["evidence_in_prompt_any"],
                    m["evidence_in_prompt_all"],
                    m["seconds"],
                ]
                for c, m in res["by_conversation"].items()
            ],
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench agent-locomo",
        description=__doc__.split("\n")[0],
    )
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="path to locomo10.json")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="recall_k of question turns")
    parser.add_argument(
        "--conversations",
        default=None,
        help="a count (the first N conversations) or comma-separated ids (conv-26,conv-30)",
    )
    parser.add_argument("--max-sessions", type=int, default=None, help="first N sessions each")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="CI: 1 conversation, its first 2 sessions, questions with evidence in them",
    )
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--out", default="bench-results/agent_locomo.json")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--per-question",
        default=None,
        help="also write one JSON line per question (scores, evidence, memory part of the "
        "prompt) to this path, to diff two runs question by question",
    )
    ns = parser.parse_args(argv)
    if ns.quick:
        ns.conversations = ns.conversations or "1"
        ns.max_sessions = ns.max_sessions or 2
    result = run(
        ns.data,
        k=ns.k,
        conversations=ns.conversations,
        max_sessions=ns.max_sessions,
        embedder=ns.embedder,
        progress=not ns.no_progress,
        quick=ns.quick,
        per_question=ns.per_question,
    )
    console = make_console()
    report(console, result)
    written = write_json(ns.out, result)
    if written:
        console.print(f"results written to {written}")
    return 0


__all__ = [
    "ACKNOWLEDGEMENT",
    "FAKE_MODEL_LABEL",
    "STATE_RECALL_KEYS",
    "EvidenceIndex",
    "QuestionScore",
    "current_records",
    "evidence_rank",
    "fake_chat_model",
    "main",
    "parse_session_datetime",
    "prompt_record_ids",
    "question_detail",
    "recalled_lists",
    "run",
    "run_conversation",
    "score_question",
    "select",
    "summarise",
]
