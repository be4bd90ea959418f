"""The write path: redact → episode → extract → gate → resolve → persist → log.

:class:`WritePipeline` is what ``save_memory`` calls for each user turn::

    pipeline = WritePipeline(store)
    report = pipeline.process_turn("以后都用中文回答", scope=Scope(user_id="alice"),
                                   turn_id="t1", thread_id="th1")
    [d.action for d in report.decisions]      # ['inserted']

Guarantees:

* PII is redacted (per :class:`WriteConfig.pii_policy`) before anything else, so no raw PII
  value reaches an episode, a candidate, a record, a log line or the LLM extractor.
* Every meaningful turn (user or assistant) is kept as a conversation episode
  (:mod:`~langgraph_memory.write.conversation`); greetings, acknowledgements, empty turns and
  turns that try to instruct the assistant are not, and ``report.episode`` says why.
* Every candidate gets a :class:`WriteDecision` with a reason; each decision is logged on
  ``langgraph_memory.write`` with structured ``extra`` (never the raw turn text).
* Idempotence: a turn is identified by ``(thread_id, turn_id)``. A turn already processed is
  answered with ``duplicate_turn`` decisions and writes nothing, also from a new pipeline on
  the same store: processed turns are kept in a small ledger stored in the memory store itself
  (records with subject ``__write_ledger__``, layer ``working``, status ``archived`` and an
  empty validity window in 1970, so recall, ``list()`` of current memory and ``as_of`` never
  see them; ``delete_user`` removes them with the user). Every meaningful turn gets an entry
  (also one that decided nothing: the entries give each thread's turn order, so "scratch
  that" withdraws what the previous user turn stored); small talk that decided nothing gets
  none unless an LLM extractor is configured. Records also carry the turn keys that
  wrote or reinforced them, so a replay after a crash between a write and its ledger entry
  reinforces nothing twice.
* Pending items (implicit preferences waiting for repetition, project facts waiting for
  confirmation) are kept in the same ledger; :meth:`WritePipeline.pending_items` lists them
  and :meth:`WritePipeline.confirm` writes one (e.g. after a LangGraph ``interrupt``).
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import weakref
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.store.base import BaseStore

from ..context.tokens import message_text
from ..core.logsafe import error_kind, get_logger, scrub_text
from ..core.records import (
    LEDGER_SUBJECT,
    Evidence,
    Kind,
    Layer,
    MemoryRecord,
    Source,
    Status,
    utcnow,
)
from ..core.scope import Scope
from ..core.text import detect_language
from ..errors import (
    ConfigError,
    RecordNotFound,
    RecordValidationError,
    ScopeError,
    VersionConflict,
)
from ..store.memory_store import MemoryStore
from .classify import ClauseClassifier, default_classifier
from .conversation import (
    PREDICATE_BY_ROLE,
    EpisodeTurn,
    Role,
    build_episode,
    coerce_time,
    episode_id,
    episode_subject,
    find_repeat,
    noise_reason,
    normal_text,
    turn_time,
    write_episode,
)
from .decide import ClauseVerdict, apply_classifier, describe
from .extract.injection import detect_injection
from .extract.llm import LLMExtractor
from .extract.llm_schema import StructuredChatModel
from .extract.one_off import mark_task_bound
from .extract.rule_extractor import RuleExtractor
from .gate import GateResult, WriteGate
from .redact import PLACEHOLDERS, Redactor
from .resolve import Resolver, norm_value
from .types import Candidate, WriteConfig, WriteDecision, WriteReport

log = get_logger("write")

EPOCH0 = datetime(1970, 1, 1, tzinfo=UTC)

MODEL_REPLY = (
    "source=model: an assistant reply is kept as an episode of the conversation, not a user fact"
)
NOTHING_TO_REMEMBER = "nothing to remember: no fact, preference or constraint in this turn"

_LOCKS: weakref.WeakKeyDictionary[Any, dict[str, threading.RLock]] = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def _user_lock(store: MemoryStore, user_id: str) -> threading.RLock:
    with _LOCKS_GUARD:
        table = _LOCKS.setdefault(store, {})
        return table.setdefault(user_id, threading.RLock())


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def turn_key_of(thread_id: str | None, turn_id: str | None) -> str | None:
    """The idempotence key of a turn, or None without a ``turn_id``."""
    if not turn_id:
        return None
    return f"{thread_id or '-'}:{turn_id}"


REFUSED_TEXT = "[withheld: the clause held a secret whose PII policy is refuse]"
"""What the write ledger keeps of a candidate whose clause held a refused secret."""


def _ledger_candidate(candidate: Candidate) -> dict[str, Any]:
    """The candidate as the ledger keeps it: nothing of a clause that held a refused secret
    (not even its redacted text) is stored."""
    if candidate.refused_pii:
        candidate = candidate.model_copy(update={"text": REFUSED_TEXT, "object": ""})
    return candidate.model_dump(mode="json")


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


class WritePipeline:
    """Decides what a turn adds to long-term memory and writes it (see module docstring).

    ``llm_extractor`` may be an :class:`~langgraph_memory.write.extract.LLMExtractor` or any
    chat model supporting ``with_structured_output`` (it is wrapped); anything else raises
    :class:`~langgraph_memory.errors.ConfigError`. ``config.llm_mode`` says when it runs
    (``fallback``: turns the rules found nothing in; ``always``; ``off``)::

        pipeline = WritePipeline(store, WriteConfig(llm_mode="fallback"),
                                 llm_extractor=init_chat_model("openai:gpt-4o-mini"))

    To keep the model call off the turn, put the pipeline behind a
    :class:`~langgraph_memory.write.BackgroundWriter` with ``defer_llm=True``.
    """

    def __init__(
        self,
        store: MemoryStore | BaseStore,
        config: WriteConfig | None = None,
        llm_extractor: StructuredChatModel | LLMExtractor | None = None,
        classifier: ClauseClassifier | None = None,
    ) -> None:
        inner = getattr(store, "store", None)
        if not isinstance(store, MemoryStore) and isinstance(inner, MemoryStore):
            store = inner  # a LangGraphMemoryStore adapter: write to the memory store it wraps
        if not isinstance(store, MemoryStore):
            raise ConfigError(
                f"WritePipeline needs a MemoryStore (or an adapter wrapping one), got "
                f"{type(store).__name__}"
            )
        if config is not None and not isinstance(config, WriteConfig):
            raise ConfigError(f"config must be a WriteConfig, got {type(config).__name__}")
        self.store = store
        self.config = config or WriteConfig()
        self.redactor = Redactor(self.config.pii_policy, salt=self.config.hash_salt)
        self.extractor = RuleExtractor()
        if llm_extractor is not None and not isinstance(llm_extractor, LLMExtractor):
            llm_extractor = LLMExtractor(llm_extractor)
        self.llm_extractor: LLMExtractor | None = llm_extractor
        self.classifier: ClauseClassifier | None = None
        if self.config.use_classifier:
            self.classifier = classifier or default_classifier()
            self.classifier.use_embedder(store.embedder)
        self.gate = WriteGate(self.config)
        self.resolver = Resolver(store, self.config)

    # ------------------------------------------------------------------ public API
    def _bounded_turn(self, text: str, scope: Scope, key: str | None) -> tuple[str, int | None]:
        """``text`` cut to ``config.max_turn_chars`` (and its original length when cut)."""
        limit = self.config.max_turn_chars
        if len(text) <= limit:
            return text, None
        log.warning(
            "turn truncated for memory extraction",
            extra={
                "event": "turn_truncated",
                "user_id": scope.user_id,
                "turn_key": key,
                "chars": len(text),
                "limit": limit,
            },
        )
        return text[:limit], len(text)

    def process_turn(
        self,
        text: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        turn_id: str | None,
        message_id: str | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        source: Source | str = Source.USER,
        task_id: str | None = None,
        confirmed: bool = False,
        said_at: datetime | str | None = None,
        previous_turn: str | None = None,
        seq: int | None = None,
    ) -> WriteReport:
        """Keep the turn as an episode, then extract, gate and resolve its facts; return every
        decision with its reason.

        ``source="model"`` marks an assistant reply: it is kept as an episode (so "what did you
        recommend last time?" can be answered) and never mined for user facts. ``said_at`` is
        when the turn was said (default: now; give it when importing history);
        ``previous_turn`` is the previous meaningful turn of the thread, indexed as the
        episode's context; ``seq`` orders turns of a thread that share a timestamp.

        Processing the same ``(thread_id, turn_id)`` again writes nothing (``duplicate_turn``),
        except that ``confirmed=True`` on an already-processed turn confirms the project-level
        facts that turn left pending. A turn with nothing worth remembering gets one
        ``skipped`` decision saying so.

        A turn longer than ``config.max_turn_chars`` does not raise: its first
        ``max_turn_chars`` characters are processed, a warning is logged and
        ``report.truncated_from`` holds the original length.
        """
        return self._process(
            text,
            scope=scope,
            turn_id=turn_id,
            message_id=message_id,
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
            source=source,
            task_id=task_id,
            confirmed=confirmed,
            said_at=said_at,
            previous_turn=previous_turn,
            seq=seq,
            with_episode=self.config.keep_episodes,
        )

    def _process(
        self,
        text: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        turn_id: str | None,
        message_id: str | None,
        thread_id: str | None,
        checkpoint_id: str | None,
        source: Source | str,
        task_id: str | None,
        confirmed: bool,
        said_at: datetime | str | None,
        previous_turn: str | None,
        seq: int | None,
        with_episode: bool,
    ) -> WriteReport:
        sc = _scope(scope)
        src = Source(source)
        key = turn_key_of(thread_id, turn_id)
        raw, truncated_from = self._bounded_turn(text or "", sc, key)
        redaction = self.redactor.redact(raw)
        report = WriteReport(
            turn_key=key or "-",
            redacted_text=redaction.text,
            pii_found=redaction.types,
            truncated_from=truncated_from,
        )
        evidence = Evidence(
            turn_ids=[turn_id] if turn_id else [],
            message_ids=[message_id] if message_id else [],
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )
        lock = _user_lock(self.store, sc.user_id) if self.config.serialize_writes else _NoLock()
        pii, refused = self._pii_types(redaction.text, redaction.types, redaction.refused)
        with lock:
            # reads and extraction first (they do not depend on the episode), so that the
            # episode and the facts the turn will likely write are embedded in one model call
            entry = (
                self._ledger_entry(sc, key) if key is not None and src is not Source.MODEL else None
            )
            candidates: list[Candidate] = []
            verdicts: list[ClauseVerdict] = []
            if src is not Source.MODEL and entry is None:
                candidates, verdicts = self._extract(redaction.text, evidence, src, pii, refused)
                candidates = mark_task_bound(redaction.text, candidates)
                candidates = self._bound(candidates, sc, key)
            facts = self._fact_texts(candidates, sc)
            if with_episode and turn_id:
                report.episode = self._episode(
                    sc,
                    redaction.text,
                    evidence,
                    src,
                    said_at=coerce_time(said_at),
                    previous=self.redactor.redact(previous_turn).text if previous_turn else None,
                    seq=seq,
                    task_id=task_id,
                    key=key or "-",
                    refused=bool(refused),
                    also_embed=facts,
                )
            elif len(facts) > 1:
                self.store.prefetch_embeddings(facts)
            if src is Source.MODEL:  # a reply is an episode, never a user fact
                report.decisions.append(self._model_reply(redaction.text, evidence))
                _log_plain(report.decisions[0], sc, key or "-", task_id=task_id)
                return report
            if entry is not None and key is not None:
                return self._replay(
                    entry, sc, key, report, confirmed=confirmed, thread_id=thread_id
                )
            kept_as = report.episode.record_id if report.episode is not None else None
            if kept_as:
                candidates = [c.model_copy(update={"episode_id": kept_as}) for c in candidates]
            if said_at is not None:
                when = coerce_time(said_at)
                candidates = [c.model_copy(update={"said_at": when}) for c in candidates]
            for index, candidate in enumerate(candidates):
                report.decisions.extend(
                    self._decide(
                        candidate,
                        sc,
                        key or "-",
                        confirmed=confirmed,
                        thread_id=thread_id,
                        task_id=task_id,
                        index=index,
                    )
                )
            # Every meaningful turn gets a ledger entry: it marks the turn's place in its
            # thread (a correction withdraws what the previous turn stored) and, with an LLM
            # extractor, keeps a replay from asking the model twice. Small talk that decided
            # nothing needs none: replaying it decides nothing again.
            if key is not None and (
                report.decisions
                or self.llm_extractor is not None
                or noise_reason(redaction.text) is None
            ):
                self._write_ledger(sc, key, report, task_id=task_id, thread_id=thread_id)
            self._mark_outdated_episodes(sc, report.decisions)
            if not report.decisions:
                report.decisions.append(
                    self._nothing(redaction.text, evidence, src, verdicts=verdicts)
                )
                _log_plain(report.decisions[0], sc, key or "-", task_id=task_id)
        return report

    def _episode_gate(self, text: str, refused: bool) -> str | None:
        """Why a turn is not kept as an episode (``None``: keep it)."""
        if refused:
            return "not kept: the turn holds a secret whose policy is refuse"
        injection = detect_injection(text)
        if injection is not None:
            return f"not kept: the turn tries to instruct the assistant ({injection})"
        return noise_reason(text)

    def _episode_candidate(
        self, text: str, evidence: Evidence, source: Source, role: Role
    ) -> Candidate:
        return Candidate(
            subject=episode_subject(evidence.thread_id),
            predicate=PREDICATE_BY_ROLE[role],
            object="",
            text=text[: self.config.episode_max_chars] or "-",
            kind="episode",
            evidence=evidence,
            source=source,
        )

    def _build_episode(self, scope: Scope, turn: EpisodeTurn, *, imported: bool) -> MemoryRecord:
        """The episode record of ``turn`` under this pipeline's episode settings."""
        return build_episode(
            scope,
            turn,
            max_chars=self.config.episode_max_chars,
            importance=self.config.episode_importance,
            imported=imported,
        )

    def _episode_write(
        self, scope: Scope, record: MemoryRecord, candidate: Candidate
    ) -> WriteDecision:
        """Write one episode (insert / reinforce / duplicate), or say why it was refused."""
        try:
            outcome = write_episode(self.store, scope, record)
        except RecordValidationError as exc:  # e.g. dated history past its TTL: say so
            log.warning(
                "episode not kept: %s",
                scrub_text(str(exc)),
                extra={"event": "episode_rejected", "error": error_kind(exc)},
            )
            return WriteDecision(
                action="rejected", reason=f"episode not kept: {exc}", candidate=candidate
            )
        return WriteDecision(
            action=outcome.action,
            reason=outcome.reason,
            candidate=candidate,
            record_id=outcome.record_id,
        )

    def _episode(
        self,
        scope: Scope,
        text: str,
        evidence: Evidence,
        source: Source,
        *,
        said_at: datetime | None,
        previous: str | None,
        seq: int | None,
        task_id: str | None,
        key: str,
        refused: bool,
        also_embed: Sequence[str] = (),
    ) -> WriteDecision:
        """Keep the (redacted) turn as a conversation episode, unless a gate says no.
        ``also_embed``: texts the turn will likely write next, embedded in the same model
        call as the episode (see :meth:`MemoryStore.prefetch_embeddings`)."""
        role: Role = "assistant" if source is Source.MODEL else "user"
        candidate = self._episode_candidate(text, evidence, source, role)
        reason = self._episode_gate(text, refused)
        if reason is not None:
            decision = WriteDecision(action="skipped", reason=reason, candidate=candidate)
        else:
            turn = EpisodeTurn(
                text=text,
                turn_id=(evidence.turn_ids or ["-"])[0],
                role=role,
                thread_id=evidence.thread_id,
                message_id=evidence.message_ids[0] if evidence.message_ids else None,
                checkpoint_id=evidence.checkpoint_id,
                said_at=said_at,
                previous=previous,
                task_id=task_id,
                seq=seq,
            )
            record = self._build_episode(scope, turn, imported=source is Source.IMPORT)
            if also_embed:  # alone, the episode is embedded only if it is written (not a repeat)
                self.store.prefetch_embeddings([record.index_text(), *also_embed])
            decision = self._episode_write(scope, record, candidate)
        if reason is not None and len(also_embed) > 1:
            self.store.prefetch_embeddings(also_embed)
        _log_plain(decision, scope, key, task_id=task_id)
        return decision

    def _fact_texts(self, candidates: Sequence[Candidate], scope: Scope) -> list[str]:
        """The texts the records of ``candidates`` would be indexed by if written as new
        facts (a guess: the resolver may reinforce, move or reject them; a wrong guess only
        costs an embedding, never changes a result)."""
        out: list[str] = []
        for c in candidates:
            if c.kind == "episode" or not c.text:
                continue
            try:
                out.append(self.resolver.new_record(c, scope, "-").index_text())
            except ValueError:  # an invalid record (pydantic's error is one): no guess
                continue
        return out

    def _mark_outdated_episodes(self, scope: Scope, decisions: list[WriteDecision]) -> None:
        """When a fact was superseded or invalidated, mark the episodes of the turns that had
        stated it (``metadata["outdated_by"]``): recall still shows what was said, labelled
        as changed later, so the model does not take an old value for the current one."""
        for d in decisions:
            if d.action not in {"superseded", "invalidated"} or not d.previous_id:
                continue
            try:
                old = self.store.get(d.previous_id, scope=scope)
            except RecordNotFound:
                continue
            for turn_id in old.evidence.turn_ids:
                eid = episode_id(scope, old.evidence.thread_id, turn_id)
                try:
                    ep = self.store.get(eid, scope=scope)
                    self.store.update(
                        eid,
                        scope=scope,
                        expected_version=ep.version,
                        metadata={**ep.metadata, "outdated_by": d.record_id or d.previous_id},
                    )
                except (RecordNotFound, VersionConflict):
                    continue

    @staticmethod
    def _model_reply(text: str, evidence: Evidence) -> WriteDecision:
        return WriteDecision(
            action="rejected",
            reason=MODEL_REPLY,
            candidate=Candidate(
                subject="",
                predicate="",
                object="",
                text=text[:200] or "-",
                kind="none",
                evidence=evidence,
                source=Source.MODEL,
            ),
        )

    @staticmethod
    def _nothing(
        text: str,
        evidence: Evidence,
        source: Source,
        *,
        verdicts: Sequence[ClauseVerdict] = (),
    ) -> WriteDecision:
        reason = NOTHING_TO_REMEMBER
        if verdicts:
            reason += "; the classifier read " + ", ".join(
                describe(v.prediction) for v in verdicts[:3]
            )
        return WriteDecision(
            action="skipped",
            reason=reason,
            candidate=Candidate(
                subject="",
                predicate="",
                object="",
                text=text[:200] or "-",
                kind="none",
                evidence=evidence,
                source=source,
            ),
        )

    async def aprocess_turn(
        self,
        text: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        turn_id: str | None,
        message_id: str | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        source: Source | str = Source.USER,
        task_id: str | None = None,
        confirmed: bool = False,
        said_at: datetime | str | None = None,
        previous_turn: str | None = None,
        seq: int | None = None,
    ) -> WriteReport:
        """Async :meth:`process_turn` (runs in a worker thread; the store is synchronous)."""
        return await asyncio.to_thread(
            self.process_turn,
            text,
            scope=scope,
            turn_id=turn_id,
            message_id=message_id,
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
            source=source,
            task_id=task_id,
            confirmed=confirmed,
            said_at=said_at,
            previous_turn=previous_turn,
            seq=seq,
        )

    def remember(
        self,
        text: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        turn_id: str,
        kind: str = "stable_fact",
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        task_id: str | None = None,
        confirmed: bool = False,
        replaces: str | None = None,
    ) -> WriteReport:
        """Write what the agent chose to remember (the ``manage_memory`` tool): an explicit
        write, so no repetition is needed, but every other gate applies (refused PII,
        injection / permission widening, kind, confidence, redacted identifiers, project
        confirmation) and ``WriteConfig.allow_agent_writes`` can turn it off.

        ``text`` is redacted first; the ``(subject, predicate, object)`` come from the generic
        slots of the clause read as ``kind`` (``note`` with the words when no slot fits), so a
        new value supersedes the old one as when the user said it. The record is
        ``source=tool``, ``metadata["extractor"] == "tool"``, with ``turn_id`` (the tool call
        id) and ``thread_id`` as its evidence. ``replaces``: the id of a record of this scope
        that the new text supersedes (raises :class:`~langgraph_memory.errors.RecordNotFound`
        when the scope has no such record). Idempotent per ``(thread_id, turn_id)``.
        """
        from .slots.dispatch import slot_for

        sc = _scope(scope)
        key = turn_key_of(thread_id, turn_id) or "-"
        raw, _ = self._bounded_turn(text or "", sc, key)
        redaction = self.redactor.redact(" ".join(raw.split()))
        report = WriteReport(turn_key=key, redacted_text=redaction.text, pii_found=redaction.types)
        pii, refused = self._pii_types(redaction.text, redaction.types, redaction.refused)
        evidence = Evidence(turn_ids=[turn_id], thread_id=thread_id, checkpoint_id=checkpoint_id)
        old = self.store.get(replaces, scope=sc) if replaces else None
        clause = redaction.text[: self.config.max_text_chars]
        slots = slot_for(kind, clause)
        subject, predicate, obj = (
            (slots[0].subject, slots[0].predicate, slots[0].object)
            if slots
            else ("user", "note", clause)
        )
        multi = bool(slots and slots[0].multi_valued) or not slots
        if old is not None:
            subject, predicate = old.subject or subject, old.predicate or predicate
            multi = False
        candidate = Candidate(
            subject=subject,
            predicate=predicate,
            object=obj or clause,
            text=clause or "-",
            kind=kind,
            confidence=1.0,
            evidence=evidence,
            explicit=True,
            language=detect_language(clause),
            source=Source.TOOL,
            extractor="tool",
            multi_valued=multi,
            pii=pii,
            refused_pii=refused,
            injection=detect_injection(clause),
        )
        lock = _user_lock(self.store, sc.user_id) if self.config.serialize_writes else _NoLock()
        with lock:
            if old is None:
                report.decisions.extend(
                    self._decide(
                        candidate,
                        sc,
                        key,
                        confirmed=confirmed,
                        thread_id=thread_id,
                        task_id=task_id,
                        index=0,
                    )
                )
                return report
            result = self.gate.check(candidate, scope=sc, confirmed=confirmed)
            if result.verdict != "write":
                decision = WriteDecision(
                    action=result.verdict, reason=result.reason, candidate=candidate
                )
            else:
                record = self.resolver.new_record(
                    candidate, sc, f"{key}#0", kind=old.kind, extra_meta={"supersedes": old.id}
                )
                new = self.store.supersede(old.id, record, scope=sc, expected_version=old.version)
                decision = WriteDecision(
                    action="superseded",
                    reason=f"{result.reason}; the agent replaced record {old.id}",
                    candidate=candidate,
                    record_id=new.id,
                    previous_id=old.id,
                )
            _log_decision(decision, sc, key, result, task_id=task_id)
            report.decisions.append(decision)
        return report

    async def aremember(
        self,
        text: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        turn_id: str,
        kind: str = "stable_fact",
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        task_id: str | None = None,
        confirmed: bool = False,
        replaces: str | None = None,
    ) -> WriteReport:
        """Async :meth:`remember` (runs in a worker thread; the store is synchronous)."""
        return await asyncio.to_thread(
            self.remember,
            text,
            scope=scope,
            turn_id=turn_id,
            kind=kind,
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
            task_id=task_id,
            confirmed=confirmed,
            replaces=replaces,
        )

    def import_conversation(
        self,
        turns: Sequence[ImportTurn],
        *,
        scope: Scope | Mapping[str, Any] | str,
        thread_id: str,
        extract_facts: bool = True,
        batch_size: int = 64,
    ) -> list[WriteReport]:
        """Bring an existing conversation into memory through the same write path.

        ``turns`` are LangChain messages (``HumanMessage`` = user, ``AIMessage`` = assistant;
        the time said from ``additional_kwargs["timestamp"]``) or mappings with ``role``
        (``user``/``assistant``), ``content`` (or ``text``), optional ``timestamp`` (ISO-8601,
        epoch seconds or a datetime) and ``id``. Every turn is redacted and passes the same
        noise, injection and PII gates as a live turn; episodes are embedded and stored in
        batches of ``batch_size`` with the time each turn was said (so recency and ``as_of``
        count from then), and, with ``extract_facts``, each user turn then goes through fact
        extraction, gates and resolve exactly like :meth:`process_turn`. Importing the same
        turns again stores nothing twice. Returns one report per turn, in order.

        An episode the lifecycle policy would expire on arrival (history older than a
        configured ``conversation_ttl_days``) is not stored and its report says so.
        """
        if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
            raise ConfigError("import_conversation needs a sequence of messages or mappings")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")
        sc = _scope(scope)
        parsed = [_import_turn(t, i) for i, t in enumerate(turns)]
        reports: list[WriteReport] = []
        pending: list[tuple[WriteReport, MemoryRecord]] = []
        previous: str | None = None
        batch_texts: set[tuple[str, str]] = set()
        for index, (role, text, said_at, turn_id) in enumerate(parsed):
            src = Source.MODEL if role == "assistant" else Source.IMPORT
            key = turn_key_of(thread_id, turn_id)
            raw, truncated_from = self._bounded_turn(text, sc, key)
            redaction = self.redactor.redact(raw)
            report = WriteReport(
                turn_key=key or "-",
                redacted_text=redaction.text,
                pii_found=redaction.types,
                truncated_from=truncated_from,
            )
            _, refused = self._pii_types(redaction.text, redaction.types, redaction.refused)
            evidence = Evidence(turn_ids=[turn_id], message_ids=[turn_id], thread_id=thread_id)
            turn = EpisodeTurn(
                text=redaction.text,
                turn_id=turn_id,
                role=role,
                thread_id=thread_id,
                message_id=turn_id,
                said_at=said_at,
                previous=previous,
                seq=index,
            )
            reason = self._episode_gate(redaction.text, bool(refused))
            candidate = self._episode_candidate(redaction.text, evidence, src, role)
            if reason is not None:
                report.episode = WriteDecision(action="skipped", reason=reason, candidate=candidate)
            else:
                previous = f"{role}: {redaction.text}"
                record = self._build_episode(sc, turn, imported=True)
                marker = (record.predicate or "", normal_text(record.text))
                if marker in batch_texts:  # said twice in this import: resolved in order
                    self._flush_import(sc, pending)
                    report.episode = self._episode_write(sc, record, candidate)
                else:
                    batch_texts.add(marker)
                    report.episode = WriteDecision(
                        action="inserted",
                        reason="kept as an episode of the conversation (imported)",
                        candidate=candidate,
                        record_id=record.id,
                    )
                    pending.append((report, record))
            reports.append(report)
            if len(pending) >= batch_size:
                self._flush_import(sc, pending)
        self._flush_import(sc, pending)
        if extract_facts:
            for report, (role, text, said_at, turn_id) in zip(reports, parsed, strict=True):
                if role != "user":
                    continue
                facts = self._process(
                    text,
                    scope=sc,
                    turn_id=turn_id,
                    message_id=turn_id,
                    thread_id=thread_id,
                    checkpoint_id=None,
                    source=Source.IMPORT,
                    task_id=None,
                    confirmed=False,
                    said_at=said_at,
                    previous_turn=None,
                    seq=None,
                    with_episode=False,
                )
                report.decisions = facts.decisions
        counts: dict[str, int] = {}
        for report in reports:
            if report.episode is not None:
                counts[report.episode.action] = counts.get(report.episode.action, 0) + 1
        log.info(
            "conversation imported: %d turns, episodes %s",
            len(reports),
            counts,
            extra={"event": "import", "user_id": sc.user_id, "thread_id": thread_id},
        )
        return reports

    def _flush_import(self, scope: Scope, pending: list[tuple[WriteReport, MemoryRecord]]) -> None:
        """Store a batch of imported episodes (one embedding batch); turns already kept or
        said before are resolved one by one (duplicate / reinforce)."""
        if not pending:
            return
        ids = [record.id for _, record in pending]
        known = {r.id for r in self.store.get_many(ids, scope=scope)}
        fresh: list[tuple[WriteReport, MemoryRecord]] = []
        for report, record in pending:
            assert report.episode is not None
            if record.id in known or find_repeat(self.store, scope, record) is not None:
                report.episode = self._episode_write(scope, record, report.episode.candidate)
            else:
                fresh.append((report, record))
        try:
            self.store.add_many([record for _, record in fresh], scope=scope)
        except RecordValidationError:  # one bad record: store the batch one by one, say why
            for report, record in fresh:
                assert report.episode is not None
                report.episode = self._episode_write(scope, record, report.episode.candidate)
        pending.clear()

    def pending_items(self, scope: Scope | Mapping[str, Any] | str) -> list[WriteDecision]:
        """Pending candidates of ``scope`` (waiting for confirmation or repetition), as
        ``pending`` decisions whose ``pending_id`` can be passed to :meth:`confirm`."""
        sc = _scope(scope)
        out: list[WriteDecision] = []
        for rec in self._ledger_list(sc):
            if not (rec.predicate or "").startswith("pending:") or rec.metadata.get("resolved"):
                continue
            cand = Candidate.model_validate(rec.metadata["candidate"])
            out.append(
                WriteDecision(
                    action="pending",
                    reason=str(rec.metadata.get("reason", "pending")),
                    candidate=cand,
                    pending_id=rec.id,
                )
            )
        return out

    def confirm(self, pending_id: str, *, scope: Scope | Mapping[str, Any] | str) -> WriteReport:
        """Write a pending candidate the user confirmed (all other gates still apply)."""
        sc = _scope(scope)
        rec = self.store.get(pending_id, scope=sc)
        if rec.subject != LEDGER_SUBJECT or not (rec.predicate or "").startswith("pending:"):
            raise RecordNotFound(f"{pending_id} is not a pending write")
        cand = Candidate.model_validate(rec.metadata["candidate"])
        key = str(rec.metadata.get("turn_keys", ["-"])[-1])
        report = WriteReport(turn_key=key, redacted_text=cand.text)
        if rec.metadata.get("resolved"):
            report.decisions.append(
                WriteDecision(
                    action="duplicate_turn",
                    reason="this pending write was already confirmed",
                    candidate=cand,
                    record_id=(rec.metadata["resolved"] or [None])[0],
                )
            )
            return report
        with _user_lock(self.store, sc.user_id) if self.config.serialize_writes else _NoLock():
            report.decisions.extend(
                self._decide(
                    cand,
                    sc,
                    key,
                    confirmed=True,
                    thread_id=cand.evidence.thread_id,
                    repeats=10**6,
                    pending_entry=rec,
                )
            )
        return report

    def prune_ledger(
        self, scope: Scope | Mapping[str, Any] | str, *, older_than_days: float = 30.0
    ) -> int:
        """Delete ledger entries of turns processed more than ``older_than_days`` ago (also
        the entries of deferred LLM passes), and resolved pending entries; returns how many
        were removed. A turn that old is not replayed any more (journals are drained long
        before), so its idempotence key can go. Unresolved pending items are kept."""
        sc = _scope(scope)
        cutoff = utcnow() - timedelta(days=older_than_days)
        doomed = []
        for rec in self._ledger_list(sc):
            is_turn = (rec.predicate or "").startswith(("turn:", "llm:"))
            resolved = bool(rec.metadata.get("resolved"))
            if (is_turn or resolved) and rec.updated_at <= cutoff:
                doomed.append(rec.id)
        removed = self.store.delete_many(doomed, scope=sc) if doomed else 0  # one erasure
        log.info(
            "write ledger pruned",
            extra={"event": "ledger_pruned", "user_id": sc.user_id, "count": removed},
        )
        return removed

    async def aconfirm(
        self, pending_id: str, *, scope: Scope | Mapping[str, Any] | str
    ) -> WriteReport:
        """Async :meth:`confirm`."""
        return await asyncio.to_thread(self.confirm, pending_id, scope=scope)

    # ------------------------------------------------------------------ steps
    def _bound(self, candidates: list[Candidate], scope: Scope, key: str | None) -> list[Candidate]:
        """Cap the number of candidates and the length of their text (a pasted document must
        not turn into hundreds of writes or an oversized record)."""
        limit, chars = self.config.max_candidates, self.config.max_text_chars
        unique: dict[tuple[str, str, str, str, bool], Candidate] = {}
        for c in candidates:  # one turn stating a fact twice is one statement
            unique.setdefault((*c.key(), c.kind, c.retract), c)
        candidates = list(unique.values())
        if len(candidates) > limit:
            log.warning(
                "too many memory candidates in one turn; extra ones dropped",
                extra={
                    "event": "write_candidates_capped",
                    "user_id": scope.user_id,
                    "turn_key": key,
                    "found": len(candidates),
                    "kept": limit,
                },
            )
            candidates = candidates[:limit]
        return [
            c
            if len(c.text) <= chars
            else c.model_copy(update={"text": c.text[:chars].rstrip() + "…"})
            for c in candidates
        ]

    def _pii_types(
        self, redacted: str, found: list[str], refused: list[str]
    ) -> tuple[list[str], list[str]]:
        """PII types in the turn: found now, or already redacted earlier (placeholders in text
        that went through a journal): a ``refuse`` placeholder still refuses."""
        pii = list(found)
        out_refused = list(refused)
        for kind, label in PLACEHOLDERS.items():
            if f"[{label}" in redacted:
                if kind not in pii:
                    pii.append(kind)
                if self.config.pii_policy.get(kind) == "refuse" and kind not in out_refused:
                    out_refused.append(kind)
        return pii, out_refused

    def _extract(
        self, text: str, evidence: Evidence, source: Source, pii: list[str], refused: list[str]
    ) -> tuple[list[Candidate], list[ClauseVerdict]]:
        """Rule candidates, then the LLM extractor's (per ``llm_mode``), then the clause
        classifier's review and extraction (see :mod:`langgraph_memory.write.decide`)."""
        candidates = self.extractor.extract(
            text, evidence=evidence, source=source, pii=pii, refused_pii=refused
        )
        mode = self.config.llm_mode
        llm_ran = (
            self.llm_extractor is not None
            and mode != "off"
            and (mode == "always" or not candidates)
        )
        # the LLM's facts stand in for the classifier's own extraction only when it found
        # some the user stated (grounded): an empty or ungrounded answer must not cost the
        # turn what the classifier would have extracted
        # (ungrounded LLM candidates skip the classifier: the gate rejects them with their
        # reason, and they must not hide the clause from the classifier's extraction)
        llm_found = False
        ungrounded: list[Candidate] = []
        if llm_ran:
            found = self._llm_candidates(text, evidence, source, pii, refused, candidates)
            ungrounded = [c for c in found if c.source is not source]
            candidates.extend(c for c in found if c.source is source)
            llm_found = len(ungrounded) < len(found)
        if self.classifier is None:
            return candidates + ungrounded, []
        candidates, verdicts = apply_classifier(
            text,
            candidates,
            self.classifier,
            evidence=evidence,
            source=source,
            pii=pii,
            refused=refused,
            # the extractor flagged the turn on every candidate it made (and made one when it
            # flagged a turn with no fact), so the turn's verdict is already here
            injection=next((c.injection for c in candidates if c.injection), None),
            extract=not llm_found,
        )
        for v in verdicts:
            log.debug(
                "clause classified as %s: %s",
                describe(v.prediction),
                v.action,
                extra={"event": "clause_classified", "kind": v.prediction.kind, "action": v.action},
            )
        return candidates + ungrounded, verdicts

    def _llm_candidates(
        self,
        text: str,
        evidence: Evidence,
        source: Source,
        pii: list[str],
        refused: list[str],
        found: list[Candidate],
    ) -> list[Candidate]:
        """The LLM extractor's candidates not already ``found``, with PII and injection flags
        recomputed here (the model's word is not trusted for them)."""
        assert self.llm_extractor is not None
        try:
            extra = self.llm_extractor.extract(text, evidence=evidence, source=source)
        except Exception as exc:  # the LLM is optional: never lose the rule results
            log.warning(
                "LLM extractor failed; using rule candidates only",
                extra={"event": "llm_extract_failed", "error": type(exc).__name__},
            )
            return []
        seen = {c.key() for c in found}
        labels = {t: f"[{PLACEHOLDERS[t]}" for t in PLACEHOLDERS}
        out: list[Candidate] = []
        for cand in extra:
            if cand.key() in seen:
                continue
            seen.add(cand.key())
            cand_pii = [t for t in pii if labels[t] in cand.text or labels[t] in cand.object]
            cand_refused = [
                t for t in refused if labels[t] in cand.text or labels[t] in cand.object
            ]
            out.append(
                cand.model_copy(
                    update={
                        "pii": cand_pii,
                        "refused_pii": cand_refused,
                        "injection": cand.injection or detect_injection(text),
                    }
                )
            )
        return out

    def _repeats(
        self, scope: Scope, candidate: Candidate, key: str
    ) -> tuple[int, MemoryRecord | None]:
        entry = self._pending_entry(scope, candidate)
        keys = set(entry.metadata.get("turn_keys", [])) if entry is not None else set()
        keys.add(key)
        return len(keys), entry

    def _decide(
        self,
        candidate: Candidate,
        scope: Scope,
        key: str,
        *,
        confirmed: bool,
        thread_id: str | None,
        task_id: str | None = None,
        repeats: int | None = None,
        pending_entry: MemoryRecord | None = None,
        index: int | str = "confirm",
    ) -> list[WriteDecision]:
        # records remember the write key "<turn key>#<candidate index>": a replay of the
        # turn repeats the same keys, while two candidates of one turn stay distinct
        write_key = f"{key}#{index}"
        candidate = self.resolver.locate(candidate, scope)  # "数据库换成了…": whose database
        if repeats is None:
            needs_count = (
                candidate.kind == "preference"
                and not candidate.explicit
                and not candidate.correction
            )
            repeats, pending_entry = (
                self._repeats(scope, candidate, key) if needs_count else (1, None)
            )
        if candidate.scope_level == "project" and pending_entry is None:
            pending_entry = self._pending_entry(scope, candidate)
        result = self.gate.check(candidate, scope=scope, confirmed=confirmed, repeats=repeats)
        decisions: list[WriteDecision]
        if result.verdict == "write":
            if _is_correction(candidate):
                decisions = self.resolver.correct(
                    candidate,
                    scope,
                    write_key,
                    thread_id=thread_id,
                    previous_turn=self._previous_turn(scope, thread_id, key),
                )
            else:
                decisions = [self.resolver.apply(candidate, scope, write_key)]
            decisions = [
                d.model_copy(update={"reason": f"{result.reason}; {d.reason}"})
                if d.action != "rejected"
                else d
                for d in decisions
            ]
            if pending_entry is not None:
                self._resolve_pending(scope, pending_entry, decisions)
        elif result.verdict == "pending":
            pending_id = self._save_pending(scope, candidate, key, result, pending_entry)
            decisions = [
                WriteDecision(
                    action="pending",
                    reason=result.reason,
                    candidate=candidate,
                    pending_id=pending_id,
                )
            ]
        else:
            decisions = [
                WriteDecision(action=result.verdict, reason=result.reason, candidate=candidate)
            ]
        for d in decisions:
            _log_decision(d, scope, key, result, task_id=task_id)
        return decisions

    # ------------------------------------------------------------------ ledger
    def _ledger_record(
        self, scope: Scope, predicate: str, text: str, metadata: dict[str, Any]
    ) -> MemoryRecord:
        return MemoryRecord(
            user_id=scope.user_id,
            project_id=scope.project_id,
            layer=Layer.WORKING,
            kind=Kind.EVENT,
            subject=LEDGER_SUBJECT,
            predicate=predicate,
            text=text,
            status=Status.ARCHIVED,
            valid_from=EPOCH0,
            valid_to=EPOCH0,
            importance=1,
            source=Source.IMPORT,
            metadata=metadata,
        )

    def _ledger_list(self, scope: Scope, predicate: str | None = None) -> list[MemoryRecord]:
        filters: dict[str, Any] = {"subject": LEDGER_SUBJECT, "layer": Layer.WORKING.value}
        if predicate is not None:
            filters["predicate"] = predicate
        records = self.store.list(
            scope=scope, filters=filters, current_only=False, include_internal=True
        )
        return [r for r in records if r.project_id == scope.project_id]

    def _ledger_entry(self, scope: Scope, key: str) -> MemoryRecord | None:
        found = self._ledger_list(scope, "turn:" + _hash(key))
        return found[0] if found else None

    def _write_ledger(
        self,
        scope: Scope,
        key: str,
        report: WriteReport,
        *,
        task_id: str | None,
        thread_id: str | None,
    ) -> None:
        meta = {
            "turn_key": key,
            "thread_id": thread_id,
            "task_id": task_id,
            "decisions": [
                {
                    "action": d.action,
                    "record_id": d.record_id,
                    "pending_id": d.pending_id,
                    "reason": d.reason,
                    "candidate": _ledger_candidate(d.candidate),
                }
                for d in report.decisions
            ],
        }
        self.store.add(
            self._ledger_record(
                scope, "turn:" + _hash(key), f"write ledger entry {_hash(key)}", meta
            ),
            scope=scope,
        )

    def _previous_turn(self, scope: Scope, thread_id: str | None, key: str) -> str | None:
        """The key of the user turn before ``key`` in ``thread_id``: the latest turn of the
        thread in the ledger that came before ``key`` (before ``key``'s own entry when it
        has one, e.g. a pending write confirmed later); None when there is none."""
        prefix = f"{thread_id or '-'}:"

        def in_thread(rec: MemoryRecord) -> bool:
            if "thread_id" in rec.metadata:
                return bool(rec.metadata["thread_id"] == thread_id)
            return str(rec.metadata.get("turn_key", "")).startswith(prefix)

        entries = sorted(
            (
                r
                for r in self._ledger_list(scope)
                if (r.predicate or "").startswith("turn:") and in_thread(r)
            ),
            key=lambda r: (r.created_at, r.id),
        )
        keys = [str(r.metadata.get("turn_key")) for r in entries]
        if key in keys:
            keys = keys[: keys.index(key)]
        return keys[-1] if keys else None

    def _pending_predicate(self, candidate: Candidate) -> str:
        ident = "|".join(
            (
                candidate.scope_level,
                candidate.subject,
                candidate.predicate,
                norm_value(candidate.object),
            )
        )
        return "pending:" + _hash(ident)

    def _pending_entry(self, scope: Scope, candidate: Candidate) -> MemoryRecord | None:
        found = [
            r
            for r in self._ledger_list(scope, self._pending_predicate(candidate))
            if not r.metadata.get("resolved")
        ]
        return found[0] if found else None

    def _save_pending(
        self,
        scope: Scope,
        candidate: Candidate,
        key: str,
        result: GateResult,
        entry: MemoryRecord | None,
    ) -> str:
        if entry is None:
            record = self._ledger_record(
                scope,
                self._pending_predicate(candidate),
                f"pending write {self._pending_predicate(candidate)[8:]}",
                {
                    "candidate": candidate.model_dump(mode="json"),
                    "turn_keys": [key],
                    "needs": result.needs,
                    "reason": result.reason,
                },
            )
            return self.store.add(record, scope=scope)
        keys = list(entry.metadata.get("turn_keys", []))
        if key not in keys:
            keys.append(key)
        try:
            self.store.update(
                entry.id,
                scope=scope,
                expected_version=entry.version,
                metadata={**entry.metadata, "turn_keys": keys[-20:], "reason": result.reason},
            )
        except (
            Exception
        ) as exc:  # a concurrent update of the same pending entry: both are pending anyway
            log.info(
                "pending entry update skipped",
                extra={"event": "pending_conflict", "error": type(exc).__name__},
            )
        return entry.id

    def _resolve_pending(
        self, scope: Scope, entry: MemoryRecord, decisions: list[WriteDecision]
    ) -> None:
        try:
            fresh = self.store.get(entry.id, scope=scope)
            self.store.update(
                fresh.id,
                scope=scope,
                expected_version=fresh.version,
                metadata={**fresh.metadata, "resolved": [d.record_id for d in decisions]},
            )
        except Exception as exc:
            log.info(
                "pending entry not marked resolved",
                extra={"event": "pending_conflict", "error": type(exc).__name__},
            )

    def _replay(
        self,
        entry: MemoryRecord,
        scope: Scope,
        key: str,
        report: WriteReport,
        *,
        confirmed: bool,
        thread_id: str | None,
    ) -> WriteReport:
        decisions: list[WriteDecision] = []
        for item in entry.metadata.get("decisions", []):
            cand = Candidate.model_validate(item["candidate"])
            if (
                confirmed
                and item["action"] == "pending"
                and item.get("pending_id")
                and cand.scope_level == "project"
            ):
                try:
                    decisions.extend(self.confirm(item["pending_id"], scope=scope).decisions)
                    continue
                except RecordNotFound:
                    pass
            decisions.append(
                WriteDecision(
                    action="duplicate_turn",
                    reason=f"turn {key} was already processed (was: {item['action']})",
                    candidate=cand,
                    record_id=item.get("record_id"),
                )
            )
        if not decisions:
            decisions.append(
                WriteDecision(
                    action="duplicate_turn",
                    reason=f"turn {key} was already processed (nothing to remember)",
                    candidate=Candidate(subject="", predicate="", object="", text="", kind="none"),
                )
            )
        for d in decisions:
            if d.action == "duplicate_turn":
                log.info(
                    "write decision",
                    extra={
                        "event": "write_decision",
                        "action": d.action,
                        "reason": scrub_text(d.reason),
                        "user_id": scope.user_id,
                        "turn_key": key,
                    },
                )
        report.decisions = decisions
        return report


ImportTurn = BaseMessage | Mapping[str, Any]
"""One turn of an imported conversation: a LangChain message or a mapping (see
:meth:`WritePipeline.import_conversation`)."""


def _import_turn(turn: ImportTurn, index: int) -> tuple[Role, str, datetime | None, str]:
    """``(role, text, said_at, turn_id)`` of one imported turn; bad input raises
    :class:`ConfigError` naming the turn."""
    if isinstance(turn, BaseMessage):
        if isinstance(turn, HumanMessage):
            role: Role = "user"
        elif isinstance(turn, AIMessage):
            role = "assistant"
        else:
            raise ConfigError(f"turn {index}: only human and AI messages can be imported")
        text = turn.content if isinstance(turn.content, str) else message_text(turn)
        said_at = turn_time(turn.additional_kwargs, turn.response_metadata)
        turn_id = str(turn.id) if turn.id else f"import-{index}"
        return role, text, said_at, turn_id
    if not isinstance(turn, Mapping):
        raise ConfigError(f"turn {index}: expected a message or a mapping, got {type(turn)}")
    raw_role = turn.get("role")
    if raw_role in ("user", "human"):
        role = "user"
    elif raw_role in ("assistant", "ai"):
        role = "assistant"
    else:
        raise ConfigError(f"turn {index}: role must be 'user' or 'assistant', got {raw_role!r}")
    text = turn.get("content", turn.get("text"))
    if not isinstance(text, str):
        raise ConfigError(f"turn {index}: content must be a string")
    stamp = turn.get("timestamp")
    said_at = coerce_time(stamp)
    if stamp is not None and said_at is None:
        raise ConfigError(f"turn {index}: cannot read timestamp {stamp!r}")
    turn_id = str(turn.get("id") or f"import-{index}")
    return role, text, said_at, turn_id


def _is_correction(candidate: Candidate) -> bool:
    """True when ``candidate`` replaces or withdraws a stored fact rather than stating one:
    "scratch that", a correction without its own kind, or a corrected value quoting the old
    one ("不对，…，不是 MySQL")."""
    return (
        candidate.retract
        or candidate.scratch
        or candidate.kind == "correction"
        or (candidate.correction and candidate.corrects is not None)
    )


def _scope(scope: Scope | Mapping[str, Any] | str | None) -> Scope:
    if scope is None:
        raise ScopeError("process_turn needs a scope with a user_id")
    return Scope.of(scope)  # type: ignore[arg-type]


def _log_plain(d: WriteDecision, scope: Scope, key: str, *, task_id: str | None) -> None:
    """Log a decision that passed no gate (an episode, or "nothing to remember")."""
    log.info(
        "write decision: %s %s for user %s (turn %s, record %s): %s",
        d.action,
        d.candidate.kind,
        scope.user_id,
        key,
        d.record_id or "-",
        scrub_text(d.reason),
        extra={
            "event": "write_decision",
            "action": d.action,
            "reason": scrub_text(d.reason),
            "user_id": scope.user_id,
            "turn_key": key,
            "task_id": task_id,
            "kind": d.candidate.kind,
            "record_id": d.record_id,
        },
    )


def _log_decision(
    d: WriteDecision, scope: Scope, key: str, result: GateResult, *, task_id: str | None
) -> None:
    c = d.candidate
    log.info(
        "write decision: %s %s %s/%s (gate %s, %s extractor, record %s): %s",
        d.action,
        c.kind,
        c.subject,
        c.predicate,
        result.gate,
        c.extractor,
        d.record_id or d.pending_id or "-",
        scrub_text(d.reason),
        extra={
            "event": "write_decision",
            "action": d.action,
            "reason": scrub_text(d.reason),
            "gate": result.gate,
            "user_id": scope.user_id,
            "project_id": scope.project_id,
            "turn_key": key,
            "task_id": task_id,
            "kind": c.kind,
            "predicate": c.predicate,
            "confidence": round(c.confidence, 3),
            "record_id": d.record_id,
            "previous_id": d.previous_id,
            "pending_id": d.pending_id,
            "pii": c.pii,
            "extractor": c.extractor,
        },
    )


__all__ = ["EPOCH0", "WritePipeline", "turn_key_of"]
