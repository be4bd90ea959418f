"""Premises: a durable statement said inside a question, a task or a story.

"since I'm lactose intolerant now, what can I bake?", "帮我写封邮件，另外我是做后端开发的",
"I need a dinner idea tonight, and keep in mind I'm allergic to shellfish": the sentence is a
question or a request, and the classifier reads it as one — rightly — so a rule candidate in
it is vetoed and nothing is extracted. The durable item is a *part* of the sentence, between
commas or after a subordinator ("since", "given that", "因为", "另外", "btw").

:func:`premises` splits such a sentence into parts, reads each first-person part that is not
itself a question on its own, and returns the parts the classifier reads as worth remembering
(write probability ≥ ``thresholds.extract``, the extraction operating point) with their own
prediction. :func:`~langgraph_memory.write.decide.apply_classifier` then reviews the
sentence's candidates that lie in a premise with the premise's prediction, and extracts from
a premise no rule understood.

Pure: no store access; one classifier call per sentence that has candidate parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .classify import NOISE_KINDS, WRITE_KINDS, ClauseClassifier, KindPrediction, cues_of
from .extract.markers import PART_COMMA, QUESTION
from .slots.preference import bare_timezone

_PART_SPLIT = re.compile(
    rf"\s*(?:{PART_COMMA}|[，;；:：])\s*"
    r"|\s+[-–—]+\s+"
    r"|\s+(?=(?:since|because|given that|now that|btw|by the way|and keep in mind|keep in mind"
    r"|fyi)\b)",
    re.IGNORECASE,
)
"""Where a sentence's parts meet: commas, semicolons, colons, dashes, and an English
subordinator that opens a premise without a comma ("… books on design given that I'm …")."""

_LEAD = re.compile(
    r"(?i)^(?:(?:oh|and|also|anyway|so|plus|but|btw|by the way|fyi|since|because|given that"
    r"|now that|keep in mind(?: that)?|just so you know|note that)\b[\s,]*)+"
    r"|^(?:因为|既然|由于|另外|对了|顺便说一下|顺便说|顺便|而且|还有|另外就是|不过|其实)[，,\s]*"
)
"""Connectives before a premise, dropped so the part reads as the statement it is."""

_QUESTION_LEAD = re.compile(
    r"(?i)^(?:what|which|who|whose|why|how|where|when|can|could|would|will|should|shall|do|does"
    r"|did|is|are|am|any|if|suppose|imagine|hypothetically|say)\b"
    r"|^(?:你觉得|你說|你说|你看|请问|如果|要是|假如|假设|万一|是不是|有没有)"
)
"""A part that opens like a question ("what can I bake", "你觉得…") or a supposition ("if I
ever moved…", "如果我以后…") asks or imagines; it states nothing."""
_REQUEST_LEAD = re.compile(
    r"(?i)^(?:(?:please|pls)\s+(?!never|always|stop|don't|do not|avoid|only|keep|no\b)"
    r"|help me|let me know|tell me)\b"
    r"|^(?:帮我|请(?!你?以后|你?别|你?不要|你?永远|你?一定)|麻烦|给我)"
)
"""A part that opens as a request ("help me …", "帮我写…") asks for a task."""

_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|my|me|we|we're|our|us)\b|我|咱")

MIN_PART_WORDS = 3
"""Fewest words (English) in a part worth reading on its own; a CJK part needs
:data:`MIN_PART_CJK` characters."""
MIN_PART_CJK = 4

_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z0-9']+")


@dataclass(frozen=True, slots=True)
class Premise:
    """A part of a sentence that states a durable item on its own."""

    text: str
    """The part, without its leading connective ("I'm lactose intolerant now")."""
    prediction: KindPrediction
    """The classifier's reading of the part alone."""


def _asking_nothing(sentence: str) -> tuple[int, list[str]]:
    """How many parts ``sentence`` has, and those that neither ask nor request (connectives
    dropped, end punctuation stripped)."""
    pieces = [p.strip() for p in _PART_SPLIT.split(sentence) if p and p.strip()]
    out: list[str] = []
    for piece in pieces:
        part = _LEAD.sub("", piece).strip(" ,，.。!！?？")
        if not part or QUESTION.search(piece) or QUESTION.search(part + "?"):
            continue
        if _QUESTION_LEAD.match(part) or _REQUEST_LEAD.match(part):
            continue
        out.append(part)
    return len(pieces), out


def parts(sentence: str) -> list[str]:
    """The parts of ``sentence`` that are statements about the user (first person) or rules
    (:data:`RULE_CUES`), not questions or requests, long enough to read alone, connectives
    dropped; empty when the sentence has a single part."""
    count, stating = _asking_nothing(sentence)
    if count < 2:
        return []
    return [
        part
        for part in stating
        if (_FIRST_PERSON.search(part) or cues_of(part) & RULE_CUES)
        and (len(_WORD.findall(part)) >= MIN_PART_WORDS or len(_CJK.findall(part)) >= MIN_PART_CJK)
    ]


def stated_parts(sentence: str) -> list[str]:
    """The parts of a question that state something ("我在上海，有没有适合 solo 的 trip idea" →
    "我在上海"; "现在在 London 读书，…你知道哪家好吗" → "现在在 London 读书"), connectives
    dropped: the parts that neither ask, suppose nor request. Empty when the sentence has a
    single part, or when no part asks on its own (the question is the whole sentence)."""
    count, stating = _asking_nothing(sentence)
    if count < 2:
        return []
    return stating if len(stating) < count else []


def fragments(sentence: str) -> list[str]:
    """The parts of ``sentence`` that are only a timezone token ("I'm in Singapore, so UTC+8,
    and …" → "so UTC+8"): too short to read alone, they are the value of the sentence they are
    said in (see :func:`~langgraph_memory.write.slots.preference.bare_timezone`)."""
    pieces = [p.strip() for p in _PART_SPLIT.split(sentence) if p and p.strip()]
    return [p for p in pieces if len(pieces) > 1 and bare_timezone(p) is not None]


def premises(
    sentence: str, prediction: KindPrediction, classifier: ClauseClassifier
) -> list[Premise]:
    """The premises of a sentence the classifier reads as noise (a question, a one-off
    request, chit-chat or an event); none for a sentence read as anything else."""
    if prediction.kind not in NOISE_KINDS:
        return []
    return durable_parts(sentence, classifier)


def durable_parts(sentence: str, classifier: ClauseClassifier) -> list[Premise]:
    """The :func:`parts` of ``sentence`` the classifier reads, each alone, as worth
    remembering (a write kind with write probability ≥ ``thresholds.extract``)."""
    candidates = parts(sentence)
    if not candidates:
        return []
    threshold = classifier.thresholds.extract
    return [
        Premise(part, pred)
        for part, pred in zip(candidates, classifier.predict(candidates), strict=True)
        if pred.kind in WRITE_KINDS and pred.write_probability >= threshold
    ]


RULE_CUES = frozenset({"prohibit", "oblige", "explicit"})
"""Cues of a rule for the assistant: a part with one needs no first person ("please stop
using emojis in your replies")."""
DURABLE_CUES = frozenset({"prohibit", "oblige", "explicit", "habit"})
"""Cues (see :data:`~langgraph_memory.write.classify.CUES`) of a rule, a standing request or a
habit: a part of a longer sentence is kept as a free-text note only with one of them or a
word of liking (:data:`_LIKING`) — a part with neither is narrative ("I've been baking for
years"), and only a typed value (an allergy, a job, a city) is taken from it."""
_LIKING = re.compile(
    r"(?i)\b(?:like|likes|love|loves|prefer|prefers|hate|hates|enjoy|enjoys|favou?rite|fav"
    r"|can't stand|rather)\b|喜欢|爱吃|爱喝|讨厌|偏好|受不了|最爱"
)


def states_attitude(part: str) -> bool:
    """Whether ``part`` says a rule, a standing request, a habit or a liking (see
    :data:`DURABLE_CUES`)."""
    return bool(cues_of(part) & DURABLE_CUES) or bool(_LIKING.search(part))


LONG_NOTE_WORDS = 20
"""Words (English) above which a sentence is too long to keep whole as a note: only its
durable parts are (:data:`LONG_NOTE_CJK` characters for Chinese)."""
LONG_NOTE_CJK = 40


def too_long_for_a_note(sentence: str) -> bool:
    """Whether ``sentence`` is longer than a note a user would state (see
    :data:`LONG_NOTE_WORDS`)."""
    words, cjk = len(_WORD.findall(sentence)), len(_CJK.findall(sentence))
    return words > LONG_NOTE_WORDS or cjk > LONG_NOTE_CJK


__all__ = [
    "LONG_NOTE_CJK",
    "LONG_NOTE_WORDS",
    "MIN_PART_CJK",
    "MIN_PART_WORDS",
    "Premise",
    "durable_parts",
    "fragments",
    "parts",
    "premises",
    "stated_parts",
    "states_attitude",
    "too_long_for_a_note",
]
