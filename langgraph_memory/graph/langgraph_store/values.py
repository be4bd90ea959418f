"""BaseStore values: the text to embed, and ``filter=`` as engine conditions.

Filters follow LangGraph's ``InMemoryStore``: each key names a top-level field of the value;
a plain value must equal it (a dict compares its listed keys recursively, a list compares
element by element), and a dict of operators applies ``$eq``, ``$ne``, ``$gt``, ``$gte``,
``$lt``, ``$lte`` to it. Differences, by design: the range operators compare numbers only (a
missing or non-numeric field never matches, where ``InMemoryStore`` raises), ``True`` equals
only ``True`` (not ``1``), and an unknown operator raises
:class:`~langgraph_memory.errors.FilterError`.

:func:`engine_conditions` turns the parts it can into conditions on the stored value (pushed
into the vector query and the keyword side). They may admit more than the filter (an array
field matches when one element does), so every candidate is checked again with
:func:`value_matches` (:class:`FilterPlan`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base.embed import get_text_at_path, tokenize_path

from ...core.records import MAX_TEXT_CHARS
from ...errors import FilterError
from ...store.filters import Cond, Eq, Range

VALUE_PATH = "metadata.lg.value"
"""Payload path of a stored BaseStore value (inside the record's ``metadata``)."""
OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
"""The comparison operators a filter may use (BaseStore's documented set)."""
_SAFE_KEY = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""Value keys that can be written as an engine field path; others are checked in Python."""
_DEFAULT_TEXT_FIELDS = ("text", "content")


# ---------------------------------------------------------------------------- text to embed
def _string_leaves(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        if node.strip():
            out.append(node.strip())
    elif isinstance(node, Mapping):
        for child in node.values():
            _string_leaves(child, out)
    elif isinstance(node, list | tuple):
        for child in node:
            _string_leaves(child, out)


def default_text(value: Mapping[str, Any]) -> str:
    """The text embedded for a value put with ``index=None`` (and no store-level fields):
    ``value["text"]``, else ``value["content"]`` (a string, or the strings inside it, so
    LangMem's ``{"kind": "Memory", "content": {"content": "..."}}`` embeds its memory), else
    every string in the value, else the value as JSON. '' for an empty value."""
    for name in _DEFAULT_TEXT_FIELDS:
        field = value.get(name)
        parts: list[str] = []
        _string_leaves(field, parts)
        if parts:
            return "\n".join(parts)
    parts = []
    _string_leaves(value, parts)
    if parts:
        return "\n".join(parts)
    return "" if not value else json.dumps(value, ensure_ascii=False, sort_keys=True)


def index_text(value: Mapping[str, Any], paths: Sequence[str] | None) -> str:
    """The text to embed: the texts at ``paths`` (BaseStore path syntax: ``"a.b"``,
    ``"items[*].text"``, ``"$"`` for the whole value as JSON), joined by newlines, or
    :func:`default_text` when ``paths`` is None. At most ``MAX_TEXT_CHARS`` characters."""
    if paths is None:
        text = default_text(value)
    else:
        texts: list[str] = []
        for path in paths:
            texts.extend(t for t in get_text_at_path(dict(value), tokenize_path(path)) if t)
        text = "\n".join(texts)
    return text.strip()[:MAX_TEXT_CHARS]


def check_index(index: Any) -> Sequence[str] | bool | None:
    """A ``put`` ``index=`` argument: ``False``, ``None`` or a list of field paths."""
    if index is None or index is False:
        return index  # type: ignore[no-any-return]
    if isinstance(index, list | tuple) and all(isinstance(p, str) and p for p in index):
        return list(index)
    raise TypeError(f"index must be False, None or a list of field paths, got {index!r}")


# ---------------------------------------------------------------------------- filters
def _same(a: Any, b: Any) -> bool:
    """Equality with bools distinct from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _apply(got: Any, op: str, target: Any) -> bool:
    if op == "$eq":
        return compare(got, target)
    if op == "$ne":
        return not compare(got, target)
    if not (_number(got) and _number(target)):
        return False
    if op == "$gt":
        return bool(got > target)
    if op == "$gte":
        return bool(got >= target)
    if op == "$lt":
        return bool(got < target)
    return bool(got <= target)


def _operators(cond: Mapping[str, Any]) -> bool:
    if not any(isinstance(k, str) and k.startswith("$") for k in cond):
        return False
    unknown = [k for k in cond if k not in OPERATORS]
    if unknown:
        raise FilterError(f"unknown filter operator(s) {unknown}; supported: {list(OPERATORS)}")
    return True


def compare(got: Any, cond: Any) -> bool:
    """Whether a value field ``got`` satisfies one filter condition (module docstring)."""
    if isinstance(cond, Mapping):
        if _operators(cond):
            return all(_apply(got, op, target) for op, target in cond.items())
        if not isinstance(got, Mapping):
            return False
        return all(compare(got.get(k), v) for k, v in cond.items())
    if isinstance(cond, list | tuple):
        return (
            isinstance(got, list | tuple)
            and len(got) == len(cond)
            and all(compare(g, c) for g, c in zip(got, cond, strict=True))
        )
    return _same(got, cond)


def value_matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether a stored value passes ``filter`` (all its keys must match)."""
    return not filter or all(compare(value.get(k), c) for k, c in filter.items())


def _eq_cond(path: str, target: Any) -> Cond | None:
    """A superset condition for ``field == target`` on a scalar, or None (check in Python)."""
    if isinstance(target, str):
        return Eq(path, target)
    if _number(target):
        return Range(path, gte=float(target), lte=float(target))
    return None  # bools, None, lists: Python only


def _conds_for(path: str, cond: Any, out: list[Cond]) -> bool:
    """Append superset conditions for ``cond`` on ``path``; True when every part of ``cond``
    was pushed (False: some part is checked in Python only, e.g. ``$ne``, ``None``, a list)."""
    if isinstance(cond, Mapping):
        if _operators(cond):
            complete = True
            for op, target in cond.items():
                c: Cond | None
                if op == "$eq":
                    c = _eq_cond(path, target)
                elif op == "$ne":
                    c = None  # an array holding the value is "!=" it: Python decides
                else:
                    if not _number(target):
                        raise FilterError(
                            f"filter operator {op} compares numbers, got {type(target).__name__}"
                        )
                    c = Range(path, **{op[1:]: float(target)})
                if c is None:
                    complete = False
                else:
                    out.append(c)
            return complete
        complete = bool(cond)
        for key, sub in cond.items():
            if not isinstance(key, str) or not _SAFE_KEY.fullmatch(key):
                _check_only(sub)
                complete = False
                continue
            complete = _conds_for(f"{path}.{key}", sub, out) and complete
        return complete
    c = _eq_cond(path, cond)
    if c is None:
        return False
    out.append(c)
    return True


@dataclass(frozen=True, slots=True)
class FilterPlan:
    """A filter as engine conditions that admit a superset of its matches (``conds``), the
    exact Python check (:meth:`matches`), and whether every part was pushed (``complete``:
    the superset is then tight, off only where a field holds an array)."""

    conds: tuple[Cond, ...]
    filter: Mapping[str, Any] | None
    complete: bool

    def matches(self, value: Mapping[str, Any]) -> bool:
        """The exact check of one stored value."""
        return value_matches(value, self.filter)


def plan_filter(filter: Any) -> FilterPlan:
    """Check ``filter`` and push what can be pushed (see the module docstring);
    :class:`FilterError` for a malformed filter."""
    if filter is None or filter == {}:
        return FilterPlan((), None, True)
    if not isinstance(filter, Mapping):
        raise FilterError(f"filter must be a dict of value field -> condition, got {filter!r}")
    out: list[Cond] = []
    complete = True
    for key, cond in filter.items():
        if not isinstance(key, str) or not key:
            raise FilterError(f"filter keys must be non-empty strings, got {key!r}")
        if key.startswith("$"):
            raise FilterError(f"filter key {key!r}: operators go inside a field's condition")
        if _SAFE_KEY.fullmatch(key):
            complete = _conds_for(f"{VALUE_PATH}.{key}", cond, out) and complete
        else:
            _check_only(cond)
            complete = False
    return FilterPlan(tuple(out), dict(filter), complete)


def _check_only(cond: Any) -> None:
    """Validate operators of a condition that is evaluated in Python only."""
    if isinstance(cond, Mapping):
        if _operators(cond):
            return
        for sub in cond.values():
            _check_only(sub)


__all__ = [
    "OPERATORS",
    "VALUE_PATH",
    "FilterPlan",
    "check_index",
    "compare",
    "default_text",
    "index_text",
    "plan_filter",
    "value_matches",
]
