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

:meth:`BackgroundWriter.forget_user` drops a user's queued turns and rewrites the journal
without them (call it as part of forgetting a user, next to ``store.delete_user``).

One journal belongs to one writer at a time (an exclusive ``flock`` on ``<journal>.lock``).
"""

from __future__ import annotations

import asyncio
import fcntl
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
from typing import Any

from ..errors import ConfigError
from ..logsafe import get_logger, scrub_text
from ..records import Source
from ..scope import Scope
from .conversation import coerce_time
from .pipeline import WritePipeline
from .types import WriteReport

log = get_logger("write")

_STOP = object()


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
    ) -> None:
        self.pipeline = pipeline
        self.path = Path(journal_path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_retries = max_retries
        self.retry_delay_s = retry_delay_s
        self.on_report = on_report
        self.failed: list[dict[str, Any]] = []
        """Entries that failed ``max_retries`` times: ``{"id", "error", "turn_key"}``; ``error``
        is the exception type and message with quoted text and PII removed
        (:func:`~langgraph_memory.logsafe.scrub_text`)."""
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
        self._closed = False
        self._lock_file = open(self.path.with_name(self.path.name + ".lock"), "a+")  # noqa: SIM115
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self._lock_file.close()
            raise ConfigError(f"journal {self.path} is in use by another BackgroundWriter") from exc
        replay = self._recover()
        self._journal = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        for entry in replay:
            self._outstanding += 1
            self._pending[entry["id"]] = entry
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
        entries: OrderedDict[str, dict[str, Any]] = OrderedDict()
        if self.path.exists():
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        item = json.loads(line)
                    except json.JSONDecodeError:
                        # a torn last line: it was never acknowledged (fsync precedes the ack)
                        log.warning(
                            "skipping torn journal line", extra={"event": "journal_torn_line"}
                        )
                        continue
                    if item.get("op") == "enq":
                        entries[item["id"]] = item
                    elif item.get("op") in {"done", "failed"}:
                        entries.pop(item.get("id", ""), None)
        self._rewrite(list(entries.values()))
        return list(entries.values())

    def _rewrite(self, entries: list[dict[str, Any]]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for entry in entries:
                fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)

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
            self._rewrite([])
            self._journal = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._lines = 0

    # ------------------------------------------------------------------ public API
    def start(self) -> None:
        """Start the worker thread (done by the constructor unless ``start=False``)."""
        if self._worker is None:
            self._worker = threading.Thread(
                target=self._run, name="langgraph-memory-writer", daemon=True
            )
            self._worker.start()

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
            raise ConfigError("enqueue needs a turn_id: replay after a crash relies on it")
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
        self._queue.put(entry)
        return str(entry["id"])

    def process_turn(self, text: str, **kwargs: Any) -> WriteReport:
        """Drop-in for :meth:`WritePipeline.process_turn` that enqueues instead of blocking:
        returns at once (after the journal fsync) with ``queued`` set and no decisions, so a
        ``save_memory`` node can take a ``BackgroundWriter`` as its pipeline."""
        entry = self.enqueue(text, **kwargs)
        redacted = self.pipeline.redactor.redact(text or "")
        from .pipeline import turn_key_of

        key = turn_key_of(kwargs.get("thread_id"), kwargs.get("turn_id")) or "-"
        return WriteReport(
            turn_key=key, redacted_text=redacted.text, pii_found=redacted.types, queued=entry
        )

    async def aprocess_turn(self, text: str, **kwargs: Any) -> WriteReport:
        """Async :meth:`process_turn`."""
        return await asyncio.to_thread(self.process_turn, text, **kwargs)

    async def aenqueue(self, text: str, **kwargs: Any) -> str:
        """Async :meth:`enqueue` (the fsync runs in a worker thread)."""
        return await asyncio.to_thread(self.enqueue, text, **kwargs)

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

    async def aflush(self, timeout: float | None = None) -> bool:
        """Async :meth:`flush`."""
        return await asyncio.to_thread(self.flush, timeout)

    def close(self, timeout: float | None = None) -> bool:
        """Drain the queue, stop the worker, compact the journal and release it. Returns False
        when ``timeout`` expired first (the rest is replayed by the next writer). Idempotent."""
        if self._closed:
            return True
        drained = self.flush(timeout)
        self._closed = True
        self._queue.put(_STOP)
        if self._worker is not None:
            self._worker.join(timeout=None if drained else 1.0)
        with self._append_lock:
            self._journal.close()
        if drained:
            self._rewrite([])
        fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
        self._lock_file.close()
        return drained

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def forget_user(self, user_id: str) -> int:
        """Drop every queued, unprocessed turn of ``user_id`` and rewrite the journal without
        them (their redacted text leaves the disk). Part of forgetting a user; returns how
        many entries were dropped. A turn already being processed is not interrupted."""
        with self._append_lock:
            doomed = [i for i, e in self._pending.items() if e["scope"]["user_id"] == user_id]
            if not doomed:
                return 0
            for entry_id in doomed:
                self._pending.pop(entry_id, None)
                self._skip.add(entry_id)
            self._journal.close()
            self._rewrite(list(self._pending.values()))
            self._journal = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._lines = len(self._pending)
        log.info(
            "queued writes of a forgotten user dropped",
            extra={"event": "journal_forget_user", "user_id": user_id, "count": len(doomed)},
        )
        return len(doomed)

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
                if not skip:
                    self._process(entry)
            finally:
                with self._append_lock:
                    self._pending.pop(entry["id"], None)
                with self._cond:
                    self._outstanding -= 1
                    self._cond.notify_all()
            self._maybe_compact()

    def _process(self, entry: dict[str, Any]) -> None:
        error: BaseException | None = None
        for attempt in range(self.max_retries):
            try:
                report = self.pipeline.process_turn(
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
        record = {
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


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _iso(value: object) -> str | None:
    """A turn time as an ISO-8601 string for the journal (``None`` if not given)."""
    found = coerce_time(value)
    return None if found is None else found.isoformat()


__all__ = ["BackgroundWriter"]
