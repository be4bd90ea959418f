"""The output side of constraint safety: the checker registry, the built-in checkers
(``forbidden_terms``, ``forbidden_recipients``, ``required_language``, ``max_length``,
``required_format``) and :func:`check_output`, which runs them over a generated reply."""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from ..core.text import detect_language, is_cjk
from ..errors import ConfigError
from .constraints import Constraint, Violation
from .events import emit_event
from .tokens import default_token_counter

__all__ = [
    "Checker",
    "check_output",
    "natural_language_in_code",
    "register_checker",
    "registered_checkers",
    "unregister_checker",
]

Checker = Callable[[str, Mapping[str, Any], Constraint, BaseMessage | None], list[str]]
"""A checker gets ``(text, spec, constraint, message)`` and returns violation details
(empty list or ``None`` when the output complies; a single string is accepted too).
``message`` is the generated message when :func:`check_output` was given one (tool calls
live there), else ``None``."""

_CHECKERS: dict[str, Checker] = {}


def register_checker(name: str, checker: Checker, *, replace: bool = False) -> None:
    """Make ``checker`` available to constraints whose spec has ``{"type": name}``.

    Raises :class:`~langgraph_memory.errors.ConfigError` when ``name`` is taken and
    ``replace`` is false.
    """
    if not name or not isinstance(name, str):
        raise ConfigError("checker name must be a non-empty string")
    if name in _CHECKERS and not replace:
        raise ConfigError(f"a checker named {name!r} is already registered (pass replace=True)")
    _CHECKERS[name] = checker


def unregister_checker(name: str) -> None:
    """Remove a registered checker (no error when absent)."""
    _CHECKERS.pop(name, None)


def registered_checkers() -> list[str]:
    """Names of every registered checker, sorted."""
    return sorted(_CHECKERS)


def _as_str_list(spec: Mapping[str, Any], key: str) -> list[str]:
    value = spec.get(key)
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Iterable):
        raise ConfigError(f"checker {spec.get('type')!r} needs a list {key!r}")
    return [str(v) for v in value if str(v)]


def _contains(haystack: str, needle: str, *, case_sensitive: bool, whole_word: bool) -> bool:
    hay = unicodedata.normalize("NFKC", haystack)
    ndl = unicodedata.normalize("NFKC", needle)
    flags = 0 if case_sensitive else re.IGNORECASE
    pattern = re.escape(ndl)
    if whole_word and not any(is_cjk(ch) for ch in ndl):
        pattern = rf"(?<!\w){pattern}(?!\w)"
    return re.search(pattern, hay, flags) is not None


def _check_forbidden_terms(
    text: str, spec: Mapping[str, Any], constraint: Constraint, message: BaseMessage | None
) -> list[str]:
    terms = _as_str_list(spec, "terms")
    case_sensitive = bool(spec.get("case_sensitive", False))
    whole_word = bool(spec.get("whole_word", False))
    haystack = text
    if message is not None and bool(spec.get("include_tool_calls", True)):
        haystack = f"{text}\n{_tool_call_text(message)}"
    return [
        f"output contains forbidden term {term!r}"
        for term in terms
        if _contains(haystack, term, case_sensitive=case_sensitive, whole_word=whole_word)
    ]


_RECIPIENT_KEYS = ("to", "cc", "bcc", "recipient", "recipients", "email", "address", "user")


def _tool_call_text(message: BaseMessage) -> str:
    if not isinstance(message, AIMessage):
        return ""
    return "\n".join(
        json.dumps(call.get("args", {}), ensure_ascii=False, default=str)
        for call in message.tool_calls
    )


def _recipient_values(message: BaseMessage | None) -> list[str]:
    if not isinstance(message, AIMessage):
        return []
    values: list[str] = []

    def walk(obj: Any, key: str | None) -> None:
        if isinstance(obj, Mapping):
            for k, v in obj.items():
                walk(v, str(k).lower())
        elif isinstance(obj, list | tuple):
            for v in obj:
                walk(v, key)
        elif key is not None and any(key == k or key.endswith("_" + k) for k in _RECIPIENT_KEYS):
            values.append(str(obj))

    for call in message.tool_calls:
        walk(call.get("args", {}), None)
    return values


def _check_forbidden_recipients(
    text: str, spec: Mapping[str, Any], constraint: Constraint, message: BaseMessage | None
) -> list[str]:
    """Flags a forbidden recipient in a tool call's recipient-like argument (to/cc/bcc/...)
    and, unless ``{"text": false}``, addressed in the text (``To: x`` / an e-mail address)."""
    recipients = _as_str_list(spec, "recipients")
    details: list[str] = []
    values = _recipient_values(message)
    for recipient in recipients:
        for value in values:
            if _contains(value, recipient, case_sensitive=False, whole_word=True):
                details.append(f"tool call addresses forbidden recipient {recipient!r}")
                break
        else:
            if spec.get("text", True) and _contains(
                text, recipient, case_sensitive=False, whole_word=True
            ):
                details.append(f"output addresses forbidden recipient {recipient!r}")
    return details


def _cjk_ratio(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if is_cjk(c)) / len(letters)


_FENCED = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)
_INLINE = re.compile(r"`([^`]*)`")
_URL = re.compile(r"https?://\S+")
_COMMENTS = re.compile(
    r"/\*(.*?)\*/|<!--(.*?)-->|\"\"\"(.*?)\"\"\"|\'\'\'(.*?)\'\'\'|(?:^|\s)(?:#|//|--)\s+([^\n]*)",
    re.DOTALL,
)
_STRINGS = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
_WORDS2 = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}")

CODE_ONLY_NO_PROSE = (
    "output is only code with no natural language: a reply in {language} needs its "
    "explanation in {language} (checker option code_only='allow' accepts pure code)"
)
CODE_ONLY_PREFIX = "output is only code and its comments/strings: "
_LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}


def natural_language_in_code(code: str) -> str:
    """The natural language a piece of code carries for a reader: its comments (``#``,
    ``//``, ``--`` followed by a space; ``/* */``, ``<!-- -->``; docstrings) and the string
    literals that read as prose (with CJK, or at least two words). Identifiers, keywords and
    short strings like ``"utf-8"`` are not natural language."""
    parts: list[str] = []
    for match in _COMMENTS.finditer(code):
        parts.append(next(g for g in match.groups() if g is not None))
    rest = _COMMENTS.sub(" ", code)
    for match in _STRINGS.finditer(rest):
        literal = match.group(1) if match.group(1) is not None else match.group(2)
        if any(is_cjk(ch) for ch in literal) or _WORDS2.search(literal):
            parts.append(literal)
    return "\n".join(p.strip() for p in parts if p.strip())


def _language_verdict(prose: str, language: str, spec: Mapping[str, Any]) -> list[str]:
    ratio = _cjk_ratio(prose)
    if language == "zh":
        threshold = float(spec.get("min_ratio", 0.2))
        if ratio < threshold:
            return [f"output is not in Chinese (CJK share of letters {ratio:.2f} < {threshold})"]
        return []
    detected = detect_language(prose)
    if detected != "en":
        return [f"output is not in English (detected {detected}, CJK share {ratio:.2f})"]
    return []


def _check_required_language(
    text: str, spec: Mapping[str, Any], constraint: Constraint, message: BaseMessage | None
) -> list[str]:
    """``{"language": "zh"|"en"}``; ``min_ratio`` (default 0.2 for zh, i.e. a fifth of the
    letters are CJK) tunes zh.

    The prose decides: fenced code blocks, inline code and URLs are removed first, and
    whatever text remains must be in the language (code in a reply with prose is never held
    against it). A reply with no text at all (e.g. a message that only calls a tool) passes.

    A reply that is **only code** (no prose outside code) is judged the way a user who asked
    for that language would judge it (``code_only``, default ``"check"``):

    * the code's natural language — comments, docstrings and prose-like string literals
      (:func:`natural_language_in_code`) — must be in the language: a bare code block with
      English comments breaks a Chinese rule, one with Chinese comments keeps it;
    * code with no natural language at all breaks the rule (the user gets no explanation
      in their language; the regeneration is asked for one).

    ``"code_only": "allow"`` accepts every code-only reply (pure code is language-neutral).
    Unfenced code is prose to this checker (it cannot be told apart reliably)."""
    language = str(spec.get("language", "")).lower()
    aliases = {"chinese": "zh", "zh-cn": "zh", "zh-hans": "zh", "english": "en", "en-us": "en"}
    language = aliases.get(language, language)
    if language not in {"zh", "en"}:
        raise ConfigError(f"required_language supports 'zh' and 'en', got {language!r}")
    code_only = str(spec.get("code_only", "check")).lower()
    if code_only not in {"check", "allow"}:
        raise ConfigError(
            f"required_language code_only must be 'check' or 'allow', got {code_only!r}"
        )
    code = [m.group(1) for m in _FENCED.finditer(text)]
    stripped = _FENCED.sub(" ", text)
    code += [m.group(1) for m in _INLINE.finditer(stripped)]
    prose = _URL.sub(" ", _INLINE.sub(" ", stripped))
    if any(c.isalpha() for c in prose):
        return _language_verdict(prose, language, spec)
    if not any(c.strip() for c in code) or code_only == "allow":
        return []  # nothing said, or pure code accepted by the rule's owner
    carried = natural_language_in_code("\n".join(code))
    if any(c.isalpha() for c in carried):
        return [CODE_ONLY_PREFIX + d for d in _language_verdict(carried, language, spec)]
    return [CODE_ONLY_NO_PROSE.format(language=_LANGUAGE_NAMES[language])]


def _check_max_length(
    text: str, spec: Mapping[str, Any], constraint: Constraint, message: BaseMessage | None
) -> list[str]:
    """``{"max_chars": N}`` and/or ``{"max_tokens": N}`` (counted by the default counter)."""
    details: list[str] = []
    if "max_chars" not in spec and "max_tokens" not in spec:
        raise ConfigError("max_length needs max_chars or max_tokens")
    if "max_chars" in spec and len(text) > int(spec["max_chars"]):
        details.append(f"output has {len(text)} characters > max {int(spec['max_chars'])}")
    if "max_tokens" in spec:
        tokens = default_token_counter().count_text(text)
        if tokens > int(spec["max_tokens"]):
            details.append(f"output has ~{tokens} tokens > max {int(spec['max_tokens'])}")
    return details


def _strip_fence(text: str) -> str:
    match = re.fullmatch(r"\s*```[\w-]*\s*\n(.*?)\n?```\s*", text, flags=re.DOTALL)
    return match.group(1) if match else text


def _check_required_format(
    text: str, spec: Mapping[str, Any], constraint: Constraint, message: BaseMessage | None
) -> list[str]:
    """``{"format": "json"}`` (optionally ``"required_keys": [...]``, ``"allow_fence": true``)
    or ``{"format": "regex", "pattern": "..."}`` (full match, DOTALL)."""
    fmt = str(spec.get("format", "")).lower()
    if fmt == "json":
        body = _strip_fence(text) if spec.get("allow_fence", True) else text
        try:
            value = json.loads(body)
        except json.JSONDecodeError as exc:
            return [f"output is not valid JSON ({exc.msg} at char {exc.pos})"]
        required = spec.get("required_keys")
        if required:
            if not isinstance(value, dict):
                return ["output JSON is not an object"]
            absent = [k for k in required if k not in value]
            if absent:
                return [f"output JSON lacks required keys {absent}"]
        return []
    if fmt == "regex":
        pattern = spec.get("pattern")
        if not isinstance(pattern, str):
            raise ConfigError("required_format regex needs a string 'pattern'")
        try:
            compiled = re.compile(pattern, re.DOTALL)
        except re.error as exc:
            raise ConfigError(f"invalid regex {pattern!r}: {exc}") from exc
        if compiled.fullmatch(text.strip()) is None:
            return [f"output does not match required pattern {pattern!r}"]
        return []
    raise ConfigError(f"required_format supports 'json' and 'regex', got {fmt!r}")


register_checker("forbidden_terms", _check_forbidden_terms)
register_checker("forbidden_recipients", _check_forbidden_recipients)
register_checker("required_language", _check_required_language)
register_checker("max_length", _check_max_length)
register_checker("required_format", _check_required_format)


def check_output(
    text: str | BaseMessage,
    constraints: Sequence[Constraint],
    *,
    checkers: Mapping[str, Checker] | None = None,
) -> list[Violation]:
    """Run each constraint's checker over a generated output.

    ``text`` may be a string or the generated message (an ``AIMessage`` whose tool calls are
    then checked too, e.g. a forbidden recipient in ``send_email(to=...)``). ``checkers``
    adds or overrides checkers for this call only. Constraints without a ``checker`` spec
    are only enforced by presence (:func:`ensure_constraints`). Returns every violation,
    in constraint order; ``[]`` means compliant. An unknown checker type raises
    :class:`~langgraph_memory.errors.ConfigError` (a misconfigured rule must not pass
    silently). Violations are logged and streamed as an ``output_violations`` event.

    What a reply that is **only code** means for each built-in checker:

    * ``forbidden_terms`` / ``forbidden_recipients``: code is output like any other text; a
      forbidden term or address inside a code block is a violation.
    * ``max_length``: code counts towards the length.
    * ``required_format``: a single fenced block is unwrapped for ``json`` (unless
      ``allow_fence`` is false); a ``regex`` is matched against the whole reply, fences
      included.
    * ``required_language``: the code's comments and prose strings must be in the language,
      and pure code with no natural language breaks the rule unless ``code_only="allow"``
      (see :func:`_check_required_language`).
    """
    message: BaseMessage | None = None
    if isinstance(text, BaseMessage):
        message = text
        if isinstance(text.content, str):
            body = text.content
        else:  # text blocks only: tool calls are checked from ``message`` by each checker
            body = "\n".join(
                b if isinstance(b, str) else str(b.get("text", ""))
                for b in text.content
                if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
            )
    else:
        body = text
    table = dict(_CHECKERS)
    if checkers:
        table.update(checkers)
    violations: list[Violation] = []
    for constraint in constraints:
        spec = constraint.checker
        if not spec:
            continue
        kind = spec["type"]
        checker = table.get(kind)
        if checker is None:
            raise ConfigError(
                f"constraint {constraint.id!r} names unknown checker {kind!r}; "
                f"registered: {sorted(table)}"
            )
        details = checker(body, spec, constraint, message) or []
        if isinstance(details, str):  # a custom checker may return one detail string
            details = [details]
        for detail in details:
            violations.append(Violation(constraint_id=constraint.id, kind=kind, detail=str(detail)))
    if violations:
        emit_event(
            "output_violations",
            {"violations": [v.as_event() for v in violations]},
            level=logging.WARNING,
            message=f"{len(violations)} constraint violation(s) in generated output",
        )
    return violations
