"""Names and helpers every module of the peers benchmark shares: the systems' display names
(the keys of the result document), the recall depths, the machine note and the logger."""

from __future__ import annotations

import os
import platform
from typing import Any

from ...core.logsafe import get_logger

log = get_logger("eval")

OURS = "langgraph-memory"
OURS_NEIGHBOR = "langgraph-memory (context=neighbor)"
OURS_NONE = "langgraph-memory (context=none)"
OURS_DENSE = "langgraph-memory dense (context=none)"
OURS_OPT = "langgraph-memory, after optimize()"
IMS = "LangGraph InMemoryStore"
MEM0 = "mem0 OSS"
SQLS = "LangGraph SqliteStore"
PEER_KEYS = {"inmemory": IMS, "mem0": MEM0, "sqlite": SQLS}
KS = (5, 10)
MACHINE_NOTE_TAIL = (
    "the load average at the start and end of the run says how much else ran "
    "(ratios of the same run are what compare)"
)


def machine_note() -> str:
    """What the numbers were measured on, read from this machine when the run starts (CPU count,
    processor, OS), followed by :data:`MACHINE_NOTE_TAIL`."""
    cpus = os.cpu_count()
    processor = platform.machine() or platform.processor() or "unknown processor"
    return (
        f"{cpus if cpus is not None else 'unknown number of'} CPU cores ({processor}), "
        f"{platform.system() or 'unknown OS'}, Python {platform.python_version()}; "
        + MACHINE_NOTE_TAIL
    )


def section_ok(result: dict[str, Any], section: str) -> bool:
    """Whether ``section`` ran (it may be missing or hold an ``error``)."""
    entry = result.get(section)
    return isinstance(entry, dict) and "error" not in entry
