"""Traditional Chinese (and colloquial 俺/咱/搁) on the write path: read as simplified
standard words, stored as said.

The extraction rules, the slot detectors and most of the classifier's training data are
written in simplified characters, so "我對花生嚴重過敏" (對/過敏) or "我是一名護理師" found
nothing that "我对花生严重过敏" finds. :func:`simplified` converts a turn with OpenCC's
``t2s`` table (a phrase-aware, well-kept conversion) when the conversion keeps every character
in place (the same length, which OpenCC's character and phrase tables do for ordinary text);
:func:`as_said` maps a value found in the simplified turn back to the characters the user
typed, by position, so a stored record still reads "護理師".

Pure; the converter is built once per process (thread-safe to call).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Protocol

_CJK = re.compile(r"[\u3400-\u9fff]")


class _Converter(Protocol):
    def convert(self, text: str) -> str: ...


_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _converter() -> _Converter:
    import opencc

    with _LOCK:
        return opencc.OpenCC("t2s")  # type: ignore[no-any-return]


_COLLOQUIAL = (
    (re.compile(r"俺|咱"), "我"),
    (re.compile(r"搁(?![置浅下着了在那这])"), "在"),
)
"""Dialect and colloquial words read as the standard ones the rules know, one character for
one: 俺/咱 "I" (咱们 "we" → 我们), 搁 "at" ("俺是山东人，现在搁深圳住"; not 搁置 "shelve")."""


def simplified(text: str) -> str | None:
    """``text`` in simplified characters and standard words (:data:`_COLLOQUIAL`), or ``None``
    when it has neither a traditional character nor a colloquial word (nothing to convert) or
    the conversion would move characters (not position-preserving)."""
    if not _CJK.search(text):
        return None
    out = _converter().convert(text)
    if len(out) != len(text):
        return None
    for pattern, standard in _COLLOQUIAL:
        out = pattern.sub(standard, out)
    return None if out == text else out


def as_said(value: str, simple: str, original: str) -> str:
    """``value`` (found in ``simple``, the simplified ``original``) in the user's own
    characters; unchanged when it is not a span of ``simple`` (a canonical value such as
    ``Chinese``) or when it reads the same in both scripts."""
    if not value or not _CJK.search(value):
        return value
    at = simple.find(value)
    if at < 0:
        return value
    return original[at : at + len(value)]


__all__ = ["as_said", "simplified"]
