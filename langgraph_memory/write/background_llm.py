"""The :class:`~langgraph_memory.write.BackgroundWriter`'s side of the deferred LLM pass: its
options checked, the scheduler built (:class:`~langgraph_memory.write.reflection.LLMScheduler`),
and the pass's reports kept until ``save_memory`` hands them out on the thread's next run.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple

from ..errors import ConfigError
from .pipeline import WritePipeline
from .reflection import Entry, LLMScheduler
from .types import WriteReport

DEFER_NEEDS_MODEL = (
    "defer_llm=True needs a WritePipeline with an llm_extractor and llm_mode 'fallback' or "
    "'always' (WritePipeline(store, llm_extractor=chat_model))"
)


class LLMPassReport(NamedTuple):
    """The deferred LLM pass's report of one turn (:meth:`BackgroundWriter.take_llm_reports`)."""

    entry_id: str
    turn_id: str
    report: WriteReport


def llm_scheduler(
    pipeline: WritePipeline,
    *,
    defer: bool,
    after_s: float,
    max_turns: int,
    max_retries: int,
    retry_delay_s: float,
    lock: threading.RLock,
    append: Callable[[Entry, bool], None],
    deliver: Callable[[Entry, WriteReport], None],
) -> LLMScheduler:
    """The writer's scheduler (disabled unless ``defer``), after checking the options: bad
    values raise :class:`~langgraph_memory.errors.ConfigError`."""
    if not isinstance(defer, bool):
        raise ConfigError(f"defer_llm must be True or False, got {defer!r}")
    if defer and (pipeline.llm_extractor is None or pipeline.config.llm_mode == "off"):
        raise ConfigError(DEFER_NEEDS_MODEL)
    if isinstance(after_s, bool) or not isinstance(after_s, int | float):
        raise ConfigError(f"llm_after_s must be a number of seconds, got {after_s!r}")
    if not math.isfinite(after_s) or after_s < 0:
        raise ConfigError(f"llm_after_s must be finite and >= 0, got {after_s!r}")
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ConfigError(f"llm_max_turns must be a positive integer, got {max_turns!r}")
    return LLMScheduler(
        pipeline,
        enabled=defer,
        after_s=float(after_s),
        max_turns=max_turns,
        max_retries=max_retries,
        retry_delay_s=retry_delay_s,
        lock=lock,
        append=append,
        deliver=deliver,
    )


class PassReports:
    """The latest ``keep`` deferred-pass reports, by entry id, each handed out once per
    ``(user_id, thread_id)``. Not thread-safe by itself: the writer holds its lock."""

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._reports: OrderedDict[str, LLMPassReport] = OrderedDict()
        self._owner: dict[str, tuple[str, str | None]] = {}

    def put(self, entry: Entry, report: WriteReport) -> None:
        """Keep the pass's ``report`` of journal ``entry`` (the oldest beyond ``keep`` go)."""
        entry_id = str(entry["id"])
        self._reports[entry_id] = LLMPassReport(entry_id, str(entry["turn_id"]), report)
        self._owner[entry_id] = (str(entry["scope"]["user_id"]), entry.get("thread_id"))
        while len(self._reports) > self._keep:
            gone, _ = self._reports.popitem(last=False)
            self._owner.pop(gone, None)

    def take(self, user_id: str, thread_id: str | None) -> list[LLMPassReport]:
        """The reports of ``user_id``'s thread kept since the last call, oldest first."""
        ids = [i for i, owner in self._owner.items() if owner == (user_id, thread_id)]
        out = [self._reports.pop(i) for i in ids if i in self._reports]
        for i in ids:
            self._owner.pop(i, None)
        return out


__all__ = ["DEFER_NEEDS_MODEL", "LLMPassReport", "PassReports", "llm_scheduler"]
