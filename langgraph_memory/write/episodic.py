"""Episodic records: a structured summary of a task, stored by ``task_id``.

:func:`record_episode` stores (or, for a ``task_id`` that already has one, supersedes) one
``layer=episodic, kind=event`` record whose fields are structured — goal, steps, outcome,
failures and why, the turn range, and where the raw messages live — and whose ``text`` is a
deterministic rendering of those fields (no model-written prose). Every field is PII-redacted
first. Call it at task end, or every N steps: the latest call wins, earlier versions stay in
``store.history``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.records import Evidence, Kind, Layer, MemoryRecord, Source
from ..core.redact import Redactor
from ..core.scope import Scope
from ..store.memory_store import MemoryStore

EPISODE_PREDICATE = "episode"


def episode_subject(task_id: str) -> str:
    """The subject under which a task's episodic record is stored."""
    return f"task:{task_id}"


def _red(redactor: Redactor, value: Any) -> Any:
    if isinstance(value, str):
        return redactor.redact(value).text
    if isinstance(value, Mapping):
        return {str(k): _red(redactor, v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_red(redactor, v) for v in value]
    return value


def record_episode(
    store: MemoryStore,
    scope: Scope | Mapping[str, Any] | str,
    task_id: str,
    goal: str,
    steps: Sequence[str | Mapping[str, Any]],
    outcome: str,
    failures: Sequence[str | Mapping[str, Any]] = (),
    turn_range: tuple[str, str] | Sequence[str] | None = None,
    raw_location: str | Mapping[str, Any] | None = None,
    *,
    thread_id: str | None = None,
    importance: int = 5,
    redactor: Redactor | None = None,
) -> MemoryRecord:
    """Store the episode of ``task_id`` and return the stored record.

    ``steps``/``failures`` are short strings or dicts (e.g. ``{"step": ..., "why": ...}``);
    ``turn_range`` is ``(first_turn_id, last_turn_id)``; ``raw_location`` says where the raw
    messages are (a thread/checkpoint id or a handle). A second call for the same ``task_id``
    supersedes the first.
    """
    sc = Scope.of(scope)  # type: ignore[arg-type]
    red = redactor or Redactor()
    turns = [str(t) for t in (turn_range or ())]
    data = {
        "goal": _red(red, goal),
        "steps": _red(red, list(steps)),
        "outcome": _red(red, outcome),
        "failures": _red(red, list(failures)),
        "turn_range": turns,
        "raw_location": _red(red, raw_location),
    }
    lines = [f"Task {task_id}: {data['goal']}", f"Outcome: {data['outcome']}"]
    if data["steps"]:
        lines.append("Steps: " + "; ".join(_one_line(s) for s in data["steps"]))
    if data["failures"]:
        lines.append("Failures: " + "; ".join(_one_line(f) for f in data["failures"]))
    if turns:
        lines.append(f"Turns: {turns[0]}..{turns[-1]}")
    record = MemoryRecord(
        user_id=sc.user_id,
        project_id=sc.project_id,
        layer=Layer.EPISODIC,
        kind=Kind.EVENT,
        subject=episode_subject(task_id),
        predicate=EPISODE_PREDICATE,
        object=str(data["outcome"])[:500],
        text="\n".join(lines),
        task_id=task_id,
        importance=importance,
        source=Source.TOOL,
        evidence=Evidence(turn_ids=turns, thread_id=thread_id),
        metadata={"episode": data},
    )
    current = store.list(
        scope=sc,
        filters={"task_id": task_id, "layer": Layer.EPISODIC.value, "predicate": EPISODE_PREDICATE},
    )
    current = [r for r in current if r.project_id == sc.project_id]
    if current:
        return store.supersede(current[0].id, record, scope=sc, expected_version=current[0].version)
    store.add(record, scope=sc)
    return record


async def arecord_episode(
    store: MemoryStore,
    scope: Scope | Mapping[str, Any] | str,
    task_id: str,
    goal: str,
    steps: Sequence[str | Mapping[str, Any]],
    outcome: str,
    failures: Sequence[str | Mapping[str, Any]] = (),
    turn_range: tuple[str, str] | Sequence[str] | None = None,
    raw_location: str | Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> MemoryRecord:
    """Async :func:`record_episode`."""
    return await asyncio.to_thread(
        record_episode,
        store,
        scope,
        task_id,
        goal,
        steps,
        outcome,
        failures,
        turn_range,
        raw_location,
        **kwargs,
    )


class EpisodeRecorder:
    """Collects a task's steps and stores its episode every ``every_n_steps`` steps and at
    :meth:`finish` (each call supersedes the previous version of the same ``task_id``)::

        rec = EpisodeRecorder(store, scope, "task-7", goal="migrate the DB", every_n_steps=5)
        rec.step("dumped tables", turn_id="t3")
        rec.step("restore failed", turn_id="t4", failed=True, why="disk full")
        rec.finish("migrated after freeing disk", raw_location="thread th / checkpoint c9")
    """

    def __init__(
        self,
        store: MemoryStore,
        scope: Scope | Mapping[str, Any] | str,
        task_id: str,
        goal: str,
        *,
        every_n_steps: int = 10,
        raw_location: str | Mapping[str, Any] | None = None,
        thread_id: str | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        if every_n_steps < 1:
            raise ValueError("every_n_steps must be at least 1")
        self.store, self.scope, self.task_id, self.goal = store, scope, task_id, goal
        self.every_n_steps = every_n_steps
        self.raw_location = raw_location
        self.thread_id = thread_id
        self.redactor = redactor
        self.steps: list[str | Mapping[str, Any]] = []
        self.failures: list[Mapping[str, Any]] = []
        self.turns: list[str] = []
        self.record: MemoryRecord | None = None

    def step(
        self,
        description: str,
        *,
        turn_id: str | None = None,
        failed: bool = False,
        why: str | None = None,
    ) -> MemoryRecord | None:
        """Add a step; returns the stored record when this step completed a batch of N."""
        self.steps.append(description)
        if turn_id:
            self.turns.append(turn_id)
        if failed:
            self.failures.append({"step": description, "why": why or "unknown"})
        if len(self.steps) % self.every_n_steps == 0:
            return self._store("in progress")
        return None

    def finish(
        self, outcome: str, *, raw_location: str | Mapping[str, Any] | None = None
    ) -> MemoryRecord:
        """Store the final episode with its ``outcome``."""
        if raw_location is not None:
            self.raw_location = raw_location
        return self._store(outcome)

    def _store(self, outcome: str) -> MemoryRecord:
        turn_range = (self.turns[0], self.turns[-1]) if self.turns else None
        self.record = record_episode(
            self.store,
            self.scope,
            self.task_id,
            self.goal,
            self.steps,
            outcome,
            self.failures,
            turn_range,
            self.raw_location,
            thread_id=self.thread_id,
            redactor=self.redactor,
        )
        return self.record


def _one_line(item: Any) -> str:
    if isinstance(item, Mapping):
        return ", ".join(f"{k}={v}" for k, v in item.items())
    return str(item)


__all__ = [
    "EPISODE_PREDICATE",
    "EpisodeRecorder",
    "arecord_episode",
    "episode_subject",
    "record_episode",
]
