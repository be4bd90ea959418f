"""Turns run through ``bench write``'s pipeline (real default embedder, no LLM) for the write
path's phrasing tests: one item per text, unlabelled (the tests assert what was written)."""

from __future__ import annotations

from typing import Any

from langgraph_memory.eval import write_bench


def bench_item(i: int, text: str, setup: list[str] | None = None) -> dict[str, Any]:
    """A ``bench write`` item for ``text`` (id ``t-<i>``), with earlier turns ``setup``."""
    item: dict[str, Any] = {
        "id": f"t-{i}",
        "text": text,
        "lang": "en",
        "kind": "chitchat",
        "should_write": False,
        "expected": [],
        "category": "t",
        "pii": [],
        "pii_values": [],
    }
    if setup:
        item["setup"] = setup
    return item


def written_by_turn(*texts: str) -> list[list[tuple[str, str, str]]]:
    """The ``(subject, predicate, object)`` records each text wrote, in the order written."""
    rows = write_bench.run(items=[bench_item(i, t) for i, t in enumerate(texts)])["rows"]
    return [[(w[0][0], w[0][1], w[0][2]) for w in row["written"]] for row in rows]
