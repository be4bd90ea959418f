"""Scoring one question of ``bench agent-locomo``: which evidence turns back the records that
reached the prompt or the returned state, and where the evidence ranks in a plain search."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..locomo import Question

if TYPE_CHECKING:
    from ...core.records import MemoryRecord
    from ...store import MemoryStore

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

    def __init__(self, store: MemoryStore, user_id: str) -> None:
        from ...core.scope import Scope

        self.store = store
        self.scope = Scope(user_id=user_id)
        self._cache: dict[str, frozenset[str]] = {}

    @staticmethod
    def _evidence(record: MemoryRecord) -> frozenset[str]:
        ev = record.evidence
        return frozenset(str(i) for i in [*ev.message_ids, *ev.turn_ids] if i)

    def prime(self, records: Iterable[MemoryRecord]) -> None:
        """Remember the evidence of ``records``."""
        for record in records:
            self._cache[record.id] = self._evidence(record)

    def of(self, record_id: str) -> frozenset[str]:
        """The evidence ids of ``record_id`` (empty when it is not a record of this user)."""
        if record_id not in self._cache:
            from ...errors import LangGraphMemoryError

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
    from ...read.guard import neutralize

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
    from ...read.prompt import DEFAULT_SYSTEM_PROMPT

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


def evidence_rank(
    store: MemoryStore, user_id: str, question: Question, index: EvidenceIndex
) -> int | None:
    """The 1-based rank of the best-ranked record backing an evidence turn in the store's own
    ranking of ``question`` (facts and episodes, as ``load_memory`` searches them), up to
    :data:`PROBE_DEPTH`; ``None`` when no such record is among the candidates."""
    from ...read.guard import RECALL_LAYERS as _RECALL_LAYERS

    wanted = set(question.evidence)
    hits = store.search(
        question.question, user_id, k=PROBE_DEPTH, filters={"layer": list(_RECALL_LAYERS)}
    ).hits
    for rank, hit in enumerate(hits, start=1):
        if index.of(hit.record.id) & wanted:
            return rank
    return None
