"""The metrics of a ``bench agent-locomo`` run: per question category, per conversation, dev /
held-out splits. Pure functions of the per-conversation results."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..common import percentile
from ..locomo import CATEGORIES
from .evidence import QuestionScore
from .replay import ConversationResult


def _rate(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _metrics(scores: Sequence[QuestionScore]) -> dict[str, Any]:
    return {
        "n": len(scores),
        "evidence_in_prompt_any": _rate([s.prompt_any for s in scores]),
        "evidence_in_prompt_all": _rate([s.prompt_all for s in scores]),
        "recalled_any": _rate([s.recalled_any for s in scores]),
        "recalled_all": _rate([s.recalled_all for s in scores]),
        "evidence_text_in_prompt_any": _rate([s.text_any for s in scores]),
        "evidence_text_in_prompt_all": _rate([s.text_all for s in scores]),
        "ranked_any": _rate([s.ranked_any for s in scores]),
        "ranked_all": _rate([s.ranked_all for s in scores]),
    }


def _dist(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": sum(values) / len(values) if values else float("nan"),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "max": max(values) if values else float("nan"),
    }


def summarise(
    results: Sequence[ConversationResult], dev: Sequence[str] | None = None
) -> dict[str, Any]:
    """The overall numbers, per category, per split (``dev``: the development
    conversations' ids; the others are held out) and per conversation."""
    scores = [s for r in results for s in r.scores]
    turns = sum(r.turns for r in results)
    records = sum(r.records for r in results)
    by_cat: dict[str, Any] = {}
    for cat, name in CATEGORIES.items():
        these = [s for s in scores if s.category == cat]
        if these:
            by_cat[name] = _metrics(these)
    layers: dict[str, int] = defaultdict(int)
    for r in results:
        for layer, n in r.records_by_layer.items():
            layers[layer] += n
    return {
        "overall": {
            **_metrics(scores),
            "turns": turns,
            "records": records,
            "records_per_100_turns": 100.0 * records / turns if turns else float("nan"),
            "records_by_layer": dict(layers),
            "turns_without_timestamp": sum(r.turns_without_timestamp for r in results),
            "memory_tokens_question": _dist(
                [float(v) for r in results for v in r.question_memory_tokens]
            ),
            "memory_tokens_replay": _dist(
                [float(v) for r in results for v in r.replay_memory_tokens]
            ),
            "prompt_record_ids_mean": _rate_mean([s.prompt_ids for s in scores]),
            "prompt_record_ids_max": max((s.prompt_ids for s in scores), default=0),
            "ranked_records_mean": _rate_mean([s.ranked_ids for s in scores]),
            "ranked_records_max": max((s.ranked_ids for s in scores), default=0),
            "state_recalled_items_mean": _rate_mean([s.recalled_ids for s in scores]),
            "latency_ms_replay": _dist([v for r in results for v in r.replay_ms]),
            "latency_ms_question": _dist([v for r in results for v in r.question_ms]),
        },
        "by_category": by_cat,
        "splits": _splits(results, dev) if dev is not None else {},
        "by_conversation": {
            r.conversation: {
                **_metrics(r.scores),
                "turns": r.turns,
                "sessions": r.sessions,
                "records": r.records,
                "records_per_100_turns": 100.0 * r.records / r.turns if r.turns else float("nan"),
                "seconds": r.seconds,
            }
            for r in results
        },
        "state_keys_seen": sorted({k for r in results for k in r.state_keys}),
    }


def _splits(results: Sequence[ConversationResult], dev: Sequence[str]) -> dict[str, Any]:
    """Metrics of the development and the held-out conversations, separately."""
    out: dict[str, Any] = {}
    for name, members in (
        ("dev", [r for r in results if r.conversation in dev]),
        ("held_out", [r for r in results if r.conversation not in dev]),
    ):
        scores = [s for r in members for s in r.scores]
        if scores:
            out[name] = {"conversations": [r.conversation for r in members], **_metrics(scores)}
    return out


def _rate_mean(values: Sequence[int]) -> float:
    return sum(values) / len(values) if values else float("nan")
