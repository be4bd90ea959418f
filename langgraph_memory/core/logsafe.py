"""What the package's logs and custom-stream events may carry: ids, counts, kinds, reasons
without the user's values, and never PII.

Two layers:

* **At the source**, log calls and events name records by id and describe what happened
  without quoting stored values: :func:`scrub_text` turns a reason such as
  ``"value changed from 'Lyon'; old version kept in history"`` into
  ``"value changed from '…'; old version kept in history"`` (every quoted literal goes, which
  is how the write path quotes a value), and :func:`error_kind` reduces an exception to its
  type name (exception messages may quote the text that caused them).
* **As a net**, every logger of the package is created by :func:`get_logger`, which attaches
  :class:`RedactingFilter`: before any handler sees a record, PII in its message, its
  ``extra=`` fields (nested dicts/lists too) and its formatted traceback is replaced by the
  write path's placeholders (``[PHONE]``, ``[EMAIL]``, ...); UUIDs (record, message and run
  ids) are kept. :func:`redact_value` does the same for custom-stream payloads. The net
  catches PII only; a stored value that is not PII is kept out at the source.

Nothing here imports the write path at module level (every module may import this one); the
redactor is built on first use.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .redact import Redactor

__all__ = [
    "LOGGER_PREFIX",
    "VALUE_MARK",
    "RedactingFilter",
    "error_kind",
    "get_logger",
    "readable",
    "redact_value",
    "scrub_text",
]

LOGGER_PREFIX = "langgraph_memory"
VALUE_MARK = "'…'"
"""What :func:`scrub_text` puts where a quoted value was."""

REDACTION_FAILED = "[log record withheld: its redaction failed]"
"""The message of a record whose redaction raised (the record is kept, its content is not)."""

_MAX_DEPTH = 12
_QUOTED = re.compile(
    r"""(?<![\w'"])(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?![\w'"])"""
    r"|“[^”\n]*”|‘[^’\n]*’|「[^」\n]*」"
)
"""A quoted literal: Python ``repr`` of a string (single or double quotes, escapes allowed),
not an apostrophe inside a word (``can't``, ``record's``), or typographic/CJK quotes."""

_UUID = re.compile(
    r"(?<![0-9A-Fa-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Fa-f])"
)
"""Record, message and run ids: kept as they are (a 36-character id after the word "tokens"
would otherwise read as a secret)."""

_STANDARD_ATTRS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}

_redactor: Redactor | None = None
_redactor_lock = threading.Lock()

T = TypeVar("T")


def _log_redactor() -> Redactor:
    """One redactor for logs and streams: every PII type replaced by its plain placeholder
    (no hashes: a log line never needs to match values)."""
    global _redactor
    if _redactor is None:
        with _redactor_lock:
            if _redactor is None:
                from .redact import PLACEHOLDERS, Redactor

                _redactor = Redactor(dict.fromkeys(PLACEHOLDERS, "redact"))
    return _redactor


_CACHED_CHARS = 256
"""Strings up to this long have their redaction remembered (:func:`_redact_short`): the ids,
kinds and short reasons of one turn's events repeat in every event."""


def _redact(text: str) -> str:
    """PII in ``text`` replaced by placeholders; UUIDs (ids) are kept as they are."""
    if len(text) <= _CACHED_CHARS:
        return _redact_short(text)
    return _redact_now(text)


@lru_cache(maxsize=4096)
def _redact_short(text: str) -> str:
    if _UUID.fullmatch(text):  # an id: nothing to redact
        return text
    return _redact_now(text)


def _redact_now(text: str) -> str:
    ids = _UUID.findall(text)
    if not ids or "\x00" in text:
        return _log_redactor().redact(text).text
    masked = _UUID.sub(lambda m: f"\x00{ids.index(m.group())}\x00", text)
    red = _log_redactor().redact(masked).text
    return re.sub("\x00(\\d+)\x00", lambda m: ids[int(m.group(1))], red)


def scrub_text(text: str) -> str:
    """``text`` fit for a log line or an event: quoted literals replaced by :data:`VALUE_MARK`,
    then PII replaced by placeholders. For reasons and details that may quote stored values."""
    if not text:
        return text
    return _redact(_QUOTED.sub(VALUE_MARK, text))


def error_kind(exc: BaseException) -> str:
    """What a log line or an event says about an exception: its type name only (the message
    may quote the input that caused it)."""
    return type(exc).__name__


def redact_value(value: T, _depth: int = 0) -> T:
    """``value`` with PII replaced in every string it holds (dict values, list/tuple items,
    nested up to 12 levels; keys and non-string leaves unchanged). Returns ``value`` itself
    when nothing changed; never mutates it."""
    if isinstance(value, str):
        if not value:
            return value
        red = _redact(value)
        return value if red == value else red  # type: ignore[return-value]
    if _depth >= _MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        items = {k: redact_value(v, _depth + 1) for k, v in value.items()}
        if all(items[k] is v for k, v in value.items()):
            return value
        return items  # type: ignore[return-value]
    if isinstance(value, list | tuple):
        seq = [redact_value(v, _depth + 1) for v in value]
        if all(a is b for a, b in zip(seq, value, strict=True)):
            return value
        return tuple(seq) if isinstance(value, tuple) else seq  # type: ignore[return-value]
    return value


class RedactingFilter(logging.Filter):
    """Replaces PII in a record's message, ``extra=`` fields and traceback text before any
    handler formats it (a bare-label message first gets its fields, :func:`readable`).
    Never drops a record; if redaction itself fails, the message becomes
    :data:`REDACTION_FAILED` and the extras are removed."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            _redact_record(record)
        except Exception:  # logging must never break the caller
            record.msg, record.args, record.exc_text = REDACTION_FAILED, None, None
            record.exc_info = None
            for key in [k for k in vars(record) if k not in _STANDARD_ATTRS]:
                delattr(record, key)
        return True


_BARE = re.compile(r"^[A-Za-z_][A-Za-z_ -]{0,40}$")
"""A message that is only a label (``"recall"``, ``"memory written"``): it gets its fields."""


def _field(value: object) -> str | None:
    if isinstance(value, bool | int | float) or value is None:
        return str(value)
    if isinstance(value, str):
        return value if len(value) <= 80 else value[:79] + "…"
    if isinstance(value, list | tuple | set | Mapping):
        return f"{len(value)} item(s)"
    return None


def readable(record: logging.LogRecord) -> None:
    """Give a record whose message is a bare label (a few words, no ``%`` arguments) its
    ``extra=`` fields, so a plain ``logging.basicConfig`` line says what happened:
    ``"memory updated (user_id=alice, version=2)"`` (lists as counts, long strings cut).
    Other messages are left as written."""
    if record.args or not isinstance(record.msg, str):
        return
    message = record.msg
    if not _BARE.match(message) or len(message.split()) > 4:
        return
    parts = []
    for key, value in vars(record).items():
        if key in _STANDARD_ATTRS or key in {"event", "payload"} or key.startswith("_"):
            continue
        shown = _field(value)
        if shown is not None:
            parts.append(f"{key}={shown}")
    if parts:
        record.msg, record.args = f"{message} ({', '.join(parts)})", None


def _redact_record(record: logging.LogRecord) -> None:
    readable(record)
    message = record.getMessage()
    redacted = redact_value(message)
    if redacted is not message or record.args:
        record.msg, record.args = redacted, None
    for key, value in list(vars(record).items()):
        if key in _STANDARD_ATTRS:
            continue
        new = redact_value(value)
        if new is not value:
            setattr(record, key, new)
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact_value(record.exc_text)
    if record.stack_info:
        record.stack_info = redact_value(record.stack_info)


_FILTER = RedactingFilter()


def get_logger(area: str) -> logging.Logger:
    """``logging.getLogger("langgraph_memory.<area>")`` with :class:`RedactingFilter` attached
    (once). Every module of the package gets its logger here."""
    logger = logging.getLogger(f"{LOGGER_PREFIX}.{area}" if area else LOGGER_PREFIX)
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(_FILTER)
    return logger
