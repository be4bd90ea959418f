"""Running ``bench write`` on one labelled set: every utterance through the write path on a fresh
store, one user each, with the raw rows the scoring reads."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .data import DEFAULT_DATA, load_set
from .drivers import _Capture, _driver
from .scoring import (
    VALUE_ACTIONS,
    WRITE_ACTIONS,
    _expected,
    _norm,
    _still_current,
    _variants,
    summarize,
)

if TYPE_CHECKING:
    from ...embeddings import Embedder
    from ...store import MemoryStore
    from ...write import LLMExtractor, StructuredChatModel, WriteConfig
    from ...write.classify import ClauseClassifier


_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)


def _occurs(value: str, text: str) -> bool:
    """True when ``value`` is in ``text``; a value of digits only counts where no letter or
    digit touches it and not inside a UUID (PIN ``5512`` is not leaked by a confidence of
    ``0.98551287`` or by a record id's ``…-5512-…`` group, which hold any short digit string
    by chance)."""
    if not value.isdigit():
        return value in text
    text = _UUID.sub(" ", text)
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(value)}(?![0-9A-Za-z])", text) is not None


def run(
    path: str | Path = DEFAULT_DATA,
    *,
    store: MemoryStore | None = None,
    embedder: str | Embedder | None = None,
    config: WriteConfig | None = None,
    classifier: ClauseClassifier | None = None,
    items: list[dict[str, Any]] | None = None,
    via: str = "pipeline",
    llm_extractor: StructuredChatModel | LLMExtractor | None = None,
) -> dict[str, Any]:
    """Run the benchmark on ``path`` and return the metrics (see module docstring).

    ``store`` defaults to a fresh ``MemoryStore`` over ``QdrantClient(":memory:")`` with
    ``embedder`` (default: the multilingual USE embedder). The store is closed only if this
    function created it. ``classifier`` replaces the shipped clause classifier and ``items``
    the file's utterances (both for cross-validation, see ``train-classifier --cv-bench``).
    ``via``: how the turns reach the write path — ``pipeline`` (``process_turn``),
    ``background`` (a ``BackgroundWriter`` with a journal) or ``graph`` (the compiled
    ``create_memory_agent`` with a scripted model; model-sourced items go to the pipeline).
    ``llm_extractor``: a chat model or ``LLMExtractor`` added to the pipeline (run per
    ``config.llm_mode``).
    """
    from ...core.records import Source
    from ...core.scope import Scope
    from ...write import WriteConfig, WritePipeline

    items = load_set(path) if items is None else items
    own_store = store is None
    if store is None:
        from qdrant_client import QdrantClient

        from ...embeddings import load_embedder
        from ...store import MemoryStore

        store = MemoryStore(
            client=QdrantClient(":memory:"), embedder=embedder or load_embedder("use-multilingual")
        )
    pipeline = WritePipeline(
        store, config or WriteConfig(), classifier=classifier, llm_extractor=llm_extractor
    )
    drive = _driver(via, pipeline, store)
    capture = _Capture()
    root = logging.getLogger("langgraph_memory")
    old_level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    reports_text: list[str] = []
    try:
        for item in items:
            scope = Scope(user_id=f"bench-{item['id']}", project_id=item.get("project_id"))
            confirmed = bool(item.get("confirmed", False))
            for i, setup in enumerate(item.get("setup") or []):
                drive(setup, scope, f"setup{i}", f"{item['id']}-s{i}", Source.USER, confirmed)
            report = drive(
                item["text"],
                scope,
                "main",
                f"{item['id']}-m",
                Source(item.get("source", "user")),
                confirmed,
            )
            reports_text.append(report.model_dump_json())
            got_write = any(d.action in WRITE_ACTIONS for d in report.decisions)
            got = sorted(
                {_norm(d.candidate.key()) for d in report.decisions if d.action in VALUE_ACTIONS}
            )
            written = [
                (_norm(d.candidate.key()), d.candidate.kind, d.candidate.correction)
                for d in report.decisions
                if d.action in VALUE_ACTIONS
            ]
            still = _still_current(store, scope, item.get("retracts") or [])
            rows.append(
                {
                    "id": item["id"],
                    "lang": item.get("lang", "en"),
                    "category": item.get("category", ""),
                    "text": report.redacted_text,
                    "should_write": bool(item["should_write"]),
                    "wrote": got_write,
                    "expected": sorted(_norm(t[:3]) for t in item.get("expected", [])),
                    "expected_items": [_expected(t, item) for t in item.get("expected", [])],
                    "kind": item.get("kind") or item.get("category", ""),
                    "got": got,
                    "written": written,
                    "extractors": [
                        d.candidate.extractor for d in report.decisions if d.action in WRITE_ACTIONS
                    ],
                    "retracts": item.get("retracts") or [],
                    "still_current": still,
                    "actions": [d.action for d in report.decisions],
                    "reasons": [d.reason for d in report.decisions],
                    "pii": sorted(item.get("pii", [])),
                    "pii_found": sorted(report.pii_found),
                    "pii_values": item.get("pii_values", []),
                    "scope": scope,
                }
            )
        elapsed = time.perf_counter() - started
        # ---------------------------------------------------------------- leaks
        stored_text: list[str] = []
        for row in rows:
            for rec in store.list(scope=row["scope"], current_only=False, include_internal=True):
                stored_text.append(rec.model_dump_json())
        haystacks = {
            "store": "\n".join(stored_text),
            "logs": "\n".join(capture.lines),
            "reports": "\n".join(reports_text),
        }
        leaks: list[dict[str, str]] = []
        for row in rows:
            for value in row["pii_values"]:
                for variant in _variants(value):
                    for where, text in haystacks.items():
                        if _occurs(variant, text):
                            leaks.append(
                                {"id": row["id"], "where": where, "type": ",".join(row["pii"])}
                            )
    finally:
        root.removeHandler(capture)
        root.setLevel(old_level)
        if own_store:
            store.close()

    for row in rows:
        row.pop("scope", None)
    return summarize(
        str(path),
        rows,
        leaks=leaks,
        log_lines=len(capture.lines),
        records=len(stored_text),
        elapsed=elapsed,
    )
