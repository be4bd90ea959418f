"""Corrections: "不是X，是Y", "X, not Y", "actually it's Y" patterns and the hit a
correction stands for. Pure."""

from __future__ import annotations

import re

from ..lexicon import MULTI_VALUED_PREDICATES, language_of, predicate_hint, timezone_of, topic_of
from ..segment import topic_surface
from .builders import said_timezone_text
from .markers import MAX_OBJECT
from .values import Hit, clean

CORR_ZH = re.compile(
    r"^(?P<pre>.*?)不是(?P<x>[^，,。]+?)[，,]\s*(?:而|而且|应该|其实)?是(?P<y>.+)$"
)
CORR_ZH2 = re.compile(r"^(?P<pre>.*?)是(?P<y>[^，,。]+?)[，,]\s*(?:而)?不是(?P<x>.+)$")
CORR_EN = (
    re.compile(
        r"(?i)^(?:(?:no|sorry|actually|correction)[,:]?\s*)*(?:it'?s|it is|that'?s"
        r"|that is)\s+(?P<y>[^,]+?),?\s+not\s+(?P<x>.+)$"
    ),
    re.compile(
        r"(?i)^(?:(?:no|sorry"
        r"|actually)[,:]?\s*)*not\s+(?P<x>[^,]+?),\s*(?:but\s+)?(?:it'?s\s+)?(?P<y>.+)$"
    ),
    re.compile(
        r"(?i)^(?:(?:no|sorry|actually)[,:]?\s*)*my\s+(?P<pre>[\w\s]+?)\s+(?:is(?:n't| not)"
        r"|was(?:n't| not))\s+(?P<x>[^,]+?),?\s*(?:it'?s|it is|but|,)\s*(?P<y>.+)$"
    ),
)
CORR_TAIL_EN = re.compile(
    r"(?i)^(?:(?:no|nope|nah|oh|oops|sorry|wait)[,!.]?\s+)*"
    r"(?:it'?s|it is|that'?s|that is|i meant|i mean|he'?s|he is|she'?s|she is|they'?re"
    r"|they are)\s+(?P<y>.+)$"
)
CORR_TAIL_ZH = re.compile(r"^(?:应该是|是|我是说|我的意思是)(?P<y>.+)$")


def _strip_shared(x: str, y: str) -> tuple[str, str, str]:
    """Drop the framing two values share ("对花生过敏" / "对芒果过敏" → "花生", "芒果") and
    return it too (it names the predicate)."""
    i = 0
    while i < min(len(x), len(y)) - 1 and x[i] == y[i]:
        i += 1
    j = 0
    while j < min(len(x), len(y)) - i - 1 and x[-1 - j] == y[-1 - j]:
        j += 1
    if (i == 0 and j == 0) or not x[i : len(x) - j].strip() or not y[i : len(y) - j].strip():
        return x, y, ""
    if i and x[:i].isascii() and not x[:i].endswith(" "):
        i = 0  # never cut inside a Latin word
    if j and x[len(x) - j :].isascii() and not x[len(x) - j :].startswith(" "):
        j = 0
    return x[i : len(x) - j].strip(), y[i : len(y) - j].strip(), x[:i] + " " + x[len(x) - j :]


def correction_hit(pre: str, x: str | None, y: str) -> Hit | None:
    y_clean, x_clean = clean(y), clean(x) if x else None
    if not y_clean or len(y_clean) > MAX_OBJECT:
        return None
    if x_clean:
        # strip shared framing only when it names the predicate ("对…过敏"), never inside
        # values that merely look alike ("王小明"/"王晓明", "东八区"/"东九区")
        sx, sy, frame = _strip_shared(x_clean, y_clean)
        if frame.strip() and predicate_hint(frame) and not (pre.strip() and predicate_hint(pre)):
            x_clean, y_clean, pre = sx, sy, f"{pre} {frame}"
    predicate = predicate_hint(pre) if pre.strip() else None
    if predicate == "timezone":
        y_clean = said_timezone_text(y_clean)
    elif predicate == "answer_language":
        y_clean = language_of(y_clean) or y_clean
    if predicate is None:
        lang = language_of(y_clean)
        topic = topic_of(y_clean)
        if lang and len(y_clean) <= 8:
            predicate, y_clean = "answer_language", lang
        elif topic:
            predicate, y_clean = topic[0], topic_surface(y_clean, *topic)[0]
            if x_clean and topic_of(x_clean):
                x_clean = topic_of(x_clean)[1]  # type: ignore[index]
        elif timezone_of(y_clean):
            predicate, y_clean = "timezone", said_timezone_text(y_clean)
    if re.match(r"[是在叫用]\S", y_clean) and re.search(r"[\u4e00-\u9fff]", y_clean[1:2]):
        y_clean = re.sub(r"^(?:我?是在|是|在|叫|用)", "", y_clean)  # "是天津 not 北京": 天津
    return Hit(
        "user" if predicate else "",
        predicate or "",
        y_clean,
        "correction",
        explicit=True,
        corrects=x_clean,
        multi_valued=predicate in MULTI_VALUED_PREDICATES,
    )


__all__ = [
    "CORR_EN",
    "CORR_TAIL_EN",
    "CORR_TAIL_ZH",
    "CORR_ZH",
    "CORR_ZH2",
    "correction_hit",
]
