"""Bringing an existing conversation in: parse the turns, keep them as episodes in batches
(one embedding call per batch), with the time each was said.

``WritePipeline.import_conversation`` (:mod:`~langgraph_memory.write.pipeline`) runs this,
then sends each user turn through fact extraction like a live turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from ..context.tokens import message_text
from ..core.logsafe import get_logger
from ..core.records import Evidence, MemoryRecord, Source
from ..core.redact import Redactor
from ..core.scope import Scope
from ..errors import ConfigError, RecordValidationError
from .candidates import bounded_turn, pii_types
from .conversation import EpisodeTurn, Role, coerce_time, find_repeat, normal_text, turn_time
from .ledger import turn_key_of
from .turn_episode import EpisodeKeeper
from .types import WriteConfig, WriteDecision, WriteReport

log = get_logger("write")

ImportTurn = BaseMessage | Mapping[str, Any]
"""One turn of an imported conversation: a LangChain message or a mapping (see
``WritePipeline.import_conversation``)."""

ParsedTurn = tuple[Role, str, datetime | None, str]
"""``(role, text, said_at, turn_id)`` of one imported turn."""


def check_import(turns: object, batch_size: object) -> None:
    """Refuse, with :class:`ConfigError`, what is not a sequence of turns or a positive batch
    size."""
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise ConfigError("import_conversation needs a sequence of messages or mappings")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")


def parse_turn(turn: ImportTurn, index: int) -> ParsedTurn:
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


class EpisodeImporter:
    """Keeps imported turns as episodes, in batches (see module docstring)."""

    def __init__(self, episodes: EpisodeKeeper, redactor: Redactor, config: WriteConfig) -> None:
        self.episodes = episodes
        self.store = episodes.store
        self.redactor = redactor
        self.config = config

    def run(
        self,
        turns: Sequence[ImportTurn],
        scope: Scope,
        thread_id: str,
        batch_size: int,
        *,
        facts: Callable[[ParsedTurn], WriteReport] | None,
    ) -> list[WriteReport]:
        """One report per turn, in order: its ``episode`` decision (every turn redacted and
        gated like a live one; turns said twice in the import are resolved in order) and,
        with ``facts`` (the pipeline's fact pass), the decisions of each user turn."""
        parsed = [parse_turn(t, i) for i, t in enumerate(turns)]
        reports = self._episodes(parsed, scope, thread_id, batch_size)
        if facts is not None:
            for report, turn in zip(reports, parsed, strict=True):
                if turn[0] == "user":
                    report.decisions = facts(turn).decisions
        counts: dict[str, int] = {}
        for report in reports:
            if report.episode is not None:
                counts[report.episode.action] = counts.get(report.episode.action, 0) + 1
        log.info(
            "conversation imported: %d turns, episodes %s",
            len(reports),
            counts,
            extra={"event": "import", "user_id": scope.user_id, "thread_id": thread_id},
        )
        return reports

    def _episodes(
        self, parsed: Sequence[ParsedTurn], scope: Scope, thread_id: str, batch_size: int
    ) -> list[WriteReport]:
        """The episode decision of every turn, episodes stored ``batch_size`` at a time."""
        reports: list[WriteReport] = []
        pending: list[tuple[WriteReport, MemoryRecord]] = []
        previous: str | None = None
        batch_texts: set[tuple[str, str]] = set()
        for index, (role, text, said_at, turn_id) in enumerate(parsed):
            src = Source.MODEL if role == "assistant" else Source.IMPORT
            key = turn_key_of(thread_id, turn_id)
            raw, truncated_from = bounded_turn(text, self.config.max_turn_chars, scope, key)
            redaction = self.redactor.redact(raw)
            report = WriteReport(
                turn_key=key or "-",
                redacted_text=redaction.text,
                pii_found=redaction.types,
                truncated_from=truncated_from,
            )
            _, refused = pii_types(redaction.text, redaction.types, redaction.refused, self.config)
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
            reason = self.episodes.gate(redaction.text, bool(refused))
            candidate = self.episodes.candidate(redaction.text, evidence, src, role)
            if reason is not None:
                report.episode = WriteDecision(action="skipped", reason=reason, candidate=candidate)
            else:
                previous = f"{role}: {redaction.text}"
                record = self.episodes.build(scope, turn, imported=True)
                marker = (record.predicate or "", normal_text(record.text))
                if marker in batch_texts:  # said twice in this import: resolved in order
                    self._flush(scope, pending)
                    report.episode = self.episodes.write(scope, record, candidate)
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
                self._flush(scope, pending)
        self._flush(scope, pending)
        return reports

    def _flush(self, scope: Scope, pending: list[tuple[WriteReport, MemoryRecord]]) -> None:
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
                report.episode = self.episodes.write(scope, record, report.episode.candidate)
            else:
                fresh.append((report, record))
        try:
            self.store.add_many([record for _, record in fresh], scope=scope)
        except RecordValidationError:  # one bad record: store the batch one by one, say why
            for report, record in fresh:
                assert report.episode is not None
                report.episode = self.episodes.write(scope, record, report.episode.candidate)
        pending.clear()


__all__ = ["EpisodeImporter", "ImportTurn", "ParsedTurn", "check_import", "parse_turn"]
