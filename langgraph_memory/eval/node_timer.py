"""A LangChain callback handler timing LangGraph node tasks by node name (shared by ``bench peers``
and ``bench turn``)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler


class NodeTimer:
    """LangChain callback handler timing LangGraph node tasks by node name (what LangGraph
    itself reports as each task's chain start/end)."""

    def __init__(self, names: Sequence[str]) -> None:
        timer = self
        self.names = set(names)
        self.times: dict[str, list[float]] = defaultdict(list)
        self._open: dict[Any, tuple[str, float]] = {}

        class _Handler(BaseCallbackHandler):
            def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
                name = kw.get("name") or ""
                if name in timer.names:
                    timer._open[kw["run_id"]] = (name, time.perf_counter())

            def on_chain_end(self, outputs: Any, **kw: Any) -> None:
                started = timer._open.pop(kw["run_id"], None)
                if started is not None:
                    timer.times[started[0]].append((time.perf_counter() - started[1]) * 1e3)

            def on_chain_error(self, error: BaseException, **kw: Any) -> None:
                timer._open.pop(kw["run_id"], None)

        self.handler = _Handler()


__all__ = ["NodeTimer"]
