"""Which conversations, sessions and questions a ``bench agent-locomo`` run uses; the dev split."""

from __future__ import annotations

from collections.abc import Sequence

from ..locomo import Question, Turn


def select(
    turns: Sequence[Turn],
    questions: Sequence[Question],
    *,
    conversations: str | int | None = None,
    max_sessions: int | None = None,
) -> tuple[list[Turn], list[Question]]:
    """Keep the chosen conversations (a count: the first N in file order; or comma-separated
    ids) and, with ``max_sessions``, their first sessions and only the questions whose
    evidence lies entirely inside them."""
    order = list(dict.fromkeys(t.conversation for t in turns))
    keep: list[str] = order
    if conversations is not None and str(conversations).strip():
        spec = str(conversations).strip()
        if spec.isdigit():
            keep = order[: int(spec)]
        else:
            wanted = [c.strip() for c in spec.split(",") if c.strip()]
            unknown = [c for c in wanted if c not in order]
            if unknown:
                raise ValueError(f"unknown conversation id(s) {unknown}; known: {order}")
            keep = wanted
    kept = set(keep)
    turns = [t for t in turns if t.conversation in kept]
    questions = [q for q in questions if q.conversation in kept]
    if max_sessions is not None:
        first: dict[str, set[int]] = {}
        for c in keep:
            first[c] = set(sorted({t.session for t in turns if t.conversation == c})[:max_sessions])
        turns = [t for t in turns if t.session in first[t.conversation]]
        present = {(t.conversation, t.dia_id) for t in turns}
        questions = [
            q for q in questions if all((q.conversation, e) in present for e in q.evidence)
        ]
    rank = {c: i for i, c in enumerate(keep)}
    turns.sort(key=lambda t: rank[t.conversation])  # stable: turn order kept
    questions.sort(key=lambda q: rank[q.conversation])
    return turns, questions


DEV_CONVERSATIONS = 5
"""The first five conversations of the file are the development split (defaults may be
chosen on them); the other five are held out and reported separately."""


def _dev_split(turns: Sequence[Turn]) -> list[str] | None:
    """LoCoMo's development conversations (the first five of the file); ``None`` for other
    LoCoMo-shaped sets (the shipped synthetic sets are held out whole)."""
    ids = list(dict.fromkeys(t.conversation for t in turns))
    if not all(i.startswith("conv-") for i in ids):
        return None
    return ids[:DEV_CONVERSATIONS]
