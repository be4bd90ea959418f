"""Running ``bench agent-locomo``: every selected conversation, the summary, the result document."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from ..common import machine_info
from ..locomo import DEFAULT_DATA, find_data, load_locomo
from .replay import DEFAULT_K, FAKE_MODEL_LABEL, ConversationResult, run_conversation
from .selection import _dev_split, select
from .summary import summarise


def run(
    data: str | Path = DEFAULT_DATA,
    *,
    k: int = DEFAULT_K,
    conversations: str | int | None = None,
    max_sessions: int | None = None,
    embedder: str = "use-multilingual",
    progress: bool = True,
    quick: bool = False,
    per_question: str | Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark and return the result document (see the module docstring); with
    ``per_question`` also write one JSON line per question there (:func:`question_detail`)."""
    from ...embeddings import load_embedder

    path = find_data(data)
    all_turns, all_questions = load_locomo(path)
    turns, questions = select(
        all_turns, all_questions, conversations=conversations, max_sessions=max_sessions
    )
    model = load_embedder(embedder)  # loaded once, shared by every conversation's store
    started = time.perf_counter()
    results: list[ConversationResult] = []
    with tempfile.TemporaryDirectory(prefix="lgm-agent-locomo-") as tmp:
        for conv_id in dict.fromkeys(t.conversation for t in turns):
            results.append(
                run_conversation(
                    conv_id,
                    [t for t in turns if t.conversation == conv_id],
                    [q for q in questions if q.conversation == conv_id],
                    Path(tmp) / conv_id,
                    k=k,
                    embedder=model,
                    progress=progress,
                    details=per_question is not None,
                )
            )
    if per_question is not None:
        target = Path(per_question)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as fh:
            for r in results:
                for line in r.details:
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return {
        "benchmark": "agent_locomo",
        "data": str(path),
        "model": FAKE_MODEL_LABEL,
        "embedder": model.name,
        "k": k,
        "quick": quick,
        "max_sessions": max_sessions,
        "conversations": [r.conversation for r in results],
        "turns": len(turns),
        "questions": len(questions),
        "seconds": time.perf_counter() - started,
        "results": summarise(results, dev=_dev_split(all_turns)),
        "machine": machine_info(),
    }
