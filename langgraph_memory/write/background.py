"""Background writer: ``save_memory`` enqueues a turn and returns; a worker thread persists.

Guarantee (what "acknowledged" means):

* :meth:`BackgroundWriter.enqueue` returns only after the turn — already PII-redacted — has
  been appended to the journal file and ``fsync``-ed. That return is the acknowledgement.
* A crash of the process at any point after the acknowledgement (exception, ``os._exit``,
  ``SIGKILL``, OOM kill) loses nothing: the next :class:`BackgroundWriter` opened on the same
  journal replays every entry that has no completion marker, in order, before new entries.
* Processing is at-least-once; :meth:`WritePipeline.process_turn` is idempotent per
  ``(thread_id, turn_id)``, so a replayed turn stores its memories once. ``enqueue`` therefore
  requires a ``turn_id``.
* :meth:`flush` blocks until everything enqueued so far is processed; :meth:`close` drains
  the queue, stops the worker and compacts the journal (the worker also truncates it when
  idle once it has grown past ``compact_every`` lines). What a ``close(timeout=...)`` could
  not drain stays in the journal for the next start.
* Not covered: loss of the disk itself, and durability of the memory store (the embedded
  engine writes through its WAL). An entry that fails ``max_retries`` times is marked
  ``failed`` in the journal, logged, and listed in :attr:`BackgroundWriter.failed`; it is not
  replayed.

:meth:`BackgroundWriter.purge_user` (what ``forget_user`` calls) drops a user's queued turns,
waits for a turn of the user being processed right now, and rewrites the journal at once
without any line of the user, processed or not (call it before ``store.delete_user``, so
nothing of the user lands after the deletion).

Foreground first: the worker's store calls wait, within a bounded budget, while a recall of the
same store is in flight (``load_memory`` / ``MemoryMiddleware``; see
:mod:`~langgraph_memory.store.foreground`), so a turn's recall does not share the cores with the
previous turn's write path. Only when each call starts moves; what is written does not. With
:data:`CATCH_UP_AFTER` entries or more queued the worker does not wait: it catches up.

One journal belongs to one writer at a time (an exclusive ``flock`` on ``<journal>.lock``).

**Deferred LLM extraction** (``defer_llm=True``, like LangMem's ``ReflectionExecutor``): the
worker writes each turn's episode and its rule/classifier facts as usual, with the LLM
extractor off; the pipeline's ``llm_extractor`` reads the turns later, once their thread has
been quiet for ``llm_after_s`` seconds, one model call per burst (at most ``llm_max_turns``
turns), through the same gates (:mod:`~langgraph_memory.write.deferred`). Which turns it
reads follows ``WriteConfig.llm_mode`` (``fallback``: those whose rule pass stored nothing).
The pass is journaled, so a restart neither loses it nor calls the model twice for an answer
already journaled (:mod:`~langgraph_memory.write.reflection`); a failing model leaves the rule
results as they are. Its decisions are logged, merged into :attr:`BackgroundWriter.reports`
(``report.llm_pass``), passed to ``on_report`` and kept for :meth:`take_llm_reports`, which
``save_memory`` calls on the thread's next run (``memory_writes`` and the custom stream event
``memory_llm_pass``)::

    pipeline = WritePipeline(store, llm_extractor=init_chat_model("openai:gpt-4o-mini"))
    writer = BackgroundWriter(pipeline, "memory.journal", defer_llm=True, llm_after_s=30)
    agent = create_memory_agent(model, store=store, write_pipeline=writer)
    ...
    writer.flush_llm()     # e.g. before a test asserts, or at shutdown (close() does it too)
"""

from __future__ import annotations

import copy
import json
import os
import queue
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from ..core.logsafe import get_logger, scrub_text
from ..core.records import Source
from ..core.scope import Scope
from ..errors import ConfigError
from ..store.foreground import background_work
from ._filelock import lock_exclusive, unlock
from ._to_thread import in_worker_thread
from .background_llm import LLMPassReport, PassReports, llm_scheduler
from .conversation import coerce_time
from .journal import count_user_lines, rewrite, scan
from .ledger import turn_key_of
from .pipeline import WritePipeline
from .reflection import Entry
from .types import WriteReport

log = get_logger("write")

_STOP = object()

NEEDS_TURN_ID = "enqueue needs a turn_id: replay after a crash relies on it"
CATCH_UP_AFTER = 8
"""Queued entries from which the worker stops yielding to recalls in flight (it is behind)."""


class FailedEntry(TypedDict):
    """A journal entry given up after ``max_retries`` attempts (:attr:`BackgroundWriter.failed`)."""

    id: str
    error: str
    turn_key: str


class BackgroundWriter:
    """Durable queue in front of a :class:`WritePipeline` (see module docstring)."""

    def __init__(
        self,
        pipeline: WritePipeline,
        journal_path: str | os.PathLike[str],
        *,
        start: bool = True,
        max_retries: int = 3,
        retry_delay_s: float = 0.05,
        keep_reports: int = 1000,
        compact_every: int = 1000,
        on_report: Callable[[str, WriteReport], None] | None = None,
        defer_llm: bool = False,
        llm_after_s: float = 30.0,
        llm_max_turns: int = 20,
    ) -> None:
        """``defer_llm``: run the pipeline's LLM extractor later, per thread, instead of in
        the turn (see module docstring); ``llm_after_s``: how long a thread must be quiet
        first; ``llm_max_turns``: the most turns one model call reads. ``on_report`` gets
        ``(entry id, report)`` when a turn is written and, when deferring, again after its
        LLM pass (``report.llm_pass`` set)."""
        self.pipeline = pipeline
        self.path = Path(journal_path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_retries = max_retries
        self.retry_delay_s = retry_delay_s
        self.on_report = on_report
        self.failed: list[FailedEntry] = []
        """Entries that failed ``max_retries`` times: ``{"id", "error", "turn_key"}``; ``error``
        is the exception type and message with quoted text and PII removed
        (:func:`~langgraph_memory.core.logsafe.scrub_text`)."""
        self.reports: OrderedDict[str, WriteReport] = OrderedDict()
        """The latest reports by entry id (bounded by ``keep_reports``)."""
        self._keep = keep_reports
        self._queue: queue.Queue[Any] = queue.Queue()
        self._append_lock = threading.RLock()
        self._lines = 0
        self.compact_every = compact_every
        self._cond = threading.Condition()
        self._outstanding = 0
        self._pending: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._skip: set[str] = set()
        self._inflight: dict[str, Any] | None = None
        self._closed = False
        self._llm = llm_scheduler(
            pipeline,
            defer=defer_llm,
            after_s=llm_after_s,
            max_turns=llm_max_turns,
            max_retries=self.max_retries,
            retry_delay_s=self.retry_delay_s,
            lock=self._append_lock,
            append=lambda item, durable: self._append(item, durable=durable),
            deliver=self._deliver_llm,
        )
        self._turn_pipeline = _without_llm(pipeline) if defer_llm else pipeline
        self._llm_reports = PassReports(keep_reports)
        try:
            self._lock_file = lock_exclusive(self.path.with_name(self.path.name + ".lock"))
        except OSError as exc:
            raise ConfigError(f"journal {self.path} is in use by another BackgroundWriter") from exc
        replay = self._recover()
        self._journal = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        for entry in replay:
            self._outstanding += 1
            self._pending[entry["id"]] = entry
            self._llm.queued(entry)
            self._queue.put(entry)
        if replay:
            log.info(
                "replaying unprocessed journal entries",
                extra={"event": "journal_replay", "count": len(replay), "journal": str(self.path)},
            )
        self._worker: threading.Thread | None = None
        if start:
            self.start()

    # ------------------------------------------------------------------ journal
    def _recover(self) -> list[dict[str, Any]]:
        """Entries without a completion marker, in journal order; the journal is rewritten
        to hold only them."""
        items, entries = scan(self.path, warn_torn=True)
        self._rewrite([*entries.values(), *self._llm.recover(items)])
        return list(entries.values())

    def _rewrite(self, entries: list[dict[str, Any]]) -> None:
        rewrite(self.path, entries)

    def _append(self, item: dict[str, Any], *, durable: bool) -> None:
        line = json.dumps(item, ensure_ascii=False) + "\n"
        with self._append_lock:
            self._journal.write(line)
            self._journal.flush()
            self._lines += 1
            if durable:
                os.fsync(self._journal.fileno())

    def _maybe_compact(self) -> None:
        """Truncate the journal once everything in it is processed and it has grown past
        ``compact_every`` lines (nothing unprocessed can be dropped: enqueue appends and
        counts under the same lock)."""
        with self._append_lock:
            with self._cond:
                idle = self._outstanding == 0
            if not idle or self._lines < self.compact_every or self._closed:
                return
            self._journal.close()
            kept = self._llm.lines()
            self._rewrite(kept)
            self._journal = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._lines = len(kept)

    # ------------------------------------------------------------------ public API
    def start(self) -> None:
        """Start the worker thread (done by the constructor unless ``start=False``)."""
        if self._worker is None:
            self._worker = threading.Thread(
                target=self._run, name="langgraph-memory-writer", daemon=True
            )
            self._worker.start()
        self._llm.start()

    def enqueue(
        self,
        text: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        turn_id: str,
        message_id: str | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        source: Source | str = Source.USER,
        task_id: str | None = None,
        confirmed: bool = False,
        said_at: datetime | str | None = None,
        previous_turn: str | None = None,
        seq: int | None = None,
    ) -> str:
        """Durably journal a turn for processing and return its entry id (the acknowledgement).

        The text (and ``previous_turn``) is PII-redacted before it touches the disk.
        """
        if self._closed:
            raise ConfigError("this BackgroundWriter is closed")
        if not turn_id:
            raise ConfigError(NEEDS_TURN_ID)
        sc = Scope.of(scope)  # type: ignore[arg-type]
        entry: dict[str, Any] = {
            "op": "enq",
            "id": uuid.uuid4().hex,
            "text": self.pipeline.redactor.redact(text or "").text,
            "scope": {"user_id": sc.user_id, "project_id": sc.project_id, "acl": list(sc.acl)},
            "turn_id": turn_id,
            "message_id": message_id,
            "thread_id": thread_id,
            "checkpoint_id": checkpoint_id,
            "source": Source(source).value,
            "task_id": task_id,
            "confirmed": bool(confirmed),
            "said_at": _iso(said_at),
            "previous_turn": (
                self.pipeline.redactor.redact(previous_turn).text if previous_turn else None
            ),
            "seq": seq,
            "ts": time.time(),
        }
        with self._append_lock:  # append and count together: compaction sees both or neither
            self._append(entry, durable=True)
            self._pending[entry["id"]] = entry
            with self._cond:
                self._outstanding += 1
            self._llm.queued(entry)
        self._queue.put(entry)
        return str(entry["id"])

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
        """Drop-in for :meth:`WritePipeline.process_turn` that enqueues instead of blocking:
        returns at once (after the journal fsync) with ``queued`` set and no decisions, so a
        ``save_memory`` node can take a ``BackgroundWriter`` as its pipeline. Raises
        :class:`~langgraph_memory.errors.ConfigError` without a ``turn_id``."""
        if not turn_id:
            raise ConfigError(NEEDS_TURN_ID)
        entry = self.enqueue(
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
        redacted = self.pipeline.redactor.redact(text or "")
        key = turn_key_of(thread_id, turn_id) or "-"
        return WriteReport(
            turn_key=key, redacted_text=redacted.text, pii_found=redacted.types, queued=entry
        )

    aprocess_turn = in_worker_thread(process_turn)
    aenqueue = in_worker_thread(enqueue)

    @property
    def outstanding(self) -> int:
        """Entries acknowledged but not yet processed."""
        with self._cond:
            return self._outstanding

    def flush(self, timeout: float | None = None) -> bool:
        """Block until every entry enqueued so far is processed. False on timeout."""
        if self._worker is None:
            self.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._outstanding > 0:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining if remaining is not None else 0.5)
        return True

    aflush = in_worker_thread(flush)

    def close(self, timeout: float | None = None) -> bool:
        """Drain the queue, run the deferred LLM passes still waiting (no debounce), stop the
        worker, compact the journal and release it. Returns False when ``timeout`` expired
        first (the rest is replayed by the next writer). Idempotent."""
        if self._closed:
            return True
        started = time.monotonic()
        drained = self.flush(timeout)
        self._closed = True
        llm_drained = self._close_llm(drained, timeout, started)
        self._queue.put(_STOP)
        if self._worker is not None:
            self._worker.join(timeout=None if drained else 1.0)
        with self._append_lock:
            self._journal.close()
        if drained:
            self._rewrite(self._llm.lines())
        unlock(self._lock_file)
        self._lock_file.close()
        return drained and llm_drained

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def forget_user(self, user_id: str) -> int:
        """Drop every queued, unprocessed turn of ``user_id`` (also turns waiting for the
        deferred LLM pass) and purge the journal of the user (see :meth:`purge_user`);
        returns how many unprocessed turns were dropped."""
        return self.purge_user(user_id)["queued_turns"]

    def queued_turns(self, user_id: str) -> int:
        """Turns of ``user_id`` still held: queued and not being dropped, plus those waiting
        for the deferred LLM pass (they hold redacted text too). 0 after :meth:`purge_user`."""
        with self._append_lock:
            queued = sum(
                1
                for entry in self._pending.values()
                if entry.get("scope", {}).get("user_id") == user_id
                and entry.get("id") not in self._skip
            )
        return queued + self.deferred_turns(user_id)

    def purge_user(self, user_id: str, timeout: float | None = 60.0) -> dict[str, int]:
        """Forget-user for the writer: drop the user's queued turns and the turns waiting for
        the deferred LLM pass (they are never processed), wait up to ``timeout`` seconds for a
        turn of the user that is being processed right now to finish (so it cannot land after
        the caller's deletion), then rewrite the journal at once with only the other users'
        unfinished work: no line of the user, processed or not, stays in the file. Returns
        ``{"queued_turns": dropped unprocessed turns, "journal_lines": lines of the user
        removed from the file}``. Raises ``TimeoutError`` (nothing rewritten) if the
        in-flight turn does not finish. A deferred LLM pass already calling the model for the
        user is not waited for."""
        with self._append_lock:
            doomed = [i for i, e in self._pending.items() if e["scope"]["user_id"] == user_id]
            deferred = self._llm.forget(user_id)
            inflight = self._inflight
            for entry_id in doomed:
                if inflight is None or entry_id != inflight["id"]:
                    self._pending.pop(entry_id, None)
                self._skip.add(entry_id)
        dropped = len(doomed)
        if inflight is not None and inflight["scope"]["user_id"] == user_id:
            dropped -= 1  # it is being written: not dropped, waited for
            deadline = None if timeout is None else time.monotonic() + timeout
            with self._cond:
                while self._inflight is inflight:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        raise TimeoutError(
                            f"a turn of the user is still being written after {timeout}s"
                        )
                    self._cond.wait(0.05 if left is None else min(left, 0.05))
        with self._append_lock:
            if inflight is not None:
                self._skip.discard(inflight["id"])
            lines = count_user_lines(self.path, user_id)
            self._journal.close()
            kept = [*self._pending.values(), *self._llm.lines()]
            self._rewrite(kept)
            self._journal = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._lines = len(kept)
        dropped += deferred
        log.info(
            "journal purged of a forgotten user: %d queued turn(s) dropped, %d line(s) removed",
            dropped,
            lines,
            extra={"event": "journal_forget_user", "count": dropped, "lines": lines},
        )
        return {"queued_turns": dropped, "journal_lines": lines}

    # ------------------------------------------------------------------ deferred LLM pass
    @property
    def defer_llm(self) -> bool:
        """True when the LLM extractor runs in the deferred pass (``defer_llm=True``)."""
        return self._llm.enabled

    @property
    def llm_after_s(self) -> float:
        """How long a thread must be quiet before its deferred LLM pass runs."""
        return self._llm.after_s

    def _deliver_llm(self, entry: Entry, report: WriteReport) -> None:
        """Merge a deferred pass's report into :attr:`reports`, keep it for
        :meth:`take_llm_reports` and tell ``on_report``."""
        entry_id = str(entry["id"])
        with self._append_lock:
            before = self.reports.get(entry_id)
            merged = (
                report
                if before is None
                else before.model_copy(
                    update={
                        "decisions": [*before.decisions, *report.decisions],
                        "llm_pass": report.llm_pass,
                    }
                )
            )
            self.reports[entry_id] = merged
            while len(self.reports) > self._keep:
                self.reports.popitem(last=False)
            self._llm_reports.put(entry, report)
        if self.on_report is not None:
            try:
                self.on_report(entry_id, merged)
            except Exception as exc:
                log.warning(
                    "on_report callback failed",
                    extra={"event": "background_callback_error", "error": type(exc).__name__},
                )

    def take_llm_reports(self, user_id: str, thread_id: str | None) -> list[LLMPassReport]:
        """The deferred LLM passes of ``user_id``'s thread finished since the last call, oldest
        first, each handed out once (``save_memory`` reports them on the thread's next run).
        At most ``keep_reports`` are kept."""
        with self._append_lock:
            return self._llm_reports.take(user_id, thread_id)

    def deferred_turns(self, user_id: str | None = None) -> int:
        """Turns (of ``user_id``, or all) whose deferred LLM pass has not finished."""
        return self._llm.count(user_id)

    def flush_llm(self, timeout: float | None = None) -> bool:
        """Process every queued turn, then run every waiting deferred LLM pass now (without
        waiting for the threads to go quiet) and block until they are stored. False on
        timeout (what is left runs later, or after a restart)."""
        started = time.monotonic()
        if not self.flush(timeout):
            return False
        remaining = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
        return self._llm.flush(remaining)

    aflush_llm = in_worker_thread(flush_llm)

    def _close_llm(self, drained: bool, timeout: float | None, started: float) -> bool:
        """At close: run the waiting passes within what is left of ``timeout`` (none when the
        queue did not drain), then stop the scheduler."""
        if not drained:
            return self._llm.close(0.0)
        remaining = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
        return self._llm.close(remaining)

    # ------------------------------------------------------------------ worker
    def _run(self) -> None:
        while True:
            entry = self._queue.get()
            if entry is _STOP:
                return
            try:
                with self._append_lock:
                    skip = entry["id"] in self._skip
                    self._skip.discard(entry["id"])
                    self._inflight = None if skip else entry
                if not skip:
                    # a recall in flight goes first, unless the queue is backing up: then
                    # the worker catches up at full speed (busy recalls never starve it)
                    behind = self._queue.qsize() >= CATCH_UP_AFTER
                    with background_work(0.0 if behind else None):
                        self._process(entry)
            finally:
                with self._append_lock:
                    self._pending.pop(entry["id"], None)
                self._llm.settled(entry)
                with self._cond:
                    self._inflight = None
                    self._outstanding -= 1
                    self._cond.notify_all()
            self._maybe_compact()

    def _process(self, entry: dict[str, Any]) -> None:
        error: BaseException | None = None
        for attempt in range(self.max_retries):
            try:
                report = self._turn_pipeline.process_turn(
                    entry["text"],
                    scope=Scope.of(entry["scope"]),
                    turn_id=entry["turn_id"],
                    message_id=entry.get("message_id"),
                    thread_id=entry.get("thread_id"),
                    checkpoint_id=entry.get("checkpoint_id"),
                    source=entry.get("source", "user"),
                    task_id=entry.get("task_id"),
                    confirmed=bool(entry.get("confirmed")),
                    said_at=entry.get("said_at") or _iso(entry.get("ts")),
                    previous_turn=entry.get("previous_turn"),
                    seq=entry.get("seq"),
                )
            except Exception as exc:  # retried, then recorded as failed (never silently lost)
                error = exc
                log.warning(
                    "background write failed",
                    extra={
                        "event": "background_write_retry",
                        "entry": entry["id"],
                        "attempt": attempt + 1,
                        "error": type(exc).__name__,
                    },
                )
                time.sleep(self.retry_delay_s * (2**attempt))
                continue
            if not self._llm.defer(entry, report):
                self._append({"op": "done", "id": entry["id"]}, durable=False)
            self.reports[entry["id"]] = report
            while len(self.reports) > self._keep:
                self.reports.popitem(last=False)
            if self.on_report is not None:
                try:
                    self.on_report(entry["id"], report)
                except Exception as exc:
                    log.warning(
                        "on_report callback failed",
                        extra={"event": "background_callback_error", "error": type(exc).__name__},
                    )
            return
        kind = type(error).__name__
        record: FailedEntry = {
            "id": entry["id"],
            "error": f"{kind}: {scrub_text(str(error))}",  # no quoted text, no PII
            "turn_key": f"{entry.get('thread_id')}:{entry['turn_id']}",
        }
        self.failed.append(record)
        self._append({"op": "failed", **record}, durable=True)
        log.error(
            "background write gave up",
            extra={"event": "background_write_failed", **record, "error": kind},
        )


def _without_llm(pipeline: WritePipeline) -> WritePipeline:
    """The same pipeline (store, config, classifier, gates) with its LLM extractor off: the
    rule pass of a deferring writer."""
    rules = copy.copy(pipeline)
    rules.llm_extractor = None
    return rules


def _iso(value: object) -> str | None:
    """A turn time as an ISO-8601 string for the journal (``None`` if not given)."""
    found = coerce_time(value)
    return None if found is None else found.isoformat()


__all__ = ["BackgroundWriter", "LLMPassReport"]
