"""The labelled sets of ``bench write``: where they live, reading them, and choosing a sample."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[3] / "tests" / "data" / "write" / "dev"


DEFAULT_DATA = DATA_DIR / "rules_dev.jsonl"


DEFAULT_SETS = (
    DEFAULT_DATA,
    DATA_DIR / "rules_probe1.jsonl",
    DATA_DIR / "rules_probe2.jsonl",
    DATA_DIR / "rules_probe3.jsonl",
)
"""The development set (written with the rules) and three sets written before being run."""


def load_set(path: str | Path) -> list[dict[str, Any]]:
    """The labelled utterances of a JSONL file."""
    items = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                items.append(json.loads(line))
    return items


def _limited(
    paths: Sequence[str], limit: int | None
) -> list[tuple[str, list[dict[str, Any]] | None]]:
    """Each path with the items to run (``None``: all of them). With ``limit``, at most
    ``limit`` items per group (dev, heldout), split as evenly as the sets allow and taken in
    file order; a set left with no item is dropped."""
    if limit is None:
        return [(p, None) for p in paths]
    if limit < 1:
        raise ValueError(f"--limit must be at least 1, got {limit}")
    out: list[tuple[str, list[dict[str, Any]] | None]] = []
    for group in ("dev", "heldout"):
        members = [p for p in paths if _group(p) == group]
        loaded = {p: load_set(p) for p in members}
        quota = dict.fromkeys(members, 0)
        left = limit
        while left and any(quota[p] < len(loaded[p]) for p in members):
            for p in members:
                if left and quota[p] < len(loaded[p]):
                    quota[p] += 1
                    left -= 1
        out.extend((p, loaded[p][: quota[p]]) for p in members if quota[p])
    return out


def _group(path: str | Path) -> str:
    """``heldout`` for a file under a ``heldout`` folder, else ``dev``."""
    return "heldout" if "heldout" in Path(path).resolve().parts else "dev"


def dev_sets() -> list[Path]:
    """The development sets (``tests/data/write/dev/*.jsonl``)."""
    return sorted(DATA_DIR.glob("*.jsonl"))


def heldout_sets() -> list[Path]:
    """The held-out sets (``tests/data/write/heldout/*.jsonl``): measured, never tuned on."""
    return sorted((DATA_DIR.parent / "heldout").glob("*.jsonl"))
