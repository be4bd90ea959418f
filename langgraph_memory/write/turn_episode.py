"""A turn kept as a conversation episode: the episode gate, the episode record and its write,
and marking the episodes of facts that changed later.

The record itself (ids, text, context) is built by :mod:`~langgraph_memory.write.conversation`;
this module applies a pipeline's episode settings and gates, and logs each decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..core.logsafe import error_kind, get_logger, scrub_text
from ..core.records import Evidence, MemoryRecord, Source
from ..core.scope import Scope
from ..errors import RecordNotFound, RecordValidationError, VersionConflict
from ..store.memory_store import MemoryStore
from .conversation import (
    PREDICATE_BY_ROLE,
    EpisodeTurn,
    Role,
    build_episode,
    episode_id,
    episode_subject,
    noise_reason,
    write_episode,
)
from .decision_log import log_plain
from .extract.injection import detect_injection
from .types import Candidate, WriteConfig, WriteDecision

log = get_logger("write")


class EpisodeKeeper:
    """Keeps turns as conversation episodes in ``store`` under ``config``'s episode settings."""

    def __init__(self, store: MemoryStore, config: WriteConfig) -> None:
        self.store = store
        self.config = config

    def gate(self, text: str, refused: bool) -> str | None:
        """Why a turn is not kept as an episode (``None``: keep it)."""
        if refused:
            return "not kept: the turn holds a secret whose policy is refuse"
        injection = detect_injection(text)
        if injection is not None:
            return f"not kept: the turn tries to instruct the assistant ({injection})"
        return noise_reason(text)

    def candidate(self, text: str, evidence: Evidence, source: Source, role: Role) -> Candidate:
        """The candidate an episode decision reports."""
        return Candidate(
            subject=episode_subject(evidence.thread_id),
            predicate=PREDICATE_BY_ROLE[role],
            object="",
            text=text[: self.config.episode_max_chars] or "-",
            kind="episode",
            evidence=evidence,
            source=source,
        )

    def build(self, scope: Scope, turn: EpisodeTurn, *, imported: bool) -> MemoryRecord:
        """The episode record of ``turn`` under this pipeline's episode settings."""
        return build_episode(
            scope,
            turn,
            max_chars=self.config.episode_max_chars,
            importance=self.config.episode_importance,
            imported=imported,
        )

    def write(self, scope: Scope, record: MemoryRecord, candidate: Candidate) -> WriteDecision:
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

    def keep(
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
        candidate = self.candidate(text, evidence, source, role)
        reason = self.gate(text, refused)
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
            record = self.build(scope, turn, imported=source is Source.IMPORT)
            if also_embed:  # alone, the episode is embedded only if it is written (not a repeat)
                self.store.prefetch_embeddings([record.index_text(), *also_embed])
            decision = self.write(scope, record, candidate)
        if reason is not None and len(also_embed) > 1:
            self.store.prefetch_embeddings(also_embed)
        log_plain(decision, scope, key, task_id=task_id)
        return decision

    def mark_outdated(self, scope: Scope, decisions: Sequence[WriteDecision]) -> None:
        """When a fact was superseded or invalidated, mark the episodes of the turns that had
        stated it (``metadata["outdated_by"]``): recall still shows what was said, labelled
        as changed later, so the model does not take an old value for the current one. The
        mark names the new version of a superseded fact, and for an invalidated one (which
        has no new version: "I'm not vegan anymore") the episode of the turn that ended it,
        which recall then shows next to the old turn."""
        for d in decisions:
            if d.action not in {"superseded", "invalidated"} or not d.previous_id:
                continue
            successor = d.record_id or d.previous_id
            ev = d.candidate.evidence
            if d.action == "invalidated" and ev.turn_ids:
                successor = episode_id(scope, ev.thread_id, ev.turn_ids[-1])
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
                        metadata={**ep.metadata, "outdated_by": successor},
                    )
                except (RecordNotFound, VersionConflict):
                    continue


__all__ = ["EpisodeKeeper"]
