"""Data types of the write path: candidates, decisions, reports and configuration.

A :class:`Candidate` is one structured statement extracted from a turn (never a free-text
summary). The gate turns each candidate into a :class:`WriteDecision` with an ``action`` and a
human-readable ``reason``; :class:`WriteReport` collects the decisions of one turn.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.records import MAX_TEXT_CHARS, Evidence, Source
from ..core.redact import PIIAction, default_pii_policy

CandidateKind = str
"""``preference | constraint | stable_fact | correction`` (storable) or anything else the LLM
extractor proposes (``event``, ``instruction``, ``chitchat``...), which the gate rejects."""

Action = Literal[
    "inserted",
    "superseded",
    "reinforced",
    "invalidated",
    "restored",
    "pending",
    "working",
    "rejected",
    "duplicate_turn",
    "skipped",
]
"""What the write path did with one candidate (``skipped``: nothing worth keeping, e.g. a
greeting, or a turn with no fact, preference or constraint; the reason says which)."""

PIIType = Literal["phone", "email", "national_id", "bank_card", "password", "api_key"]

STORABLE_KINDS = ("preference", "constraint", "stable_fact", "correction")


class Candidate(BaseModel):
    """One structured memory candidate extracted from a (redacted) turn.

    ``text`` is the redacted clause the user said (verbatim evidence, never a paraphrase);
    ``subject/predicate/object`` are normalised so that one fact stated differently maps to
    the same ``(subject, predicate)``.
    """

    model_config = ConfigDict(extra="forbid")

    subject: str
    predicate: str
    object: str
    text: str
    kind: CandidateKind = "stable_fact"
    confidence: float = 0.9
    evidence: Evidence = Field(default_factory=Evidence)
    scope_level: Literal["user", "project"] = "user"
    hedged: bool = False
    one_off: bool = False
    """Meant for the current turn only ("this time", "这次"): working memory, not durable."""
    explicit: bool = False
    language: str = "en"
    source: Source = Source.USER
    extractor: Literal["rule", "classifier", "llm", "tool"] = "rule"
    """Who produced the slot: a rule, the clause classifier's generic slots
    (:mod:`langgraph_memory.write.slots`), the LLM extractor, or the agent itself through the
    ``manage_memory`` tool (:meth:`WritePipeline.remember`; ``source=tool``, ``explicit``)."""
    multi_valued: bool = False
    """True for predicates that hold several values at once (allergies, likes, must_not...):
    a new value is added next to the others instead of superseding them."""
    adds: bool = False
    """Said as an addition ("I also drink coffee now", "我还喜欢喝奶茶"): the value joins the
    stored values of its predicate instead of superseding them, even for a predicate that
    usually holds one value (set by
    :func:`~langgraph_memory.write.slot_candidates.mark_additions`)."""
    correction: bool = False
    """The user flagged this as a correction ("actually", "其实", "不是X，是Y")."""
    corrects: str | None = None
    """The value being corrected ("不是X，是Y" → ``X``), when the user named it."""
    retract: bool = False
    """"scratch that": withdraw what the previous turn stored."""
    scratch: bool = False
    """"scratch that, …" followed by a new value: the value replaces the fact it names, or,
    when it names none, what the previous user turn of the thread stored is withdrawn."""
    pii: list[str] = Field(default_factory=list)
    """PII types found (and already redacted) in ``text``."""
    refused_pii: list[str] = Field(default_factory=list)
    """PII types in ``text`` whose policy is ``refuse``: the candidate must not be stored."""
    vetoed: str | None = None
    """Why the clause classifier judged the candidate's clause not worth remembering (chit-chat,
    an event, a question, a one-off request); the gate rejects a vetoed candidate."""
    injection: str | None = None
    """Why the turn looks like a prompt-injection / privilege-escalation attempt, if it does."""
    episode_id: str | None = None
    """The conversation episode the candidate's turn was kept as (set by the pipeline, stored
    as ``metadata["episode_id"]``): recall lets that episode stand for a fact that only
    restates it (see :func:`langgraph_memory.read.conversation.restated_episode`)."""
    said_at: datetime | None = None
    """When the candidate's turn was said, if the caller said so (dated or imported history;
    set by the pipeline): the fact is dated by it (``created_at``, ``valid_from``), on the
    same clock as its turn's episode. ``None``: dated when stored."""

    @field_validator("confidence")
    @classmethod
    def _confidence_range(cls, value: float) -> float:
        return min(1.0, max(0.0, float(value)))

    def key(self) -> tuple[str, str, str]:
        """The normalised ``(subject, predicate, object)`` triple."""
        return (self.subject, self.predicate, self.object)


class WriteDecision(BaseModel):
    """What happened to one candidate, and why."""

    model_config = ConfigDict(extra="forbid")

    action: Action
    reason: str
    candidate: Candidate
    record_id: str | None = None
    previous_id: str | None = None
    """The record this decision superseded, invalidated or reinforced, when there is one."""
    pending_id: str | None = None
    """Id of the pending entry (see :meth:`WritePipeline.confirm`), for ``pending`` decisions."""


class WriteReport(BaseModel):
    """The outcome of :meth:`WritePipeline.process_turn` for one turn."""

    model_config = ConfigDict(extra="forbid")

    turn_key: str
    decisions: list[WriteDecision] = Field(default_factory=list)
    redacted_text: str = ""
    pii_found: list[str] = Field(default_factory=list)
    episode: WriteDecision | None = None
    """What happened to the turn's conversation episode (``inserted``, ``reinforced``,
    ``duplicate_turn`` or ``skipped`` with the noise reason); ``None`` when episodes are off
    or the turn was queued. Episodes are not facts: ``decisions``, ``written_ids`` and
    ``wrote`` speak only of semantic memory."""
    truncated_from: int | None = None
    """The turn's length when it was longer than ``WriteConfig.max_turn_chars`` and only its
    first ``max_turn_chars`` characters were processed; ``None`` when it was processed whole."""
    queued: str | None = None
    """Journal entry id when a :class:`~langgraph_memory.write.BackgroundWriter` accepted the
    turn for later processing (then ``decisions`` is empty; see ``BackgroundWriter.reports``)."""
    llm_pass: Literal["deferred", "ran", "failed"] | None = None
    """The deferred LLM pass of a :class:`~langgraph_memory.write.BackgroundWriter` with
    ``defer_llm=True``: ``deferred`` (rules and episode written, the model reads the turn once
    its thread is quiet), ``ran`` (its decisions are in ``decisions``, ``extractor="llm"``),
    ``failed`` (the model kept failing; the rule results stand). ``None``: no deferred pass."""

    @property
    def written_ids(self) -> list[str]:
        """Ids of records inserted, superseding, restored or reinforced by this turn."""
        return [
            d.record_id
            for d in self.decisions
            if d.record_id and d.action in {"inserted", "superseded", "reinforced", "restored"}
        ]

    @property
    def pending(self) -> list[WriteDecision]:
        """Decisions waiting for confirmation or repetition."""
        return [d for d in self.decisions if d.action == "pending"]

    @property
    def working(self) -> list[Candidate]:
        """Candidates that belong to working memory only (hedged or tentative)."""
        return [d.candidate for d in self.decisions if d.action == "working"]

    @property
    def rejected(self) -> list[WriteDecision]:
        """Decisions that stored nothing because a gate refused the candidate."""
        return [d for d in self.decisions if d.action == "rejected"]

    @property
    def wrote(self) -> bool:
        """True when this turn changed semantic memory."""
        return any(
            d.action in {"inserted", "superseded", "reinforced", "restored", "invalidated"}
            for d in self.decisions
        )


class WriteConfig(BaseModel):
    """Thresholds and policies of the write path."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_confidence: float = Field(0.8, ge=0.0, le=1.0)
    allowed_kinds: tuple[str, ...] = STORABLE_KINDS
    allowed_sources: tuple[Source, ...] = (Source.USER, Source.IMPORT)
    allow_agent_writes: bool = True
    """Accept what the agent chose to remember through the ``manage_memory`` tool
    (:meth:`WritePipeline.remember`: ``source=tool``, ``extractor="tool"``); every other gate
    still applies. ``False``: such writes are rejected by the source gate."""
    preference_repeats: int = Field(2, ge=1, description="turns an implicit preference needs")
    project_needs_confirmation: bool = True
    pii_policy: dict[str, PIIAction] = Field(default_factory=default_pii_policy)
    hash_salt: str = "langgraph-memory"
    """Salt of the ``hash`` PII policy (set a secret per deployment)."""
    llm_mode: Literal["fallback", "always", "off"] = "fallback"
    """When the optional LLM extractor runs: only for turns the rules found nothing in
    (``fallback``), for every turn (``always``), or never."""
    max_conflict_retries: int = Field(5, ge=1)
    serialize_writes: bool = True
    """Process one user's turns one at a time inside this process: one re-entrant lock per
    ``(store, user_id)`` — not per fact — shared by every pipeline over that store, held for
    the whole turn (ledger read, extraction, episode, gates, resolve, ledger write); turns
    of different users run in parallel (:mod:`~langgraph_memory.write.locks`). Writes from
    other processes are still merged through ``expected_version``."""
    importance: int = Field(6, ge=1, le=10)
    max_candidates: int = Field(
        20, ge=1, description="candidates considered per turn (a pasted document yields many)"
    )
    max_text_chars: int = Field(
        2000, ge=50, description="longest clause kept as a record's text (the rest is cut)"
    )
    keep_episodes: bool = True
    """Keep every meaningful turn (user and assistant) as a conversation episode (see
    :mod:`langgraph_memory.write.conversation`)."""
    episode_max_chars: int = Field(
        4000, ge=50, description="longest turn text kept in an episode (the rest is cut)"
    )
    episode_importance: int = Field(5, ge=1, le=10)
    use_classifier: bool = True
    """Review rule candidates and extract what no rule understood with the clause classifier
    (:mod:`langgraph_memory.write.decide`); ``False``: rules (and the LLM extractor) only."""
    max_turn_chars: int = Field(
        MAX_TEXT_CHARS,
        ge=50,
        description="longest turn processed; a longer turn is cut to this length for "
        "redaction and extraction (WriteReport.truncated_from says so) instead of raising",
    )

    @field_validator("pii_policy")
    @classmethod
    def _complete_policy(cls, value: dict[str, PIIAction]) -> dict[str, PIIAction]:
        merged = {**default_pii_policy(), **value}
        unknown = set(merged) - set(default_pii_policy())
        if unknown:
            raise ValueError(f"unknown PII types in pii_policy: {sorted(unknown)}")
        bad = {k: v for k, v in merged.items() if v not in ("redact", "hash", "refuse")}
        if bad:
            raise ValueError(f"pii_policy actions must be redact, hash or refuse: {bad}")
        return merged


__all__ = [
    "STORABLE_KINDS",
    "Action",
    "Candidate",
    "PIIAction",
    "PIIType",
    "WriteConfig",
    "WriteDecision",
    "WriteReport",
]
