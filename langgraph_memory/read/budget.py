"""Fit the memory block into what the context budget leaves for it, line by line.

:class:`~langgraph_memory.graph.nodes.CompactIfNeeded` reserves the whole system text (system
prompt + memory block + re-asserted constraints) from the context budget before it compacts
the history. The memory block grows with the user's memory, so a budget that fits at turn 1
may not fit at turn N. Instead of failing the turn, the block is trimmed, in this order
(:func:`trim_order`):

1. conversation excerpts, lowest-scored first;
2. recalled facts that are not always injected, lowest-scored first;
3. only when what is left (constraints, standing instructions, the task) does not fit even
   the larger room constraints may take (:func:`fit_block`'s ``rules_limit``): constraints
   and standing instructions, the lowest priority first (recalled constraints by ascending
   importance, then procedural memory, then the task's working-memory constraints, each from
   the end of its list). After the cut, every dropped constraint that fits again is put back
   (highest priority first), so as many are kept as fit.

Lines without a known record id (the task's goal, plan and ledger, headers, anything a custom
node wrote) are never dropped; a section header whose lines are all gone is removed with
them. Everything here is a pure function of its inputs.

    >>> block = "\\n".join([
    ...     "<memory>", FACTS_HEADER, "- [f1] preference: \\"tea\\"",
    ...     "- [f2] stable_fact: \\"lives in Oslo\\"", "</memory>"])
    >>> print(remove_lines(block, {"f1", "f2"}))
    <memory>
    </memory>
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..context.constraint_block import CONSTRAINT_BLOCK_END, CONSTRAINT_BLOCK_START
from ..context.constraint_block import format_constraint_block as _format_constraint_block
from .conversation import CONVERSATION_HEADER, FACTS_HEADER

__all__ = [
    "PROCEDURAL_HEADER",
    "TASK_CONSTRAINTS_HEADER",
    "BlockFit",
    "Droppable",
    "block_ids",
    "fit_block",
    "remove_lines",
    "trim_order",
]

PROCEDURAL_HEADER = "Standing instructions (procedural memory; follow them):"
"""Header of the procedural-memory section of the memory block."""
TASK_CONSTRAINTS_HEADER = "Active constraints (must hold for this task):"
"""Header of the working-memory constraints section of the memory block."""

_REINJECTED_HEADER = _format_constraint_block([]).splitlines()[1]
_SECTION_HEADERS = frozenset(
    {PROCEDURAL_HEADER, TASK_CONSTRAINTS_HEADER, FACTS_HEADER, CONVERSATION_HEADER}
    | {_REINJECTED_HEADER}
)
_ITEM = re.compile(r"^\s*(?:- )?\[(?P<id>[^\]\s]+)\]")
_GROUP = re.compile(r"^- said .* \(conversation .*\):$")

Part = Literal["conversation", "facts", "constraints"]
Source = Literal["recalled", "procedural", "state"]


@dataclass(frozen=True, slots=True)
class Droppable:
    """One record line of the memory block that may be trimmed: its record (or constraint)
    id, which part of the block it is in, where it came from, and its rank score (``None``
    for lines injected regardless of similarity)."""

    id: str
    part: Part
    source: Source
    score: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, for events."""
        return {"id": self.id, "part": self.part, "source": self.source, "score": self.score}


@dataclass(frozen=True, slots=True)
class BlockFit:
    """What :func:`fit_block` did: the block to send, the lines it dropped (in the order
    they were dropped), the sizes before and after, and whether the result fits (``False``
    only when every droppable line is gone and the rest is still too large)."""

    block: str
    dropped: list[Droppable]
    tokens_before: int
    tokens_after: int
    fits: bool

    @property
    def dropped_constraints(self) -> list[Droppable]:
        """The dropped lines that were constraints or standing instructions."""
        return [d for d in self.dropped if d.part == "constraints"]


def _item_id(line: str) -> str | None:
    match = _ITEM.match(line)
    return match.group("id") if match else None


def block_ids(block: str) -> set[str]:
    """Ids of the record lines (``- [id] ...``, ``  - [id] ...``, ``[id] ...``) in ``block``."""
    return {i for i in map(_item_id, block.splitlines()) if i is not None}


def _is_group(line: str) -> bool:
    return bool(_GROUP.match(line))


def _drop_empty_headers(lines: list[str], had_items: set[int]) -> list[str]:
    """Remove the headers (listed in ``had_items`` by index) that no longer head any line,
    and a re-injected constraint block left without rules."""
    keep = [True] * len(lines)
    following: str | None = None  # the next kept line
    for at in range(len(lines) - 1, -1, -1):
        line = lines[at]
        if at in had_items:
            if _is_group(line):
                keep[at] = following is not None and following.startswith("  ")
            else:
                keep[at] = following is not None and (
                    _item_id(following) is not None or _is_group(following)
                )
        if keep[at]:
            following = line
    kept = [line for line, k in zip(lines, keep, strict=True) if k]
    out: list[str] = []
    for line in kept:
        if line == CONSTRAINT_BLOCK_END and out and out[-1] == CONSTRAINT_BLOCK_START:
            out.pop()
            while out and not out[-1].strip():
                out.pop()
            continue
        out.append(line)
    return out


def _headers_with_items(lines: Sequence[str]) -> set[int]:
    """Indexes of the section and group headers that head at least one record line."""
    heads: set[int] = set()
    section: int | None = None
    group: int | None = None
    for at, line in enumerate(lines):
        if line in _SECTION_HEADERS:
            section, group = at, None
        elif _is_group(line):
            group = at
        elif _item_id(line) is not None:
            heads.update(h for h in (section, group) if h is not None)
        elif not line.startswith(("-", " ")):
            section, group = None, None
    return heads


def remove_lines(block: str, ids: Collection[str]) -> str:
    """``block`` without the record lines of ``ids``; a header whose record lines are all
    removed goes too (a conversation's date line, a section header, an empty re-injected
    constraint block). Every other line is kept, in order."""
    if not ids:
        return block
    lines = block.splitlines()
    heads = _headers_with_items(lines)
    kept: list[str] = []
    kept_heads: set[int] = set()
    for at, line in enumerate(lines):
        if _item_id(line) in ids:
            continue
        if at in heads:
            kept_heads.add(len(kept))
        kept.append(line)
    return "\n".join(_drop_empty_headers(kept, kept_heads))


def _score(item: Mapping[str, Any]) -> float:
    value = item.get("score")
    return float(value) if isinstance(value, int | float) else 0.0


_RULE_KINDS = frozenset({"constraint", "instruction"})


def _is_rule(item: Mapping[str, Any]) -> bool:
    """A recalled constraint: always injected, or of a rule kind (recalled by similarity)."""
    explanation = item.get("explanation")
    always = isinstance(explanation, Mapping) and explanation.get("reason") == "always"
    return always or item.get("kind") in _RULE_KINDS


def _importance(item: Mapping[str, Any]) -> int:
    value = item.get("importance")
    return int(value) if isinstance(value, int | float) else 0


def trim_order(
    recalled: Sequence[Mapping[str, Any]],
    procedural: Sequence[Mapping[str, Any]],
    constraint_ids: Sequence[str],
    *,
    present: Collection[str],
) -> list[Droppable]:
    """The lines of the block that may be dropped, first to drop first (see the module
    docstring). Only ids in ``present`` (the block's record lines) are listed, each once.
    ``recalled`` / ``procedural``: the state's lists; ``constraint_ids``: the task's
    working-memory constraints, in their order."""
    excerpts = [r for r in recalled if r.get("part") == "conversation"]
    facts = [r for r in recalled if r.get("part") != "conversation" and not _is_rule(r)]
    rules = [r for r in recalled if r.get("part") != "conversation" and _is_rule(r)]
    order: list[Droppable] = [
        Droppable(str(r["id"]), "conversation", "recalled", _score(r))
        for r in sorted(excerpts, key=_score)
    ]
    order += [
        Droppable(str(r["id"]), "facts", "recalled", _score(r)) for r in sorted(facts, key=_score)
    ]
    order += [
        Droppable(str(r["id"]), "constraints", "recalled")
        for r in sorted(reversed(rules), key=_importance)
    ]
    order += [Droppable(str(p["id"]), "constraints", "procedural") for p in reversed(procedural)]
    order += [Droppable(i, "constraints", "state") for i in reversed(constraint_ids)]
    seen: set[str] = set()
    unique: list[Droppable] = []
    for item in order:
        if item.id in present and item.id not in seen:
            seen.add(item.id)
            unique.append(item)
    return unique


Sizer = Callable[[str, Sequence[str]], int]
"""``(block, dropped ids) -> tokens`` of the system text that block would make (dropped
constraints are not re-asserted)."""


def _cut(
    order: Sequence[Droppable],
    measure: Callable[[Sequence[Droppable]], int],
    limit: int,
    already: Sequence[Droppable] = (),
) -> list[Droppable]:
    """The shortest prefix of ``order`` that, dropped with ``already``, measures ``<= limit``
    (all of ``order`` when none does). Binary search: ``measure`` must not grow as more
    lines are dropped."""
    if measure([*already, *order]) > limit:
        return list(order)
    low, high = 0, len(order)
    while low < high:
        mid = (low + high) // 2
        if measure([*already, *order[:mid]]) <= limit:
            high = mid
        else:
            low = mid + 1
    return list(order[:low])


def fit_block(
    block: str,
    order: Sequence[Droppable],
    size: Sizer,
    limit: int,
    *,
    rules_limit: int | None = None,
) -> BlockFit:
    """Trim ``block`` until ``size`` is at most ``limit``: the shortest prefix of the lines of
    ``order`` that are not constraints first; only if all of them are not enough, constraints
    (in ``order``) until ``size`` is at most ``rules_limit`` (default and minimum ``limit``:
    constraints may take room that recalled lines may not), then every dropped constraint
    that fits again is put back, highest priority (last in ``order``) first.

    Guarantees: ``tokens_after == size(result.block, dropped ids)``; ``fits`` is
    ``tokens_after <= rules_limit`` and is false only when dropping all of ``order`` is not
    enough (then all of it is dropped); a constraint is dropped only when every other line
    of ``order`` is and it could not be put back. ``size`` must not grow as lines are removed
    (the cut is found by binary search).
    """
    hard = limit if rules_limit is None else max(limit, rules_limit)
    before = size(block, ())
    if before <= limit:
        return BlockFit(block, [], before, before, True)

    def measure(dropped: Sequence[Droppable]) -> int:
        ids = [d.id for d in dropped]
        return size(remove_lines(block, set(ids)), ids)

    rules = [d for d in order if d.part == "constraints"]
    dropped = _cut([d for d in order if d.part != "constraints"], measure, limit)
    if measure(dropped) > hard:
        dropped += _cut(rules, measure, hard, dropped)
        for item in reversed([d for d in dropped if d.part == "constraints"]):
            trial = [d for d in dropped if d is not item]
            if measure(trial) <= hard:
                dropped = trial
    after = measure(dropped)
    ids = {d.id for d in dropped}
    return BlockFit(remove_lines(block, ids), dropped, before, after, after <= hard)
