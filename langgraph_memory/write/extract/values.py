"""The rule extractor's hit type and value shaping: :class:`Hit` (one ``(subject,
predicate, object)`` a rule found), object cleaning, bounds on spans and names, and
:func:`rule_table` that the rule tables register with. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..lexicon import CONSTRAINT_OBJECTS, TOPICS, language_of, topic_of
from ..segment import strip_time, topic_surface, zh_words
from ..slots.model import PAST_QUOTE, bound_liking
from ..slots.triggers import city_of
from ..slots.typed import named_tool, typed_slot
from ..spans import DUE_DATE, MONEY


def short_value(value: str) -> bool:
    """A bare value a correction can stand for ("Rust", "Lille", "李四")."""
    if re.search(r"[\u4e00-\u9fff]", value):
        return len(value) <= 12
    return len(value.split()) <= 4


CONTRAST_EN = re.compile(
    r"(?i)^(?P<stmt>.+?)(?:,\s*|\s+)(?:not|rather than|instead of)\s+(?P<x>[^,]+?)$"
)
NOT_A_VALUE = re.compile(
    r"(?i)^(?:even|at all|really|just|yet|now|anymore|always|ever|so|that|too|quite|exactly"
    r"|much|only|necessarily|sure|again|once)\b"
)
"""What may follow ", not" without naming a replaced value ("not even once", "not at all")."""
CONTRAST_ZH = re.compile(r"^(?P<stmt>.+?)[，,]\s*(?:而)?(?:不是|不用|而不是|不再用)(?P<x>[^，,]+)$")
CONTRAST_ZH_BARE = re.compile(
    r"^(?P<stmt>(?:就|应该|其实)?是[^，,。不]{1,12}?)(?:而)?不是(?P<x>[^，,。]{1,12})$"
)
""" "是周五不是周四": the corrected value and the old one, without a comma between."""

_TRAIL = re.compile(
    r"(?i)[\s,.;:!?，。；：！？~…]+$|\s+(?:please|thanks|thank you|from now on|going forward|"
    r"in the future|for me|all the time|instead|too|as well|anymore|now|these days)$|"
    r"(?:吧|哦|啊|呢|了|哈|呀|啦|嘛|就行|就好|就可以|谢谢)$"
)
_LEAD = re.compile(r"(?i)^(?:to\s+|using\s+|use\s+|the\s+|a\s+|an\s+|用|使用|喝|吃|都|也)")
PRONOUNS = re.compile(
    r"(?i)^(?:it|that|this|them|those|these|you|your\b.*|yours|him|her|this one|that one|"
    r"[你这那它他她].*|this answer|that idea|this one|that one)$"
)
CHITCHAT_OBJECTS = re.compile(
    r"(?i)^(?:worry|mind|bother|be (?:silly|sorry)|forget|panic|rush|hesitate|(?:ever )?give up"
    r"|(?:ever )?quit|担心|客气|"
    r"着急|急|紧|介意|怕|慌|见外|难过|谢|忘|加油|放弃|闹|哭)"
)
REFERENTIAL = re.compile(
    r"(?i)\b(?:that|this|it|those|these|them|him|her)\b|这样|那样|这个|那个|这些|那些"
)
"""An instruction about "that"/"这个"/"them" only makes sense next to what it points at."""
_QUOTATION = re.compile(
    r"(?:(?<=\s)|(?<=^))'[^'\n]{1,60}'(?![A-Za-z])|\"[^\"\n]{1,60}\"|“[^”\n]{1,60}”|「[^」\n]{1,60}」"
)


def points_elsewhere(obj: str) -> bool:
    """Whether the instruction ``obj`` points at something said elsewhere ("don't do that
    again", "别这样"): a :data:`REFERENTIAL` word outside quotations (the "this" of "never say
    'I hope this helps'" is part of the words banned)."""
    return REFERENTIAL.search(_QUOTATION.sub(" ", obj)) is not None


def clean(obj: str) -> str:
    """``obj`` without quotes around it, what follows a quotation closed after a sentence's end
    (:data:`~..slots.model.PAST_QUOTE`), and leading/trailing filler words."""
    obj = PAST_QUOTE.split(obj, maxsplit=1)[0]
    source = obj
    obj = obj.strip().strip("\"'“”‘’「」")
    for _ in range(4):
        new = _TRAIL.sub("", obj).strip()
        new = _LEAD.sub("", new).strip() if len(new) > 2 else new
        if new == obj:
            break
        obj = new
    return _balanced_quotes(obj, source)


_APOSTROPHE_QUOTE = re.compile(r"(?<![A-Za-z])'|'(?![A-Za-z])")
"""A single quote used as a quotation mark, not the apostrophe inside a word ("don't")."""
_PAIRED_QUOTES = (("“", "”"), ("「", "」"), ("『", "』"), ("‘", "’"))


def _balanced_quotes(obj: str, source: str) -> str:
    """``obj`` with every quotation whole: a quotation the value's end cut open is closed again
    with the mark that closes it in ``source`` ("叫我“亲" → "叫我“亲”", "call me 'buddy" →
    "call me 'buddy'"); marks still unpaired are removed ("great question!' openers" → "great
    question! openers")."""
    for left, right in (*_PAIRED_QUOTES, ('"', '"'), ("'", "'")):
        if obj.endswith(right) or (obj + right) not in source:
            continue
        opened = obj.count(left) > obj.count(right) if left != right else obj.count(left) % 2
        if opened:
            obj += right
    if len(_APOSTROPHE_QUOTE.findall(obj)) % 2:
        obj = _APOSTROPHE_QUOTE.sub("", obj)
    if obj.count('"') % 2:
        obj = obj.replace('"', "")
    for left, right in (*_PAIRED_QUOTES, ("(", ")"), ("（", "）")):
        if obj.count(left) != obj.count(right):
            obj = obj.replace(left, "").replace(right, "")
    return re.sub(r"\s{2,}", " ", obj).strip()


def canon_constraint(obj: str) -> str:
    """The canonical name when the object *is* a known alias ("emojis", "表情符号"); otherwise
    the object itself, lower-cased (so "markdown tables in replies" keeps its detail)."""
    lowered = obj.strip().lower()
    for canonical, aliases in CONSTRAINT_OBJECTS.items():
        if lowered in aliases:
            return canonical
    return lowered


@dataclass(frozen=True, slots=True)
class Hit:
    subject: str
    predicate: str
    object: str
    kind: str
    explicit: bool = False
    multi_valued: bool = False
    confidence: float = 0.9
    scope_level: str = "user"
    corrects: str | None = None
    retract: bool = False
    also: tuple[Hit, ...] = ()
    """Further facts stated in the same words ("at Acme as a data engineer": the occupation
    next to the employer)."""


Builder = Callable[[re.Match[str], bool], "Hit | None"]
"""A rule's builder: (match, stated-as-first-person-preference) → hit or None."""


def pref(obj: str, *, explicit: bool, confidence: float = 0.9) -> Hit | None:
    """A preference for ``obj``, its predicate chosen by topic (the topic of its first part
    when one names a typed value: the words after a comma give a reason or a comparison)."""
    obj = clean(obj)
    if not obj or PRONOUNS.match(obj) or len(obj) > 80:
        return None
    lang = language_of(obj)
    if lang and (
        re.fullmatch(
            r"(?i)(?:to\s+)?(?:speak|use|write in|talk in|answers? in|replies in|the)?\s*\w+", obj
        )
        or re.search(r"(?i)answer|repl|respon|回答|回复|交流|沟通|说话", obj)
        or len(obj) <= 4
    ):
        return Hit(
            "user", "answer_language", lang, "preference", explicit=explicit, confidence=confidence
        )
    head = re.split(r"[，,;；]", obj, maxsplit=1)[0].strip()
    first = (typed_slot(head) if head != obj else None) or named_tool(head) if head else None
    if first is not None and first.predicate in TOPICS:
        # "偏好 Go，Java 太啰嗦了": the value preferred, not the one its reason names
        return Hit(
            "user", first.predicate, first.object, "preference", explicit=explicit,
            confidence=confidence, multi_valued=first.multi_valued,
        )  # fmt: skip
    topic = topic_of(obj)
    if topic:
        value = topic_surface(obj, *topic)[0]
        return Hit("user", topic[0], value, "preference", explicit=explicit, confidence=confidence)
    return Hit(
        "user",
        "likes",
        bound_liking(obj).lower(),
        "preference",
        explicit=explicit,
        multi_valued=True,
        confidence=confidence,
    )


_NUMBER = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several"
    r"|many)"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PERIOD = r"(?:days?|weeks?|months?|years?|decades?)"
_TIME_TAIL_EN = re.compile(
    r"(?i)\s+(?:"
    r"(?:last|this|next|past|earlier this|late last|early last)\s+(?:week|month|year|summer"
    r"|winter|spring|fall|autumn|weekend|quarter|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)"
    r"|yesterday|today|tonight|recently|lately|earlier|these days|nowadays|right now|now"
    r"|at the moment|currently|already|originally|by birth"
    rf"|(?:since|from|back in|as of|starting|starting in|until|till|in)\s+(?:\d{{4}}|{_MONTH}\b"
    r"|last\s+\w+|then|childhood|college|school)"
    rf"|{_NUMBER}\s+{_PERIOD}\s+ago|(?:for|over)\s+(?:the\s+(?:last|past)\s+)?{_NUMBER}"
    rf"\s+{_PERIOD}|(?:a\s+)?(?:few|couple of)\s+{_PERIOD}\s+ago"
    r")\b.*$"
)
"""A time expression ending a value ("Berlin last month", "Paris since 2020"): never part of
it."""
_QUALIFIER_TAIL_EN = re.compile(
    r"(?i)\s+(?:with|because|since|where|which|who|near|after|before|so that|so|for"
    r"|to\s+(?:be|work|study|live|join)|and\s+(?:i|my|we|it)|but)\b.*$"
)
"""What follows a place or an organisation ("Munich with my wife", "Berlin for work")."""
ROLE_TAIL_EN = re.compile(r"(?i)^(?P<head>.+?)\s+as\s+(?:an?\s+|the\s+|our\s+)?(?P<role>.+)$")
ORG_TAIL_EN = re.compile(r"(?i)^(?P<head>.+?)\s+(?:at|for|with)\s+(?P<org>.+)$")
_SPAN_PREDICATES = frozenset({"location", "hometown", "employer", "occupation"})
"""Predicates whose value is a place, an organisation or a job: qualifier tails are cut."""


def _is_time_valued(predicate: str) -> bool:
    """True when the value itself is a time ("June 3rd", "Fridays"): no time words are cut."""
    return predicate in {"birthday", "deadline", "age"} or predicate.endswith(
        ("birthday", "_day", "_date", "anniversary", "_time")
    )


def bound_value(predicate: str, value: str) -> str:
    """The shortest span of ``value`` that is the value of ``predicate``: trailing time
    expressions ("last month", "since 2020"; for places, organisations and jobs also Chinese
    ones: "上个月") and, for those, trailing qualifiers ("with my wife", "for work") removed;
    chatty words at the end ("btw", "lol") removed; a budget is its money amount ("around 3k
    for the bike" → "3k"), a deadline its date; a food the user cannot eat stops before a
    dash or bracket and a final "的"."""
    if predicate in {"budget", "deadline"}:
        pattern = MONEY if predicate == "budget" else DUE_DATE
        found = pattern.search(value)
        return found.group().strip() if found else value
    if _is_time_valued(predicate):
        return value
    value = _CHATTY_END.sub("", value).strip() or value  # "Priya btw": the name
    if predicate in {"dietary_restriction", "allergy"}:
        # "gluten — coeliac since I was a kid", "牛肉的": the food, not the reason or particle
        value = re.split(r"\s*(?:[—–(（]|\s-\s)", value)[0].strip()
        value = re.sub(r"(?<=[\u4e00-\u9fff])的$", "", value)
    if predicate in _NAME_PREDICATES:
        called = _CALLED.search(value)  # "a fintech called Lumen Pay": the name it is called
        value = called.group("name") if called else value
    if re.search(r"[\u4e00-\u9fff]", value):
        value = _TIME_TAIL_EN.sub("", value).strip()  # "上海 last month"
        if predicate not in _SPAN_PREDICATES:
            return value
        value = "".join(w for w, _ in strip_time(zh_words(value))) or value
        return city_of(value) if predicate in {"location", "hometown"} else value
    value = _TIME_TAIL_EN.sub("", value).strip()
    if predicate in _SPAN_PREDICATES:
        value = _QUALIFIER_TAIL_EN.sub("", value).strip()
    if predicate in _NAME_PREDICATES:
        value = proper_span(value)
    return value


_CHATTY_END = re.compile(
    r"(?i)\s+(?:btw|fyi|lol|lmao|haha+|tbh|tho|though|by the way|just so you know)[\s.!]*$"
)
"""Chatty words that end a value's words without being part of the value."""
_CALLED = re.compile(
    r"(?i)^(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}?(?:called|named)\s+(?P<name>\S.*)$"
)
_NAME_PREDICATES = frozenset({"location", "hometown", "employer"})
"""Predicates whose value is a proper name (a place, an organisation)."""
_NAME_LINKS = frozenset({"of", "and", "&", "de", "del", "da", "do", "du", "upon", "on", "la", "le"})
"""Lowercase words inside a proper name, when a capitalised word follows ("Bosnia and
Herzegovina", "Stratford upon Avon", "Rio de Janeiro", "Procter & Gamble")."""


_NAME_HEADS = frozenset(
    {
        "hospital", "university", "college", "school", "bank", "clinic", "labs", "lab", "inc",
        "ltd", "group", "studio", "studios", "airlines", "institute", "center", "centre",
        "foundation", "museum", "library", "city", "county", "valley", "beach", "island",
    }
)  # fmt: skip
"""Lowercase words that end a name as its head noun ("St. Mary's hospital")."""


def proper_span(value: str) -> str:
    """The proper name ``value`` starts with, as an English noun phrase ends: at the first
    lowercase word that does not link two capitalised words ("Denver in the spring" →
    "Denver", "Porto and work" → "Porto", "Acme as a data engineer" → "Acme"). A value that
    does not start with a capital (typed in lowercase) is returned unchanged."""
    words = value.split()
    if not words or not re.match(r"[A-Z0-9]", words[0]) or not value.isascii():
        return value
    keep = 1
    while keep < len(words):
        word = words[keep]
        if words[keep - 1].endswith(","):
            break  # "Berlin, Germany": the place, then the region it is in
        if re.match(r"[A-Z0-9]", word) or word.lower().rstrip(",.;:!?") in _NAME_HEADS:
            keep += 1
        elif word in _NAME_LINKS and keep + 1 < len(words) and re.match(r"[A-Z]", words[keep + 1]):
            keep += 2
        else:
            break
    return " ".join(words[:keep]).rstrip(",.;:!?")


GENERIC_PLACE = re.compile(
    r"(?i)^(?:[a-z]+\s+){0,2}(?:home|house|apartment|flat|place|office|city|town|country|area"
    r"|neighbou?rhood|building|room|job|team|cloud|school|myself|remotely"
    r"|remote|overseas|abroad)$"
)
"""A lowercase common noun ("a new apartment", "the cloud", "home", "myself"): somewhere or
someone, but no place or organisation name."""


Rule = tuple[re.Pattern[str], Builder]
"""A compiled pattern searched in a clause part and the builder that turns its match into a hit."""


def rule_table(rules: list[Rule]) -> Callable[..., Callable[[Builder], Builder]]:
    """A decorator factory that appends to ``rules``: ``_rule(pattern)(builder)`` registers
    one rule. Rules are tried in registration order; the first hit wins."""

    def _rule(pattern: str, flags: int = re.IGNORECASE) -> Callable[[Builder], Builder]:
        compiled = re.compile(pattern, flags)

        def register(fn: Builder) -> Builder:
            rules.append((compiled, fn))
            return fn

        return register

    return _rule


__all__ = [
    "CHITCHAT_OBJECTS",
    "CONTRAST_EN",
    "CONTRAST_ZH",
    "GENERIC_PLACE",
    "NOT_A_VALUE",
    "ORG_TAIL_EN",
    "PRONOUNS",
    "REFERENTIAL",
    "ROLE_TAIL_EN",
    "Builder",
    "Hit",
    "Rule",
    "bound_value",
    "canon_constraint",
    "clean",
    "points_elsewhere",
    "pref",
    "proper_span",
    "rule_table",
    "short_value",
]
