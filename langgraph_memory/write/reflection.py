"""When the deferred LLM pass of a :class:`~langgraph_memory.write.BackgroundWriter` runs.

:class:`LLMScheduler` is the writer's helper for ``defer_llm=True`` (not used on its own):

* **debounce per thread**: a turn whose rule pass finished joins its thread's *burst*; the burst
  is read by the model once the thread has had no new turn for ``after_s`` seconds and none of
  its turns is still queued for the rule pass, or at once when it holds ``max_turns`` turns.
  A burst costs one model call (:func:`~langgraph_memory.write.deferred.extract_batch`).
* **journal** (the writer's, same lock): ``done`` markers of deferred turns carry
  ``"llm": "deferred"`` and are fsynced; the model's answer is journaled (``llm_result``,
  fsynced, redacted text only) *before* anything is stored, and ``llm_done`` after. A restart
  applies a journaled answer without calling the model again and re-reads, once, a burst
  whose answer was never journaled. Storing is idempotent
  (:mod:`~langgraph_memory.write.deferred`), so the at-least-once replay stores once.
* **failures**: the model is retried ``max_retries`` times with backoff, then the turns get a
  ``failed`` report; the rule results are never touched. Nothing here raises into the writer.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.logsafe import get_logger
from ..core.records import Source
from ..core.scope import Scope
from .deferred.apply import apply_batch
from .deferred.batch import DeferredTurn, LLMBatch, extract_batch, wants_llm
from .pipeline import WritePipeline
from .types import WriteReport

log = get_logger("write")

Entry = dict[str, Any]
"""A journal ``enq`` entry (see :class:`~langgraph_memory.write.BackgroundWriter`)."""

ThreadKey = tuple[str, str | None, tuple[str, ...], str]
"""``(user_id, project_id, acl, thread_id)``: the turns one burst gathers."""

DEFERRED = "deferred"
NO_EXTRACTOR_DROPPED = (
    "deferred LLM pass dropped for %d journaled turn(s): this writer's pipeline has no "
    "llm_extractor"
)


def thread_key(entry: Entry) -> ThreadKey:
    """The burst a journal entry belongs to."""
    scope = entry.get("scope") or {}
    return (
        str(scope.get("user_id")),
        scope.get("project_id"),
        tuple(scope.get("acl") or ()),
        str(entry.get("thread_id") or "-"),
    )


def deferred_turn(entry: Entry, done_at: float | None) -> DeferredTurn:
    """The :class:`DeferredTurn` of a journal entry."""
    return DeferredTurn(
        text=str(entry.get("text") or ""),
        scope=Scope.of(entry["scope"]),
        turn_id=str(entry["turn_id"]),
        thread_id=entry.get("thread_id"),
        message_id=entry.get("message_id"),
        checkpoint_id=entry.get("checkpoint_id"),
        task_id=entry.get("task_id"),
        confirmed=bool(entry.get("confirmed")),
        source=Source(entry.get("source") or "user"),
        done_at=done_at,
    )


@dataclass(slots=True)
class _Burst:
    ids: list[str] = field(default_factory=list)
    last: float = 0.0


class _Halted(Exception):
    """The writer closed its journal while a pass was running."""


class LLMScheduler:
    """Debounced deferred LLM passes of one writer (see module docstring).

    ``append(item, durable)`` writes a journal line under ``lock`` (the writer's), ``deliver``
    receives each turn's report once its pass ran.
    """

    def __init__(
        self,
        pipeline: WritePipeline,
        *,
        enabled: bool,
        after_s: float,
        max_turns: int,
        max_retries: int,
        retry_delay_s: float,
        lock: threading.RLock,
        append: Callable[[Entry, bool], None],
        deliver: Callable[[Entry, WriteReport], None],
    ) -> None:
        self.pipeline = pipeline
        self.enabled = enabled
        self.after_s = after_s
        self.max_turns = max_turns
        self.max_retries = max_retries
        self.retry_delay_s = retry_delay_s
        self._lock = lock
        self._cond = threading.Condition(lock)
        self._append = append
        self._deliver = deliver
        self._entries: OrderedDict[str, tuple[Entry, Entry]] = OrderedDict()
        """Deferred turns not finished: entry id → (enq entry, done marker)."""
        self._results: OrderedDict[str, Entry] = OrderedDict()
        """Journaled model answers not stored yet: batch id → ``llm_result`` line."""
        self._bursts: dict[ThreadKey, _Burst] = {}
        self._inflight: dict[ThreadKey, int] = {}
        self._running = 0
        self._force = 0
        self._stopping = False
        self._halted = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ journal
    def recover(self, items: list[Entry]) -> list[Entry]:
        """Rebuild the deferred state from every journal line (in order); returns the lines
        the compacted journal must keep for it. Recovered bursts are due at once."""
        enq: dict[str, Entry] = {}
        done: dict[str, Entry] = {}
        finished: set[str] = set()
        results: OrderedDict[str, Entry] = OrderedDict()
        for item in items:
            op = item.get("op")
            if op == "enq":
                enq[str(item.get("id"))] = item
            elif op == "done" and item.get("llm") == DEFERRED:
                done[str(item.get("id"))] = item
            elif op == "failed":
                finished.add(str(item.get("id")))
            elif op == "llm_result":
                results[str(item.get("batch"))] = item
            elif op == "llm_done":
                finished.update(str(i) for i in item.get("ids", []))
        for entry_id, marker in done.items():
            if entry_id in enq and entry_id not in finished:
                self._entries[entry_id] = (enq[entry_id], marker)
        for batch_id, item in results.items():
            ids = [str(i) for i in item.get("ids", [])]
            if any(i in self._entries for i in ids):
                self._results[batch_id] = item
        answered = {i for item in self._results.values() for i in item.get("ids", [])}
        for entry_id, (entry, _) in self._entries.items():
            if entry_id not in answered:
                burst = self._bursts.setdefault(thread_key(entry), _Burst())
                burst.ids.append(entry_id)
        if self._entries and self.pipeline.llm_extractor is None:
            log.warning(
                NO_EXTRACTOR_DROPPED,
                len(self._entries),
                extra={"event": "llm_pass_dropped", "count": len(self._entries)},
            )
            self._entries.clear()
            self._results.clear()
            self._bursts.clear()
        return self.lines()

    def lines(self) -> list[Entry]:
        """The journal lines that describe the unfinished deferred work (call under the
        writer's lock when rewriting the journal)."""
        out: list[Entry] = []
        for entry, marker in self._entries.values():
            out.extend((entry, marker))
        out.extend(self._results.values())
        return out

    @property
    def has_work(self) -> bool:
        """Deferred turns or journaled answers not finished yet."""
        with self._lock:
            return bool(self._entries or self._results)

    # ------------------------------------------------------------------ writer hooks
    def queued(self, entry: Entry) -> None:
        """A turn was enqueued for the rule pass: its thread's burst must wait for it."""
        key = thread_key(entry)
        with self._cond:
            self._inflight[key] = self._inflight.get(key, 0) + 1
            burst = self._bursts.get(key)
            if burst is not None:
                burst.last = time.monotonic()

    def settled(self, entry: Entry) -> None:
        """The rule pass of ``entry`` ended (done, failed or skipped)."""
        key = thread_key(entry)
        with self._cond:
            left = self._inflight.get(key, 0) - 1
            if left > 0:
                self._inflight[key] = left
            else:
                self._inflight.pop(key, None)
            self._cond.notify_all()

    def defer(self, entry: Entry, report: WriteReport) -> bool:
        """After the rule pass of ``entry``: when the turn wants the model, journal its
        ``done`` marker as deferred (fsynced), add it to its thread's burst and return True;
        else return False (the writer writes the plain marker)."""
        source = Source(entry.get("source") or "user")
        if not self.enabled or not wants_llm(self.pipeline, report, source=source):
            return False
        marker: Entry = {"op": "done", "id": entry["id"], "llm": DEFERRED, "done_at": time.time()}
        with self._cond:
            self._append(marker, True)
            self._entries[str(entry["id"])] = (entry, marker)
            burst = self._bursts.setdefault(thread_key(entry), _Burst())
            burst.ids.append(str(entry["id"]))
            burst.last = time.monotonic()
            self._cond.notify_all()
        report.llm_pass = "deferred"
        return True

    def forget(self, user_id: str) -> int:
        """Drop the user's deferred turns and answers (the caller rewrites the journal)."""
        with self._cond:
            doomed = [i for i, (e, _) in self._entries.items() if thread_key(e)[0] == user_id]
            for entry_id in doomed:
                self._entries.pop(entry_id, None)
            for key in [k for k in self._bursts if k[0] == user_id]:
                del self._bursts[key]
            for batch_id in [
                b
                for b, item in self._results.items()
                if not any(str(i) in self._entries for i in item.get("ids", []))
            ]:
                del self._results[batch_id]
            return len(doomed)

    def count(self, user_id: str | None = None) -> int:
        """Deferred turns not finished (of ``user_id``, or all)."""
        with self._lock:
            return sum(
                1
                for e, _ in self._entries.values()
                if user_id is None or thread_key(e)[0] == user_id
            )

    # ------------------------------------------------------------------ thread
    def start(self) -> None:
        """Start the scheduler thread (when deferring or when recovered work waits)."""
        if self._thread is None and (self.enabled or self.has_work):
            self._thread = threading.Thread(
                target=self._loop, name="langgraph-memory-llm-pass", daemon=True
            )
            self._thread.start()

    def flush(self, timeout: float | None = None) -> bool:
        """Run every waiting pass now (no debounce) and wait for all of them; False when
        ``timeout`` expired first."""
        self.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._force += 1
            self._cond.notify_all()
            try:
                while self._entries or self._results or self._running:
                    if self._thread is None:
                        return False
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    self._cond.wait(0.5 if remaining is None else min(remaining, 0.5))
            finally:
                self._force -= 1
        return True

    def close(self, timeout: float | None = None) -> bool:
        """Flush (bounded by ``timeout``), then stop the thread. Work left stays in the
        journal lines (:meth:`lines`) for the next writer."""
        drained = self.flush(timeout) if self.has_work else True
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=None if drained else 1.0)
        with self._cond:
            self._halted = True
        return drained

    def _ready(self, now: float) -> tuple[str, Any] | None:
        if self._results:
            batch_id = next(iter(self._results))
            return ("result", batch_id)
        for key, burst in self._bursts.items():
            if not burst.ids or self._inflight.get(key, 0) > 0:
                continue
            due = burst.last + self.after_s
            if self._force or now >= due or len(burst.ids) >= self.max_turns:
                ids, burst.ids = burst.ids[: self.max_turns], burst.ids[self.max_turns :]
                if not burst.ids:
                    del self._bursts[key]
                return ("burst", ids)
        return None

    def _wait(self, now: float) -> float | None:
        dues = [
            b.last + self.after_s - now
            for k, b in self._bursts.items()
            if b.ids and self._inflight.get(k, 0) == 0
        ]
        return max(0.01, min(dues)) if dues else None

    def _loop(self) -> None:
        while True:
            with self._cond:
                work = self._ready(time.monotonic())
                while work is None:
                    if self._stopping:
                        return
                    self._cond.wait(self._wait(time.monotonic()))
                    work = self._ready(time.monotonic())
                self._running += 1
            try:
                if work[0] == "result":
                    self._store(work[1])
                else:
                    self._read(work[1])
            except _Halted:
                return
            except Exception as exc:  # never let the scheduler die: the journal keeps the work
                log.error(
                    "deferred LLM pass crashed: %s",
                    type(exc).__name__,
                    exc_info=True,
                    extra={"event": "llm_pass_error", "error": type(exc).__name__},
                )
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()

    # ------------------------------------------------------------------ one pass
    def _journal(self, item: Entry) -> None:
        with self._cond:
            if self._halted:
                raise _Halted
            self._append(item, True)

    def _turns(self, ids: list[str]) -> tuple[list[Entry], list[DeferredTurn]]:
        """The entries of ``ids`` still deferred (a forgotten user's are gone), as turns."""
        with self._lock:
            present = [self._entries[i] for i in ids if i in self._entries]
        return [e for e, _ in present], [deferred_turn(e, m.get("done_at")) for e, m in present]

    def _read(self, ids: list[str]) -> None:
        """Ask the model about one burst, journal its answer, then store it."""
        entries, turns = self._turns(ids)
        if not turns:
            return
        ids = [str(e["id"]) for e in entries]
        batch: LLMBatch | None = None
        error = "not run"
        for attempt in range(max(1, self.max_retries)):
            try:
                batch = extract_batch(self.pipeline, turns)
                break
            except Exception as exc:  # retried, then the turns are reported as failed
                error = f"{type(exc).__name__}: {exc}"[:300]
                log.warning(
                    "LLM extractor failed in the deferred pass (attempt %d): %s",
                    attempt + 1,
                    type(exc).__name__,
                    extra={
                        "event": "llm_extract_failed",
                        "attempt": attempt + 1,
                        "error": type(exc).__name__,
                    },
                )
                if attempt + 1 < self.max_retries:
                    time.sleep(self.retry_delay_s * (2**attempt))
        if batch is None:
            batch = LLMBatch(error=error)
        batch_id = uuid.uuid4().hex
        item: Entry = {"op": "llm_result", "batch": batch_id, "ids": ids, **batch.to_json()}
        with self._cond:
            self._journal(item)
            self._results[batch_id] = item
        self._store(batch_id)

    def _store(self, batch_id: str) -> None:
        """Gate and persist a journaled answer, mark it done, deliver the reports."""
        with self._lock:
            item = self._results.get(batch_id)
        if item is None:
            return
        all_ids = [str(i) for i in item.get("ids", [])]
        entries, turns = self._turns(all_ids)
        ids = [str(e["id"]) for e in entries]
        batch = _narrowed(LLMBatch.from_json(item), all_ids, ids)
        reports: list[WriteReport] | None = None
        failure = ""
        for attempt in range(max(1, self.max_retries)):
            try:
                reports = apply_batch(self.pipeline, turns, batch) if turns else []
                break
            except Exception as exc:  # the store failed: retried, then given up (logged)
                failure = f"{type(exc).__name__}: {exc}"[:300]
                if attempt + 1 < self.max_retries:
                    time.sleep(self.retry_delay_s * (2**attempt))
        done: Entry = {"op": "llm_done", "ids": all_ids}
        if reports is None:
            done["error"] = failure
            log.error(
                "deferred LLM pass could not store its facts: %s",
                failure,
                extra={"event": "llm_pass_failed", "error": failure},
            )
        with self._cond:
            self._journal(done)
            self._results.pop(batch_id, None)
            for entry_id in all_ids:
                self._entries.pop(entry_id, None)
        for entry, report in zip(entries, reports or [], strict=False):
            self._deliver(entry, report)


def _narrowed(batch: LLMBatch, all_ids: list[str], ids: list[str]) -> LLMBatch:
    """``batch`` re-indexed to the turns still present (a forgotten user's turns left)."""
    if all_ids == ids:
        return batch
    position = {entry_id: n for n, entry_id in enumerate(ids)}
    remap = {old: position[e] for old, e in enumerate(all_ids) if e in position}
    return LLMBatch(
        candidates=tuple((remap[i], c) for i, c in batch.candidates if i in remap),
        error=batch.error,
        sent=tuple(remap[i] for i in batch.sent if i in remap),
    )


__all__ = ["LLMScheduler", "deferred_turn", "thread_key"]
