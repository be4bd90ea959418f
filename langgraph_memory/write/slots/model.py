"""The slot type and value normalisation every slot module shares: :class:`Slot`, value
cleaning and bounds (``clean_value``, ``bound_liking``, ``bound_open``), ``snake``,
``strip_lead``. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lexicon import _alias_re
from ..segment import JUDGED, strip_time, zh_words

_LEAD_MARKERS = re.compile(
    r"(?i)^(?:(?:please|pls|plz|and|also|but|so|ok(?:ay)?|oh|hey|btw|fyi|remember|note|"
    r"sorry|oops|my bad|no wait|small fix|quick fix|"
    r"keep in mind|from now on|going forward|in (?:the )?future|for future reference|always|"
    r"make sure (?:to|that|you)?|be sure to|you should|you must|i need you to|i want you to|"
    r"记住|请记住|记得|以后|今后|从现在(?:开始|起)|往后|请|麻烦|务必|一定要|必须)\b[\s,:：，-]*)+"
)
_TIME_TAIL = re.compile(
    r"(?i)\s*(?:,\s*)?(?:(?:since|as of|starting|from)\s+\w+(?:\s+\d{4})?|last\s+(?:week|month|year"
    r"|night|weekend)|yesterday|today|recently|a\s+(?:week|month|year)\s+ago|\d+\s+\w+\s+ago"
    r"|this\s+(?:week|month|year)|now|these days|nowadays|anymore)$"
    r"|(?:上个?月|上周|去年|前年|昨天|今天|最近|现在|目前|已经|了)$"
)
_POLITE_TAIL = re.compile(
    r"(?i)[\s,.;:!?，。；：！？~…]+$|\s+(?:please|thanks|thank you|thx|ok|okay)$"
    r"|(?:吧|哦|啊|呢|哈|呀|啦|嘛|谢谢|哈哈)$"
)


ZH_PARTICLE_TAIL = re.compile(r"(?:了|的|啦|哈|呢|啊|吧|哦|嘛|呀)+$")

ATTR_NORMAL = {
    "birthday": "birthday",
    "bday": "birthday",
    "生日": "birthday",
    "名字": "name",
    "email": "email",
    "phone": "phone",
    "公司": "employer",
    "单位": "employer",
    "职业": "occupation",
    "专业": "major",
    "时区": "timezone",
    "timezone": "timezone",
    "time_zone": "timezone",
    "hometown": "hometown",
    "老家": "hometown",
    "家乡": "hometown",
    "budget": "budget",
    "预算": "budget",
    "deadline": "deadline",
    "base": "location",
    "home_base": "location",
    "home_city": "location",
    "home": "location",
    "home_town": "hometown",
    "current_city": "location",
    "date_of_birth": "birthday",
    "dob": "birthday",
    "birth_date": "birthday",
    "daily_os": "operating_system",
    "main_os": "operating_system",
    "company_name": "employer",
    "current_employer": "employer",
    "based": "location",
    "现居": "location",
    "住址": "location",
    "坐标": "location",
    "job": "occupation",
    "day_job": "occupation",
    "job_title": "occupation",
    "occupation": "occupation",
    "profession": "occupation",
    "工作": "occupation",
    "company": "employer",
    "employer": "employer",
    "workplace": "employer",
    "location": "location",
    "city": "location",
    "所在城市": "location",
    "城市": "location",
    "name": "name",
    "first_name": "name",
    "编辑器": "editor",
    "ide": "editor",
    "数据库": "database",
    "操作系统": "operating_system",
    "os": "operating_system",
}


_TYPED_ATTRIBUTE = re.compile(
    r"(?i)(?P<budget>budget|预算)|(?P<deadline>deadline|ddl|截止日期|截止时间|交付日期)"
)


def typed_attribute(attr: str) -> str | None:
    """The guide's ``budget`` / ``deadline`` for an attribute that names one ("offsite
    budget", "budget for the trip", "team的deadline"), else None."""
    m = _TYPED_ATTRIBUTE.search(attr)
    return None if m is None else "budget" if m.group("budget") else "deadline"


MAX_FREE_TEXT = 300
"""Longest clause kept in the user's words (``note``/``prefers``/``must``): longer text is a
pasted document, not a fact."""


@dataclass(frozen=True, slots=True)
class Slot:
    """A generic ``(subject, predicate, object)`` for one clause."""

    subject: str
    predicate: str
    object: str
    multi_valued: bool = False
    scope_level: str = "user"
    corrects: str | None = None
    """The old value a correction names ("Houston, not Austin" → ``Austin``)."""


_CHATTY_TAIL = re.compile(
    r"(?i)(?<=\w)[\s,]+(?:btw|by the way|fyi|fwiw|lol|lmao|haha+|tbh|tho|though|honestly"
    r"|obviously|anyway|actually|for real)[\s.!~]*$"
    r"|(?<=\S)[\s\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]+$"
)
"""Register words and emoji typed after a value ("Priya btw", "Denver lol", "2nd of August
🎂")."""


PAST_QUOTE = re.compile(r"(?<=[.!?,。！？，])[\"'”’」』](?=\s+[A-Z\u4e00-\u9fff]|$)")
"""A quotation closed after a sentence's end ("…in Montreal.' It's for my novel"): what follows
is outside the quote, never part of the value."""


def clean_value(value: str) -> str:
    """``value`` without quotes, politeness, chatty tails ("btw", "lol") and trailing time
    expressions."""
    value = PAST_QUOTE.split(value, maxsplit=1)[0]  # "Montreal.' It's a line…": Montreal.
    value = value.strip().strip("\"'“”‘’「」")
    for _ in range(4):
        new = _CHATTY_TAIL.sub("", _POLITE_TAIL.sub("", value)).strip()
        new = _TIME_TAIL.sub("", new).strip() if len(new) > 3 else new
        if new == value:
            break
        value = new
    return value


_OPEN_TAIL = re.compile(
    r"(?i)\s*(?:\(.*|（.*|\s[—–-]\s.*|[—–].*|;.*|；.*|,(?!\d{3}\b).*|，.*|\s+(?:so|because|since|which|who|but"
    r"|when|where|for context|btw|fyi|lol|haha|and i|and we|and my)\b.*)$"
)


_LIKE_TAIL = re.compile(
    r"(?i)\s*(?:[—–;；,，。(（]|\s-\s).*$|\s+(?:so|because|since|when|whenever|if possible"
    r"|if you can|way more than|much more than|more than|rather than|than|instead of|tbh"
    r"|to be honest)\b.*$"
)


def bound_liking(value: str) -> str:
    """A liked or disliked thing without the reason or comparison after it ("small boutique
    hotels way more than big chains" → "small boutique hotels"; "async — suggest a Slack
    message…" → "async"); unchanged when nothing would be left."""
    cut = clean_value(_LIKE_TAIL.sub("", value))
    return cut if len(cut) >= 2 else value


def bound_open(value: str) -> str:
    """An open attribute's value cut where it stops: before a comma, a dash, a bracket or a
    clause that explains it ("type 1 diabetes, so carb counting…" → "type 1 diabetes"), and
    without a leading article or a trailing time expression or particle."""
    value = _OPEN_TAIL.sub("", clean_value(value)).strip()
    value = re.sub(r"(?i)^(?:(?:a|an|the|about|around|roughly|approximately)\s+|~\s*)", "", value)
    value = re.sub(r"^(?:大概|大约|差不多|约)(?=\S)", "", value)
    value = re.sub(r"^(?:on|at|in|by)\s+(?=[A-Z0-9])", "", value)  # "on Friday" → "Friday"
    if re.search(r"[\u4e00-\u9fff]", value):
        words = list(zh_words(value))
        while len(words) > 1 and strip_time(tuple(words[:1])) == ():
            words = words[1:]  # "上个月跳到美团": a leading time word; "下周三" stays whole
        value = "".join(w for w, _ in words) or value
        value = ZH_PARTICLE_TAIL.sub("", value) or value
    return clean_value(value)


def snake(words: str) -> str:
    """``"daughter's birthday"`` → ``daughter_birthday``; CJK kept as is."""
    words = re.sub(r"'s\b", "", words.strip().lower())
    return re.sub(r"[^\w]+", "_", words).strip("_") or "note"


def strip_lead(clause: str) -> str:
    """The clause without leading discourse / "remember" / "from now on" markers (and the
    apologies that open a correction: "sorry 是佛山 not 广州")."""
    return _LEAD_MARKERS.sub("", clause.strip()).strip()


ANSWERS = re.compile(
    r"(?i)\b(?:answer|repl|respon|write|talk|speak|chat|explain|messages?)|回答|回复|答复|回我|说|写|聊"
    r"|交流|解释"
)
NEGATED = re.compile(
    r"(?i)(?:\bnot|\bno|n't|\bnever|\binstead of|\bover|\brather than|\bthan|\bhate|\bavoid"
    r"|不是|不用|不要|别|而不是|不喜欢|讨厌"
    r"|\bused to(?:\s+(?!now\b)\w+){0,2}|\bgave up(?:\s+on)?|\bquit|\bditched|\bdropped"
    r"|\bstopped using|\bno longer(?:\s+use)?|\bmoved away from|\bswitched (?:away )?from"
    r"|\bgrew out of|(?:以前|之前|原来|曾经|过去)[^，,。；;！!？?现]{0,6}|不再(?:用|写)?)"
    r"\s*(?:plain\s+|the\s+|a\s+|an\s+)?$"
)
"""Words right before a value that say it is not the user's (now): a negation, a
comparison's loser, or a past one ("used to be a Windows person", "gave up on emacs",
"以前写了八年 Java")."""


def first_alias(text: str, table: dict[str, tuple[str, ...]]) -> tuple[int, str] | None:
    """``(position, canonical)`` of the earliest alias of ``table`` in ``text`` that is not
    negated or past (:data:`NEGATED`: "vim, not emacs" → vim; "TypeScript instead of
    JavaScript" → TypeScript; "gave up on emacs, VS Code now" → VS Code) nor judged away
    (:data:`JUDGED`: "咖啡只喝美式，拿铁太腻" → 美式)."""
    best: tuple[int, int, str] | None = None
    for canonical, aliases in table.items():
        for alias in aliases:
            for m in _alias_re(alias).finditer(text):
                if NEGATED.search(text[max(0, m.start() - 16) : m.start()]) or JUDGED.match(
                    text, m.end()
                ):
                    continue
                key = (m.start(), -len(alias), canonical)
                if best is None or key < best:
                    best = key
                break
    return (best[0], best[2]) if best else None


PARTS = re.compile(
    r"\s*(?:,(?!\d{3}\b)|[，;；]|\s[—–-]\s|[—–])\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
    r"|\s*[(（](?=(?i:i|i'm|i've|my|我)\b)|(?<=\w)[)）]\s*"
)


__all__ = [
    "ANSWERS",
    "ATTR_NORMAL",
    "MAX_FREE_TEXT",
    "NEGATED",
    "PARTS",
    "PAST_QUOTE",
    "ZH_PARTICLE_TAIL",
    "Slot",
    "bound_liking",
    "bound_open",
    "clean_value",
    "first_alias",
    "snake",
    "strip_lead",
    "typed_attribute",
]
