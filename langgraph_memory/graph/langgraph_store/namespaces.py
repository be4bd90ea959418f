"""Namespace templates: which label of a LangGraph namespace names the user (and project).

A template is a tuple of segments. ``"{user_id}"`` (or LangMem's spelling
``"{langgraph_user_id}"``) marks the label that names the user and must appear exactly once;
``"{project_id}"`` optionally marks the project label, after the user; every other segment is
a literal label that a namespace must repeat exactly. Examples::

    ("{user_id}",)                       # ("alice",)
    ("memories", "{user_id}")            # LangMem's default ("memories", "{langgraph_user_id}")
    ("{user_id}", "{project_id}")        # ("alice",) and ("alice", "apollo")

A namespace fits when it has the template's length and its literals (it may stop before a
trailing ``"{project_id}"``: the item then belongs to the user in no project). With
``subnamespaces=True`` it may also continue past the template: the extra labels are a
sub-namespace inside that user's (and project's) scope. A namespace that does not fit is
refused with :class:`NamespaceTemplateError` before anything is read or written; the adapter
never guesses which label is the user.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import InvalidNamespaceError

from ...core.scope import Scope
from ...errors import ConfigError, ScopeError

USER_SLOT = "{user_id}"
"""Template segment naming the user."""
LANGMEM_USER_SLOT = "{langgraph_user_id}"
"""LangMem's spelling of the user segment, accepted as :data:`USER_SLOT`."""
PROJECT_SLOT = "{project_id}"
"""Template segment naming the project (optional)."""
DEFAULT_NAMESPACE_TEMPLATE: tuple[str, ...] = (USER_SLOT,)
"""``("{user_id}",)``: one-label namespaces name the user; anything longer is refused."""
WILDCARD = "*"
"""The label ``list_namespaces`` conditions use to match any label."""

LANGMEM_HINT = (
    "LangMem's default namespace ('memories', '{langgraph_user_id}') needs "
    "namespace_template=('memories', '{user_id}')"
)
"""Added to a refusal of a two-label namespace under a template that starts with the user."""


class NamespaceTemplateError(ScopeError, InvalidNamespaceError):
    """A namespace that does not fit the adapter's namespace template (or names no user).
    Nothing was read or written. Both a :class:`~langgraph_memory.errors.ScopeError` and
    LangGraph's ``InvalidNamespaceError`` (so a ``ValueError``)."""


def check_labels(labels: Any, what: str) -> tuple[str, ...]:
    """``labels`` as a tuple of strings; ``TypeError`` for anything else (a bare string too)."""
    if not isinstance(labels, tuple):
        raise TypeError(
            f"{what} must be a tuple of strings, got {type(labels).__name__} {labels!r}"
            + (f"; write ({labels!r},) for one label" if isinstance(labels, str) else "")
        )
    for label in labels:
        if not isinstance(label, str):
            raise TypeError(f"{what} labels must be strings, got {type(label).__name__}")
    return labels


def prefix_token(labels: Sequence[str]) -> str:
    """The stored token of a namespace prefix: its labels as a JSON list (unambiguous for
    any label text)."""
    return json.dumps(list(labels), ensure_ascii=False)


def prefix_tokens(namespace: Sequence[str]) -> list[str]:
    """The tokens of every non-empty prefix of ``namespace`` (stored with an item, so that a
    prefix search is one keyword match inside the engine)."""
    return [prefix_token(namespace[:n]) for n in range(1, len(namespace) + 1)]


@dataclass(frozen=True, slots=True)
class NamespaceTemplate:
    """A parsed namespace template (see the module docstring). Build it with :meth:`parse`."""

    segments: tuple[str, ...]
    user_index: int
    project_index: int | None
    subnamespaces: bool

    @classmethod
    def parse(cls, template: Any, *, subnamespaces: bool = False) -> NamespaceTemplate:
        """Check and parse ``template``; :class:`~langgraph_memory.errors.ConfigError` when it
        is not a tuple of labels with exactly one user segment (and at most one project
        segment, after the user)."""
        if isinstance(template, NamespaceTemplate):
            return template
        if isinstance(template, list):
            template = tuple(template)
        if not isinstance(template, tuple) or not template:
            raise ConfigError(
                f"namespace_template must be a non-empty tuple of labels such as "
                f"('memories', '{USER_SLOT}'), got {template!r}"
            )
        if not isinstance(subnamespaces, bool):
            raise ConfigError(f"subnamespaces must be True or False, got {subnamespaces!r}")
        segments: list[str] = []
        for seg in template:
            if not isinstance(seg, str) or not seg:
                raise ConfigError(f"namespace_template segments must be labels, got {seg!r}")
            if seg == LANGMEM_USER_SLOT:
                seg = USER_SLOT
            if seg.startswith("{") and seg not in (USER_SLOT, PROJECT_SLOT):
                raise ConfigError(
                    f"unknown placeholder {seg!r} in namespace_template; use {USER_SLOT!r} "
                    f"(or {LANGMEM_USER_SLOT!r}) and optionally {PROJECT_SLOT!r}"
                )
            if "." in seg or seg == WILDCARD:
                raise ConfigError(f"namespace_template label {seg!r} cannot contain '.' or be '*'")
            segments.append(seg)
        if segments.count(USER_SLOT) != 1:
            raise ConfigError(
                f"namespace_template {template!r} must contain {USER_SLOT!r} exactly once: "
                "memory is always scoped to one user"
            )
        if segments.count(PROJECT_SLOT) > 1:
            raise ConfigError(f"namespace_template {template!r} has {PROJECT_SLOT!r} twice")
        user_index = segments.index(USER_SLOT)
        project_index = segments.index(PROJECT_SLOT) if PROJECT_SLOT in segments else None
        if project_index is not None and project_index < user_index:
            raise ConfigError(f"{PROJECT_SLOT!r} must come after {USER_SLOT!r} in the template")
        return cls(tuple(segments), user_index, project_index, subnamespaces)

    # ------------------------------------------------------------------ matching
    def _refuse(self, namespace: tuple[str, ...], why: str) -> NamespaceTemplateError:
        hint = ""
        if self.user_index == 0 and len(namespace) >= 2 and not self.subnamespaces:
            hint = f"; {LANGMEM_HINT}"
        return NamespaceTemplateError(
            f"namespace {namespace!r} does not fit the namespace template {self.segments!r}: "
            f"{why}{hint}"
        )

    def _check_literals(self, namespace: tuple[str, ...], *, wildcards: bool = False) -> None:
        for i, (seg, label) in enumerate(zip(self.segments, namespace, strict=False)):
            if seg in (USER_SLOT, PROJECT_SLOT) or (wildcards and label == WILDCARD):
                continue
            if label != seg:
                raise self._refuse(namespace, f"label {i} must be {seg!r}, got {label!r}")

    def _user(self, namespace: tuple[str, ...]) -> str:
        label = namespace[self.user_index]
        try:
            return Scope(user_id=label).user_id
        except ScopeError as exc:
            raise NamespaceTemplateError(f"namespace {namespace!r}: {exc}") from exc

    def scope_of(self, namespace: tuple[str, ...]) -> Scope:
        """The scope of an item's namespace (``put``/``get``/``delete``):
        :class:`NamespaceTemplateError` unless it fits the template."""
        namespace = check_labels(namespace, "namespace")
        n = len(self.segments)
        short = (
            self.project_index == n - 1 and len(namespace) == n - 1
        )  # the project label may be left off
        if len(namespace) < n and not short:
            raise self._refuse(
                namespace,
                "it is too short" if namespace else "a namespace must name a user",
            )
        if len(namespace) > n and not self.subnamespaces:
            raise self._refuse(
                namespace,
                "it is longer than the template (pass subnamespaces=True to allow "
                "sub-namespaces inside a user's scope)",
            )
        self._check_literals(namespace)
        user = self._user(namespace)
        project = None
        if self.project_index is not None and len(namespace) > self.project_index:
            project = namespace[self.project_index]
        try:
            return Scope(user_id=user, project_id=project)
        except ScopeError as exc:
            raise NamespaceTemplateError(f"namespace {namespace!r}: {exc}") from exc

    def user_of_prefix(self, prefix: tuple[str, ...], *, wildcards: bool = False) -> str:
        """The user a search/listing prefix reads: the prefix must reach the user label (and
        match the template's literals); :class:`NamespaceTemplateError` otherwise. With
        ``wildcards`` a ``"*"`` label matches any literal (never the user)."""
        prefix = check_labels(prefix, "namespace prefix")
        if len(prefix) <= self.user_index:
            example = tuple(
                "<user_id>" if s == USER_SLOT else s for s in self.segments[: self.user_index + 1]
            )
            raise NamespaceTemplateError(
                f"namespace prefix {prefix!r} names no user: start it with {example!r}; memory "
                "is never read across users"
            )
        if len(prefix) > len(self.segments) and not self.subnamespaces:
            raise self._refuse(prefix, "it is longer than the template")
        self._check_literals(prefix, wildcards=wildcards)
        if prefix[self.user_index] == WILDCARD:
            raise NamespaceTemplateError(
                f"namespace prefix {prefix!r}: the user label cannot be a wildcard; users are "
                "never enumerated"
            )
        return self._user(prefix)


__all__ = [
    "DEFAULT_NAMESPACE_TEMPLATE",
    "LANGMEM_USER_SLOT",
    "PROJECT_SLOT",
    "USER_SLOT",
    "NamespaceTemplate",
    "NamespaceTemplateError",
    "check_labels",
    "prefix_token",
    "prefix_tokens",
]
