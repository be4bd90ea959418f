"""Typed value slots: answer length (:func:`length_slot`), tools and other lexicon topics
(:func:`typed_slot`), cuisines, and budgets and deadlines by their money and date tokens
(:func:`quantity_slot`). Pure."""

from __future__ import annotations

import re

from ..lexicon import LANGUAGES, TOPICS, _alias_re, topic_of
from ..segment import topic_surface
from ..spans import budget_value, deadline_value
from .model import ANSWERS, NEGATED, Slot, first_alias

SWITCHED = re.compile(
    r"(?i)换成了?|改成了?|改用了?|换到了?|切到了?|切换到了?|迁移到了?|升级到了?|转向了?|改喝了?"
    r"|\b(?:switched|moved|migrated|changed|upgraded|converted|went)\s+"
    r"(?:(?!to\b|from\b|over\b|back\b)[\w'-]+\s+){0,4}?(?:over\s+)?(?:back\s+)?"
    r"(?:from\s+[\w.+#-]+(?:\s[\w.+#-]+)?\s+)?to\b"
    r"|(?<!from )\bnow\s+(?:i\s+)?(?:use|using|on|prefer)\b"
    r"|(?i:switch(?:ed)?|migrat(?:e|ed)|mov(?:e|ed)|chang(?:e|ed)|upgrad(?:e|ed))"
    r"\s*(?:[^，,。；;！!？?\sA-Za-z]{1,6}\s*)?(?:over\s*)?到了?"
)
"""A switch: the value after it is the current one ("拿铁喝着胃不舒服，换成美式了"), also with
what was switched between the verb and "to" ("we moved the main service from MySQL to
Postgres 16", "switched all of us to Macs", "switch 我们全部到 Linux 了")."""

PLANNED = re.compile(
    r"(?i)\b(?:plan(?:s|ned|ning)?(?:\s+on)?|thinking\s+(?:of|about)|talk\s+of|talking\s+about"
    r"|want(?:s|ed)?\s+to|would\s+like\s+to|'d\s+like\s+to|hop(?:e|es|ing)\s+to|going\s+to"
    r"|gonna|might|may|will|could|should|consider(?:ing)?|about\s+to|eventually|someday"
    r"|proposal|proposed)\b|想|打算|准备|计划|考虑|希望|(?i:plan)|要(?=迁|换|切|改)|下(?:个|半)?(?:月|年|季度|周)"
    r"|明年"
)
"""Words of a switch not made yet ("最近想迁到 Vitest", "there's talk of moving to Vitest",
"I'm planning to move it from SQLite to Postgres"): the tool named after it is a plan, and
the current one is the tool the clause names otherwise."""


_TOOL_TOPICS = frozenset(
    {"programming_language", "database", "editor", "operating_system", "test_framework"}
)


def _plan_of_tool(clause: str, switch: re.Match[str]) -> bool:
    """True when ``switch`` is a planned move (:func:`_planned`) to a tool: the tool the user
    has is still the one before it."""
    after = _topic_in(clause[switch.end() :])
    return after is not None and after[1] in _TOOL_TOPICS and _planned(clause, switch.start())


def _planned(clause: str, at: int) -> bool:
    """True when the words of the part of ``clause`` before ``at`` (a switch or a "now")
    say the switch is only planned (:data:`PLANNED`)."""
    part = re.split(r"[,，;；。.!！?？]|\bbut\b|但是?|不过", clause[:at])[-1]
    return bool(PLANNED.search(part[-40:]))


_LENGTH_CONTEXT = re.compile(
    r"(?i)\b(?:answers?|repl(?:y|ies)|responses?|explanations?|explain\w*|messages?|summar\w+"
    r"|keep (?:it|them|things)|write-?ups?)\b|回答|回复|答复|解释|讲|说|写|总结|回我"
    r"|\bto the point\b|\bno fluff\b|\btl;?dr\b|\bgo (?:deep|deeper)\b"
    r"|啰嗦|言简意赅|长话短说|越细越好"
)
_CONCISE_CUE = re.compile(
    r"(?i)\bto the point\b|\bno (?:fluff|essays?|rambling|walls? of text)\b|\bshort\b"
    r"|\b(?:don't|do not|dont|never|stop|quit)\s+(?:ramble|rambling|waffle|waffling)\b"
    r"|\bbrief(?:ly)?\b|\btl;?dr\b|\b(?:not|never) (?:too |so )?(?:long|wordy|verbose)\b"
    r"|\btoo (?:long|wordy|verbose)\b|(?:别|不要|少)(?:太)?啰嗦|啰嗦|言简意赅|长话短说"
    r"|简单说|简单讲"
    r"|短点|短些|简练|少废话|(?:别|不要|不用)(?:写|讲|说)?(?:太|那么)?长|一两句"
)
_DETAILED_CUE = re.compile(
    r"(?i)\bgo (?:deep|deeper|in-?depth)\b|\bin-?depth\b|\bin (?:great |full )?detail\b"
    r"|\b(?:long|longer|thorough|exhaustive|comprehensive)\b|\b(?:not|never) (?:too |so )?short\b"
    r"|细一点|细一些|越细越好|越详细越好|讲透|说透|展开(?:讲|说)|深入|不怕长|(?:别|不要)(?:太)?短"
)


CURRENTLY = re.compile(
    r"(?i)\b(?:(?<!from )(?<!for )now(?!\s+on\b)|nowadays|these days|currently|today)\b"
    r"|现在|目前|如今|眼下|这几年|最近"
)
"""A "now" that sets the current value against an earlier one ("wrote Java for ten years, now
mostly Kotlin", "以前用 MySQL，现在主要用 MongoDB")."""


_FOOD_TALK = re.compile(r"(?i)\b(?:cuisines?|food|dishes|restaurants?)\b|菜系|料理|菜馆")
"""Words of food: a language name near them is a cuisine ("talk food: Thai is my favourite
cuisine"), not the answers' language."""


def length_slot(clause: str) -> Slot | None:
    """``response_length`` when ``clause`` says how long answers should be in words the
    lexicon does not list ("short and to the point", "go deep", "别啰嗦", "越细越好"): only
    when it speaks of answers or explanations (or "keep it …"), so "a short trip" is not."""
    if not _LENGTH_CONTEXT.search(clause):
        return None
    concise, detailed = _CONCISE_CUE.search(clause), _DETAILED_CUE.search(clause)
    if concise and _judges_a_tool(clause, concise.start()):
        concise = None  # "偏好 Go，Java 太啰嗦了": the language is wordy, not the answers
    if concise and (detailed is None or concise.start() <= detailed.start()):
        return Slot("user", "response_length", "concise")
    if detailed:
        return Slot("user", "response_length", "detailed")
    return None


def _judges_a_tool(clause: str, at: int) -> bool:
    """True when the words at ``at`` judge a tool named just before them in the same part
    ("Java 太啰嗦了", "Perl is too verbose") rather than the answers."""
    part = re.split(r"[,，;；。.!！]", clause[:at])[-1]
    named = topic_of(part) is not None or _cased_tool_at(part) is not None
    return named and not ANSWERS.search(part)


_TAKES_A_LANGUAGE = (
    r"(?:\b(?i:in|with|write|writes|writing|written|code|coding|program|programming|use"
    r"|using|learn|learning|love|prefer|like|mostly|mainly)\s+|(?:偏好|[写用学是爱欢靠])\s*)"
)
_FOR_A_USE = (
    r"(?:^|(?<=[,;，；—–:：]))\s*(?=(?:Go|R|SAS|py|Py)\s+(?i:for|on)\s+(?:(?:the|my|our|all|most"
    r"|any|anything|everything|some)\s+)*(?:[\w-]+\s+)?(?i:scripts?|scripting|services?|backends?"
    r"|back\s+end|frontends?|front\s+end|servers?|clients?|apis?|cli|tools?|tooling|glue|infra"
    r"|data|stats|statistics|analysis|analytics|ml|web|apps?|automation|prototyp\w*|pipelines?"
    r"|else|the\s+rest|models?|plots?|jobs?)\b)"
)
"""A language named first in a part and then what it is used for ("py for scripts, Go for
services", "R for the stats"): the user's split between their tools."""
_CASED_TOOLS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "programming_language",
        re.compile(
            r"(?:" + _TAKES_A_LANGUAGE + r"(?=Go|R|SAS)|" + _FOR_A_USE + r")"
            r"(?P<o>Go|R|SAS|py|Py)(?![\w+#&'-]|\.\w)"  # "I mostly write Go." ends a sentence
        ),
    ),
    (
        "editor",
        re.compile(
            r"(?:\b(?i:use|using|in|to|with|prefer|love|like|it's|it is)\s+|[用是到成在]\s*)"
            r"(?P<o>Zed|Cursor)(?![\w-])"
        ),
    ),
    (
        "operating_system",
        re.compile(
            r"(?i)(?:\b(?:run|runs|running|use|using|on|daily-?drive|installed)\s+|[用是装]\s*)"
            r"(?P<o>arch)(?![\w-])"
        ),
    ),
    (
        "database",
        re.compile(
            r"(?:\b(?i:on|use|using|in|with|is|run|runs)\s+|[用是在]\s*)"
            r"(?P<o>Oracle(?:\s+\d+[a-z]?)?)(?![\w-])"
        ),
    ),
)
"""Tool names that are also common words ("go", "zed", "arch", "oracle"): a value only when
written as a name right after a verb or preposition that takes a tool ("written in Go",
"我主要写 Go", "i run arch")."""


def _cased_tool(clause: str) -> Slot | None:
    found = _cased_tool_at(clause)
    return None if found is None else found[1]


def named_tool(value: str) -> Slot | None:
    """The tool a preferred value names when that value is a tool name that is also a common
    word ("Go", "Zed", "Arch", "Oracle"), the verb that takes it already read by the caller
    ("我偏好 Go" → the value "Go"); None for anything else."""
    value = value.strip()
    if not re.fullmatch(r"[A-Za-z]+(?:\s+\d+[a-z]?)?", value):
        return None
    found = _cased_tool_at("use " + value)
    return None if found is None or found[0] != 4 else found[1]


def cased_tool_at_start(text: str, predicate: str) -> tuple[str, int] | None:
    """The tool of ``predicate`` named by a common word (:data:`_CASED_TOOLS`) that ``text``
    starts with, read as the object of a verb already said ("Python and Go": after the "and",
    "Go" is the second language), and where its words end in ``text``; None otherwise."""
    for pred, pattern in _CASED_TOOLS:
        m = pattern.match("use " + text) if pred == predicate else None
        if m is not None and m.start("o") == 4:
            value = m.group("o")
            return ("Arch" if value.lower() == "arch" else value), m.end("o") - 4
    return None


def _cased_tool_at(clause: str) -> tuple[int, Slot] | None:
    """The first tool named by a common word (:data:`_CASED_TOOLS`) and where it starts."""
    for predicate, pattern in _CASED_TOOLS:
        m = pattern.search(clause)
        if m and not NEGATED.search(clause[max(0, m.start("o") - 16) : m.start("o")]):
            value = m.group("o")
            return m.start("o"), Slot(
                "user", predicate, "Arch" if value.lower() == "arch" else value
            )
    return None


def typed_slot(clause: str) -> Slot | None:
    """A typed slot of the labelling guide named in ``clause``: the answer language when the
    clause is about replies, else the earliest non-negated topic value (editor, database,
    UI theme, indentation, drink, cuisine...) — after a switch ("换成…", "switched to…") the
    value it switches to, naming the one before as the old value; of two values of one
    attribute, the one after or right before a "now" ("以前用 MySQL，现在用 MongoDB", "tried
    vscode, went back. neovim now"); else the answer length in
    words the lexicon does not list (:func:`length_slot`), a tool named by a common word
    ("written in Go"), a cuisine ("Thai is my favourite cuisine")."""
    lang = first_alias(clause, LANGUAGES)
    if lang is not None and ANSWERS.search(clause) and not _FOOD_TALK.search(clause):
        return Slot("user", "answer_language", lang[1])
    switch = next((m for m in SWITCHED.finditer(clause) if not _plan_of_tool(clause, m)), None)
    if switch is not None:
        cased = _cased_tool_at("use " + clause[switch.end() :].strip())
        if cased is not None and cased[0] == 4:  # "Switched to Arch a while back, Windows…"
            return cased[1]
        after = _topic_in(clause[switch.end() :])
        if after is not None:
            head = clause[: switch.end()]  # "from X to": the old value is in the switch
            before = _topic_in(head, only=after[1])
            value = topic_surface(clause[switch.end() :], after[1], after[2])[0]
            old = topic_surface(head, *before[1:])[0] if before else None
            return Slot("user", after[1], value, after[1] in {"cuisine", "pet"}, corrects=old)
    found = _topic_in(clause)
    if found is not None and found[1] == "drink":
        found = _drink_had(clause, found)
        if found is None:  # every drink refused: another topic the clause names
            others = [_topic_in(clause, only=p) for p in TOPICS if p != "drink"]
            found = min((o for o in others if o is not None), default=None)
    if found is not None:
        found = _current_topic(clause, found)
        cased = _cased_tool_at(clause)
        if cased is not None and cased[0] < found[0] and cased[1].predicate == found[1]:
            return cased[1]  # "写代码我偏好 Go，Java 太啰嗦了": the first one named
    if found is None:
        return (
            length_slot(clause)
            or _cased_tool(clause)
            or _cuisine_slot(clause)
            or quantity_slot(clause)
        )
    value = topic_surface(clause, found[1], found[2])[0]
    return Slot("user", found[1], value, multi_valued=found[1] in {"cuisine", "pet"})


_ONE_CUISINE = r"[a-z][\w'-]*(?:\s(?!and\b|or\b)[a-z][\w'-]*)?"
_CUISINE_EN = re.compile(
    r"(?i)(?:^|(?<=[:：;,.!])\s*)(?P<o>"
    + _ONE_CUISINE
    + r"(?:(?:\s*,\s*|\s+(?:and|or|&)\s+|,\s*(?:and|or)\s+)"
    + _ONE_CUISINE
    + r"){0,3})\s+(?:food\s+)?(?:is|are)\s+(?:hands\s+down\s+|easily\s+"
    r"|probably\s+|definitely\s+)?my\s+(?:absolute\s+|all-time\s+|two\s+|top\s+(?:two|three)\s+)?"
    r"(?:favou?rites?|faves?|go-tos?)(?:\s+(?:cuisines?|foods?|kinds? of food))?\b"
)
_CUISINE_LIST = re.compile(r"(?i)\s*(?:,\s*(?:and|or)\s+|,\s*|\s+(?:and|or|&)\s+)")


def cuisine_slots(clause: str) -> list[Slot]:
    """Each cuisine of "<X> is my favourite cuisine" / "<X> and <Y> are my go-to cuisines"
    (also after a lead: "talk food: Thai is my favourite cuisine"), when no lexicon cuisine
    is named; a bare "favourite" needs "food" or "cuisine" in the clause."""
    m = _CUISINE_EN.search(clause.strip())
    if m is None or not re.search(r"(?i)\b(?:cuisines?|food|foods)\b", clause):
        return []
    names = [n.strip() for n in _CUISINE_LIST.split(m.group("o")) if n.strip()]
    names = [re.sub(r"(?i)\s+food$", "", n) for n in names]
    if any(n.lower() in {"it", "this", "that", "what", "which", "these", "those"} for n in names):
        return []
    return [Slot("user", "cuisine", n, multi_valued=True) for n in names]


_NATIONAL_CUISINES = sorted(
    (c for c in TOPICS["cuisine"] if re.fullmatch(r"[A-Z][a-z]+", c)), key=len, reverse=True
)
_EAT_CUISINE = re.compile(
    r"(?i)\b(?:eat|eats|eating|order|orders|ordering|crave|craving|cook|cooks|cooking|get|getting)"
    r"\s+(?:(?:a\s+lot\s+of|lots\s+of|so\s+much|mostly|mainly|usually|only)\s+)?"
    r"(?P<o>" + "|".join(_NATIONAL_CUISINES) + r")\b(?:\s+(?:food|cuisine|dishes))?"
    r"(?!\s*(?:people|language|friends|class(?:es)?|lessons?|drama|shows?|words?|with)\b)"
)
""""we eat Korean like three times a week", "I order Thai most Fridays": a national cuisine
named after a verb of eating (the word alone would be a language or a nationality)."""


def _cuisine_slot(clause: str) -> Slot | None:
    """The first of :func:`cuisine_slots`, else a national cuisine eaten
    (:data:`_EAT_CUISINE`), or None."""
    found = cuisine_slots(clause)
    if found:
        return found[0]
    m = _EAT_CUISINE.search(clause)
    if m is None or NEGATED.search(clause[max(0, m.start("o") - 16) : m.start("o")]):
        return None
    return Slot("user", "cuisine", m.group("o"), multi_valued=True)


ONLY_DRINK = re.compile(
    r"(?i)\b(?:only|just)\s+(?:ever\s+|really\s+)?(?:drink|have)\s+|\bdrink\s+only\s+"
    r"|(?:只|就只|就)(?:爱)?喝"
)
"""The one drink the user has ("I only drink tea", "只喝茶"): the drink, whatever other drink
the clause names (the one they do not drink)."""
_REFUSED_DRINK = re.compile(
    r"(?i)\b(?:don't|do\s+not|dont|never|can't|cannot|no\s+longer|rarely|won't)\s+(?:really\s+"
    r"|ever\s+|even\s+)?(?:drink|touch|have)\b|\bnot\s+(?:my\s+thing|for\s+me|a\s+fan)"
    r"|\b(?:quit|gave\s+up|cut\s+out)\b|(?<!只)不(?:怎么|太|爱|再|能)?喝|戒了|不碰|喝不了"
)
"""Words of a drink the user does not have ("I don't really drink coffee", "Coffee's not my
thing", "不喝咖啡"): the part that says them names no drink of theirs."""


def _drink_had(clause: str, found: tuple[int, str, str]) -> tuple[int, str, str] | None:
    """The drink the user has among those ``clause`` names: the one after "only drink" /
    "只喝" (:data:`ONLY_DRINK`), else the first one whose own words do not refuse it
    (:data:`_REFUSED_DRINK`, said between the drink named before it, or the start of its part,
    and the next one: "不喝咖啡，只喝茶" → 茶; "Coffee's not my thing — tea, mostly oolong" →
    tea); None when every drink named is refused ("I don't really drink coffee")."""
    for m in ONLY_DRINK.finditer(clause):
        hit = _topic_in(clause[m.end() :], only="drink")
        if hit is not None and hit[0] <= 4:
            return (m.end() + hit[0], "drink", hit[2])
    hits: list[tuple[int, int, str]] = []
    for canonical, aliases in TOPICS["drink"].items():
        for alias in aliases:
            hits += [(m.start(), m.end(), canonical) for m in _alias_re(alias).finditer(clause)]
    hits = sorted(h for h in hits if not any(o[0] <= h[0] and h[1] < o[1] for o in hits))
    for i, (begin, end, canonical) in enumerate(hits):
        before = re.split(r"[,，;；。.!！?？]|\s[—–-]\s|[—–]", clause[:begin])[-1]
        if i and hits[i - 1][1] > begin - len(before):
            before = clause[hits[i - 1][1] : begin]  # "我喝茶不喝咖啡": 咖啡's own words
        until = hits[i + 1][0] if i + 1 < len(hits) else len(clause)
        after = re.split(r"[,，;；。.!！?？]|\s[—–-]\s|[—–]", clause[end:until])[0]
        if not _REFUSED_DRINK.search(before + " " + after):
            return (begin, "drink", canonical)
    return None if hits else found  # "I don't really drink coffee": no drink of the user's


def _current_topic(clause: str, found: tuple[int, str, str]) -> tuple[int, str, str]:
    """``found`` (the earliest topic value), or the value of the same predicate named after a
    later "now" (:data:`CURRENTLY`): of two values of one attribute, the one said to hold now
    is the current one."""
    for now in CURRENTLY.finditer(clause):
        if now.start() <= found[0]:
            continue
        later = _topic_in(clause[now.end() :], only=found[1])
        if later is not None and not (
            found[1] in _TOOL_TOPICS and _planned(clause, now.end() + later[0])
        ):
            return (now.end() + later[0], later[1], later[2])
    for canonical, aliases in TOPICS[found[1]].items():  # "… neovim now"
        for alias in aliases:
            for m in _alias_re(alias).finditer(clause):
                if m.start() > found[0] and _NOW_AFTER.match(clause, m.end()):
                    return (m.start(), found[1], canonical)
    return found


_NOW_AFTER = re.compile(r"(?i)\s*(?:(?:is|'s)\s+(?:my\s+\w+(?:\s+\w+)?\s+)?)?(?:now|these days)\b")


def _topic_in(text: str, only: str | None = None) -> tuple[int, str, str] | None:
    """``(position, predicate, canonical)`` of the earliest non-negated topic value in
    ``text`` (of the predicate ``only`` when given)."""
    found: tuple[int, str, str] | None = None
    for predicate, table in TOPICS.items():
        if only is not None and predicate != only:
            continue
        hit = first_alias(text, table)
        if hit is not None and (found is None or hit[0] < found[0]):
            found = (hit[0], predicate, hit[1])
    return found


_VERSION_AFTER = re.compile(r"\s*v?\d+(?:\.\d+)*\b")


def topic_at_start(text: str, predicate: str) -> tuple[str, int] | None:
    """The value of ``predicate`` that ``text`` starts with ("MySQL 8.0 for prod" → "MySQL
    8.0", its stored form) and where its words end in ``text``, or None when ``text`` starts
    with something else."""
    best: tuple[int, str] | None = None
    for canonical, aliases in TOPICS.get(predicate, {}).items():
        for alias in aliases:
            m = _alias_re(alias).match(text)
            if m is not None and m.start() == 0 and (best is None or m.end() > best[0]):
                best = (m.end(), canonical)
    if best is None:
        return None
    version = _VERSION_AFTER.match(text, best[0])
    end = version.end() if version else best[0]
    return topic_surface(text[:end], predicate, best[1])[0], end


def topic_start(text: str, predicate: str) -> int | None:
    """Where the first non-negated value of ``predicate`` is named in ``text``, or None."""
    found = _topic_in(text, only=predicate)
    return None if found is None else found[0]


def quantity_slot(clause: str) -> Slot | None:
    """The budget or deadline ``clause`` states (:func:`~.spans.budget_value`,
    :func:`~.spans.deadline_value`: the amount or date as written), or None."""

    budget = budget_value(clause)
    if budget is not None:
        return Slot("user", "budget", budget)
    deadline = deadline_value(clause)
    if deadline is not None:
        return Slot("user", "deadline", deadline)
    return None


__all__ = [
    "CURRENTLY",
    "ONLY_DRINK",
    "SWITCHED",
    "cased_tool_at_start",
    "cuisine_slots",
    "length_slot",
    "named_tool",
    "quantity_slot",
    "topic_at_start",
    "topic_start",
    "typed_slot",
]
