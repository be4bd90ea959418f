"""Helpers shared by the benchmarks: percentiles, result files, tables, progress bars."""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def make_console() -> Console:
    """A console at least 140 columns wide, so tables stay readable when piped to a file."""
    import shutil

    return Console(width=max(140, shutil.get_terminal_size((140, 24)).columns))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_json(path: str | os.PathLike[str] | None, data: dict[str, Any]) -> Path | None:
    """Write ``data`` as indented JSON to ``path`` (parents created); None when no path."""
    if not path:
        return None
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    return out


def print_table(
    console: Console, title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Print a rich table; floats are shown with 3 decimals."""
    table = Table(title=title)
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row])
    console.print(table)


AGENT_TURNS = [
    "I prefer green tea in the morning",
    "What did I tell you about my travel plans?",
    "以后都用中文回答",
    "Actually I prefer coffee now",
    "Remind me which seat I like on planes",
    "My sister booked a trip to Kyoto in April",
    "我喜欢周末去爬山",
    "Can you summarise my food preferences?",
]
"""User turns the agent-turn benches cycle through (preferences, questions, a correction,
an event; English and Chinese)."""


__all__ = ["AGENT_TURNS", "machine_info", "make_console", "percentile", "print_table", "write_json"]
