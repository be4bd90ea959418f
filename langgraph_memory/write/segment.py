"""Chinese value boundaries: where a place or organisation named in a clause ends.

Chinese has no spaces, so a regex that captures "everything up to 工作/上班" takes
"深圳南山区的一家公司" whole. :func:`zh_place` and :func:`zh_workplace` cut the span into words
with `jieba <https://github.com/fxsjy/jieba>`_ (part-of-speech tags: ``ns`` place, ``t`` time)
and keep only the words that are the value. jieba's dictionary is loaded on first use (about a
second, once per process); everything here is deterministic and side-effect free apart from
that load.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache
from typing import Any

from .lexicon import is_place

_LOAD_LOCK = threading.Lock()
_TAGGER: list[Any] = []

_ZH_TIME_WORD = re.compile(
    r"^(?:上个?月|上周|上星期|上个?礼拜|去年|前年|今年|年初|年底|最近|刚刚?|前几天|前段时间|昨天|前天|今天"
    r"|早就|已经|现在|目前|\d{4}年(?:起|开始|以来)?|[一二三四五六七八九十两几\d]+(?:个月|年|周|天)(?:前|以前)?"
    r"|以前|之前|从小|一直)$"
)
"""Time words that are never part of a value (jieba tags most of them ``t``)."""

_GENERIC_ORG = re.compile(
    r"^(?:一家|一个|某|某个|这家|那家)?(?:[\u4e00-\u9fff]{0,4})?(?:公司|企业|单位|工厂|厂|医院|学校|银行"
    r"|机构|工作室|事务所|创业公司|外企|国企|央企|初创公司)$"
)
"""An organisation described but not named ("一家公司", "一家互联网公司")."""


def _tagger() -> Any:
    """jieba's part-of-speech tagger, imported and initialised once (quietly)."""
    if not _TAGGER:
        with _LOAD_LOCK:
            if not _TAGGER:
                import jieba
                import jieba.posseg

                jieba.setLogLevel(logging.WARNING)
                _TAGGER.append(jieba.posseg)
    return _TAGGER[0]


@lru_cache(maxsize=1024)
def zh_words(text: str) -> tuple[tuple[str, str], ...]:
    """``(word, part-of-speech flag)`` pairs of ``text`` as jieba cuts it."""
    return tuple((pair.word, pair.flag) for pair in _tagger().cut(text))


def _is_time(word: str, flag: str) -> bool:
    return flag == "t" or bool(_ZH_TIME_WORD.match(word))


def _is_place_word(word: str, flag: str) -> bool:
    return flag == "ns" or is_place(word)


def strip_time(words: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``words`` without leading and trailing time words and the particles around them."""
    start, end = 0, len(words)
    while start < end and (_is_time(*words[start]) or words[start][0] in {"的", "起", "开始"}):
        start += 1
    while end > start and (_is_time(*words[end - 1]) or words[end - 1][0] in {"了", "的"}):
        end -= 1
    return words[start:end]


def zh_place(span: str) -> str | None:
    """The leading run of place words of ``span`` once time words are removed ("深圳南山区的一家
    公司" → "深圳南山区", "去年的杭州" → "杭州"), or None when it does not start with a place."""
    words = strip_time(zh_words(span.strip()))
    run: list[str] = []
    for word, flag in words:
        if not _is_place_word(word, flag):
            break
        run.append(word)
    return "".join(run) or None


def zh_workplace(span: str) -> tuple[str, str] | None:
    """Whether the span before 工作/上班 names where the user works (``("location",
    place)``: a city, or a place followed by an unnamed organisation) or the organisation
    (``("employer", name)``); None when nothing is left once time words are removed."""
    words = strip_time(zh_words(span.strip()))
    if not words:
        return None
    text = "".join(w for w, _ in words)
    place = zh_place(text)
    if place == text:
        return ("location", place)
    rest = text[len(place) :] if place else text
    if place and _GENERIC_ORG.match(rest.removeprefix("的")):
        return ("location", place)
    name = re.sub(r"^(?:一家|一个|这家|那家)", "", "".join(w for w, _ in _drop_branch(words)))
    return ("employer", name) if name else None


_BRANCH = frozenset(
    {"总部", "分公司", "办公室", "分部", "研发中心", "园区", "总公司", "分行", "支行"}
)


def _drop_branch(words: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """An organisation's name without the office after it ("阿里巴巴杭州总部" → "阿里巴巴")."""
    for i in range(1, len(words)):
        tail = words[i:]
        if _is_place_word(*words[i]) and all(
            _is_place_word(w, f) or w in _BRANCH or w == "的" for w, f in tail
        ):
            return words[:i]
        if words[i][0] in _BRANCH and i == len(words) - 1:
            return words[:i]
    return words


__all__ = ["strip_time", "zh_place", "zh_words", "zh_workplace"]
