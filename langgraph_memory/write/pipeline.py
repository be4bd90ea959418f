"""The write path of one turn: redact → extract → keep the episode → gate → resolve → ledger.

:class:`WritePipeline` is what ``save_memory`` calls for each user turn::

    pipeline = WritePipeline(store)
    report = pipeline.process_turn("以后都用中文回答", scope=Scope(user_id="alice"),
                                   turn_id="t1", thread_id="th1")
    [d.action for d in report.decisions]      # ['inserted']

This module only orchestrates; each step is its own module: :mod:`.candidates` (rules, LLM,
classifier), :mod:`.turn_episode` (the conversation episode), :mod:`.apply` (gate → resolve /
correct / pending), :mod:`.ledger` (processed turns and pending items), :mod:`.importer`
(past conversations). Extraction runs before the episode is written (it does not depend on
it), so the episode and the facts the turn will likely write are embedded in one model call.

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
  the same store: processed turns are kept in the write ledger, stored in the memory store
  itself (:mod:`~langgraph_memory.write.ledger`). Every meaningful turn gets an entry (also
  one that decided nothing: the entries give each thread's turn order, so "scratch that"
  withdraws what the previous user turn stored); small talk that decided nothing gets none
  unless an LLM extractor is configured. Records also carry the turn keys that wrote or
  reinforced them, so a replay after a crash between a write and its ledger entry
  reinforces nothing twice.
* Pending items (implicit preferences waiting for repetition, project facts waiting for
  confirmation) are kept in the same ledger; :meth:`WritePipeline.pending_items` lists them
  and :meth:`WritePipeline.confirm` writes one (e.g. after a LangGraph ``interrupt``).
* The store is synchronous: the ``a*`` methods run their sync twin in a worker thread
  (``asyncio.to_thread``), they do not make the write path itself asynchronous.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import BaseStore

from ..core.logsafe import get_logger
from ..core.records import Evidence, Source
from ..core.redact import Redactor
from ..core.scope import Scope
from ..errors import ConfigError, ScopeError
from ..store.memory_store import MemoryStore
from ._to_thread import in_worker_thread
from .apply import CandidateApplier
from .candidates import bound_candidates, bounded_turn, pii_types, turn_candidates
from .classify import ClauseClassifier, default_classifier
from .conversation import coerce_time, noise_reason
from .decide import ClauseVerdict, describe
from .decision_log import log_plain
from .extract.llm import LLMExtractor
from .extract.llm_schema import StructuredChatModel
from .extract.one_off import mark_task_bound
from .extract.rule_extractor import RuleExtractor
from .gate import WriteGate
from .importer import EpisodeImporter, ImportTurn, ParsedTurn, check_import
from .ledger import WriteLedger, turn_key_of
from .locks import write_lock
from .remember import agent_candidate
from .resolve import Resolver
from .slot_candidates import mark_additions
from .turn_episode import EpisodeKeeper
from .types import Action, Candidate, WriteConfig, WriteDecision, WriteReport

log = get_logger("write")

MODEL_REPLY = (
    "source=model: an assistant reply is kept as an episode of the conversation, not a user fact"
)
NOTHING_TO_REMEMBER = "nothing to remember: no fact, preference or constraint in this turn"


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
        self.ledger = WriteLedger(store)
        self.episodes = EpisodeKeeper(store, self.config)
        self.applier = CandidateApplier(store, self.config, self.gate, self.resolver, self.ledger)

    # ------------------------------------------------------------------ a turn
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
        raw, truncated_from = bounded_turn(text or "", self.config.max_turn_chars, sc, key)
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
        pii, refused = pii_types(redaction.text, redaction.types, redaction.refused, self.config)
        with write_lock(self.store, sc.user_id, serialize=self.config.serialize_writes):
            # reads and extraction first (they do not depend on the episode), so that the
            # episode and the facts the turn will likely write are embedded in one model call
            entry = (
                self.ledger.turn_entry(sc, key)
                if key is not None and src is not Source.MODEL
                else None
            )
            candidates: list[Candidate] = []
            verdicts: list[ClauseVerdict] = []
            if src is not Source.MODEL and entry is None:
                candidates, verdicts = turn_candidates(
                    redaction.text,
                    evidence,
                    src,
                    pii,
                    refused,
                    config=self.config,
                    rules=self.extractor,
                    llm=self.llm_extractor,
                    classifier=self.classifier,
                )
                candidates = mark_task_bound(redaction.text, candidates)
                candidates = mark_additions(candidates)
                candidates = bound_candidates(candidates, self.config, sc, key)
            facts = self._fact_texts(candidates, sc)
            if with_episode and turn_id:
                report.episode = self.episodes.keep(
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
                report.decisions.append(
                    _plain(MODEL_REPLY, "rejected", redaction.text, evidence, src)
                )
                log_plain(report.decisions[0], sc, key or "-", task_id=task_id)
                return report
            if entry is not None and key is not None:
                return self.applier.replay(entry, sc, key, report, confirmed=confirmed)
            kept_as = report.episode.record_id if report.episode is not None else None
            if kept_as:
                candidates = [c.model_copy(update={"episode_id": kept_as}) for c in candidates]
            if said_at is not None:
                when = coerce_time(said_at)
                candidates = [c.model_copy(update={"said_at": when}) for c in candidates]
            for index, candidate in enumerate(candidates):
                report.decisions.extend(
                    self.applier.decide(
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
                self.ledger.write_turn(
                    sc, key, report.decisions, task_id=task_id, thread_id=thread_id
                )
            self.episodes.mark_outdated(sc, report.decisions)
            if not report.decisions:
                reason = NOTHING_TO_REMEMBER
                if verdicts:
                    reason += "; the classifier read " + ", ".join(
                        describe(v.prediction) for v in verdicts[:3]
                    )
                report.decisions.append(_plain(reason, "skipped", redaction.text, evidence, src))
                log_plain(report.decisions[0], sc, key or "-", task_id=task_id)
        return report

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

    # ------------------------------------------------------------------ the agent's writes
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
        sc = _scope(scope)
        key = turn_key_of(thread_id, turn_id) or "-"
        raw, _ = bounded_turn(text or "", self.config.max_turn_chars, sc, key)
        redaction = self.redactor.redact(" ".join(raw.split()))
        report = WriteReport(turn_key=key, redacted_text=redaction.text, pii_found=redaction.types)
        pii, refused = pii_types(redaction.text, redaction.types, redaction.refused, self.config)
        evidence = Evidence(turn_ids=[turn_id], thread_id=thread_id, checkpoint_id=checkpoint_id)
        old = self.store.get(replaces, scope=sc) if replaces else None
        clause = redaction.text[: self.config.max_text_chars]
        candidate = agent_candidate(clause, kind, evidence, pii=pii, refused=refused, old=old)
        with write_lock(self.store, sc.user_id, serialize=self.config.serialize_writes):
            if old is None:
                report.decisions.extend(
                    self.applier.decide(
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
            report.decisions.append(
                self.applier.replace(candidate, old, sc, key, confirmed=confirmed, task_id=task_id)
            )
        return report

    # ------------------------------------------------------------------ history
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
        check_import(turns, batch_size)
        sc = _scope(scope)

        def facts(turn: ParsedTurn) -> WriteReport:  # a user turn's facts, like a live turn
            _, text, said_at, turn_id = turn
            return self._process(
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

        importer = EpisodeImporter(self.episodes, self.redactor, self.config)
        return importer.run(
            turns, sc, thread_id, batch_size, facts=facts if extract_facts else None
        )

    # ------------------------------------------------------------------ pending and ledger
    def pending_items(self, scope: Scope | Mapping[str, Any] | str) -> list[WriteDecision]:
        """Pending candidates of ``scope`` (waiting for confirmation or repetition), as
        ``pending`` decisions whose ``pending_id`` can be passed to :meth:`confirm`."""
        return self.ledger.pending_items(_scope(scope))

    def confirm(self, pending_id: str, *, scope: Scope | Mapping[str, Any] | str) -> WriteReport:
        """Write a pending candidate the user confirmed (all other gates still apply)."""
        return self.applier.confirm(pending_id, _scope(scope))

    def prune_ledger(
        self, scope: Scope | Mapping[str, Any] | str, *, older_than_days: float = 30.0
    ) -> int:
        """Delete ledger entries of turns processed more than ``older_than_days`` ago (also
        the entries of deferred LLM passes), and resolved pending entries; returns how many
        were removed. A turn that old is not replayed any more (journals are drained long
        before), so its idempotence key can go. Unresolved pending items are kept."""
        return self.ledger.prune(_scope(scope), older_than_days=older_than_days)

    # ------------------------------------------------------------------ async twins
    aprocess_turn = in_worker_thread(process_turn)
    aremember = in_worker_thread(remember)
    aconfirm = in_worker_thread(confirm)


def _plain(
    reason: str, action: Action, text: str, evidence: Evidence, source: Source
) -> WriteDecision:
    """A decision about the whole turn, no candidate of its own (an assistant reply, or
    nothing to remember)."""
    return WriteDecision(
        action=action,
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


def _scope(scope: Scope | Mapping[str, Any] | str | None) -> Scope:
    if scope is None:
        raise ScopeError("process_turn needs a scope with a user_id")
    return Scope.of(scope)  # type: ignore[arg-type]


__all__ = ["MODEL_REPLY", "NOTHING_TO_REMEMBER", "WritePipeline"]
