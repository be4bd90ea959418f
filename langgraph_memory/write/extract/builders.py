"""Hit builders the rule tables call with a pattern's match: typed facts, constraints on the
assistant, tools, project facts, attributes, switches, routines, limits, names and relations.
Pure."""

from __future__ import annotations

import re
from dataclasses import replace

from ...core.redact import PLACEHOLDER_RE
from ..lexicon import RELATIONS, ZH_ATTRIBUTE_NAMES, attribute_of, language_of, region_of, topic_of
from ..segment import topic_surface, zh_place, zh_workplace
from ..slots.preference import said_timezone
from ..slots.triggers import park_city
from .fragments import LIMIT_UNDER, ROUTINES
from .one_off import without_this_turn_markers
from .orders import ADVICE_TO_LISTENER, EPISTEMIC_MUST, NOT_A_DIRECTIVE_EN
from .values import (
    CHITCHAT_OBJECTS,
    GENERIC_PLACE,
    ORG_TAIL_EN,
    PRONOUNS,
    ROLE_TAIL_EN,
    Hit,
    bound_value,
    canon_constraint,
    clean,
    points_elsewhere,
    pref,
)

_JOB_LEAD = re.compile(
    r"(?i)^(?:(?:their|our|his|her|my|the|a|an)\s+)?(?:first|only|sole|new|very first)\s+(?=\w)"
    r"|^(?:their|our|his|her|my)\s+(?=\w)"
)
"""Words before a job that say whose or which one it is, not what it is."""


def fact_hit(
    predicate: str, obj: str, *, kind: str = "stable_fact", multi: bool = False, conf: float = 0.9
) -> Hit | None:
    obj = clean(bound_value(predicate, clean(obj)))
    if predicate == "occupation":
        obj = _JOB_LEAD.sub("", obj)  # "their first product designer" → product designer
    if not obj or PRONOUNS.match(obj) or len(obj) > 80:
        return None
    generic = obj[:1].islower() and GENERIC_PLACE.match(obj)
    if predicate in {"location", "hometown", "employer"} and generic:
        return None
    return Hit("user", predicate, obj, kind, multi_valued=multi, confidence=conf)


def with_also(hit: Hit | None, *more: Hit | None) -> Hit | None:
    """``hit`` carrying the other facts stated with it (those that are not None)."""
    if hit is None:
        return None
    return replace(hit, also=tuple(h for h in more if h is not None))


def employer_hit(value: str) -> Hit | None:
    """ "Acme as a data engineer" → employer Acme and occupation data engineer."""
    m = ROLE_TAIL_EN.match(value)
    if m is None:
        return fact_hit("employer", value)
    return with_also(fact_hit("employer", m.group("head")), occupation_hit(m.group("role")))


_UNNAMED_ORG = re.compile(r"(?i)^(?:a|an|some|one of the)\s+(?!(?:[a-z]+\s+)?(?:called|named)\b)")
"""An organisation described, not named ("a regional bank", "a law firm"): no employer."""


def occupation_hit(value: str) -> Hit | None:
    """ "nurse at St. Mary's" → occupation nurse and employer St. Mary's."""
    m = ORG_TAIL_EN.match(value)
    if m is None:
        return fact_hit("occupation", value.lower())
    if _UNNAMED_ORG.match(m.group("org")):
        return fact_hit("occupation", m.group("head").lower())  # "at a regional bank": no name
    return with_also(
        fact_hit("occupation", m.group("head").lower()), fact_hit("employer", m.group("org"))
    )


def zh_work(span: str) -> Hit | None:
    """ "深圳南山区的一家公司" → location 深圳南山区; "阿里巴巴杭州总部" → employer 阿里巴巴."""
    park = park_city(span)  # "在深圳南山科技园上班": a place to work in, not an employer
    found = ("location", park) if park else zh_workplace(span)
    return fact_hit(*found) if found else None


def zh_location(span: str) -> Hit | None:
    """A Chinese place span cut at the place's last word ("杭州西湖区的一个小区" → 杭州西湖区)."""
    return fact_hit("location", zh_place(span) or span)


def answer_lang(m: re.Match[str], explicit: bool) -> Hit | None:
    lang = language_of(m.group("o"))
    return Hit("user", "answer_language", lang, "preference", explicit=explicit) if lang else None


def tz_hit(m: re.Match[str]) -> Hit | None:
    """The timezone as the user said it ("PST", "东八区", "UTC+8"; the guide's rule), cut to
    the zone when the words after it name one; the resolver keeps the ``UTC±h`` form beside
    it (``metadata["canonical"]``), so "PST" and "UTC-8" still supersede each other."""
    tz = said_timezone_text(m.group("o"))
    return Hit("user", "timezone", tz, "stable_fact") if tz else None


def said_timezone_text(text: str) -> str:
    """The zone named in ``text`` as written, else ``text`` cleaned."""

    return said_timezone(text) or clean(text)


_WORDY = re.compile(
    r"(?i)(?:(?:太|那么|这么|很)?(?:啰嗦|啰唆|唠叨|长篇大论)|(?:说|讲|写)?(?:一大堆)?废话"
    r"|(?:写成|写)\s*(?:an?\s+)?(?:essays?|小作文|长文)|ramble|rambling|waffle|waffling"
    r"|(?:write\s+)?(?:essays|walls?\s+of\s+text)|be\s+(?:so\s+)?(?:wordy|verbose|long-winded))"
    r"(?:\s*(?:in\s+)?(?:your\s+)?(?:answers?|replies|responses))?"
)
"""What a prohibition of wordiness forbids ("别啰嗦", "don't ramble", "不要写成 essay")."""


def constraint_hit(m: re.Match[str], predicate: str) -> Hit | None:
    referential = points_elsewhere(without_this_turn_markers(m.group("o")))
    obj = re.sub(r"(?i)^(?:always|总是|始终|ever)\s*", "", clean(m.group("o")))
    obj = clean(without_this_turn_markers(obj))  # "this time" marks the candidate, not the object
    if not obj or CHITCHAT_OBJECTS.match(obj) or PRONOUNS.match(obj) or len(obj) > 120:
        return None
    stop = re.match(r"(?i)(?:please\s+)?(?:stop|quit)\b", m.group(0).strip()) is not None
    if not re.search(r"[\u4e00-\u9fff]", obj) and (
        (NOT_A_DIRECTIVE_EN.match(obj) and not (stop and " " in obj))  # "stop apologizing…"
        or EPISTEMIC_MUST.match(m.group(0).strip())
        or ADVICE_TO_LISTENER.search(obj)
    ):
        return None
    cjk = re.search(r"[\u4e00-\u9fff]", obj) is not None
    if (
        (cjk and len(obj) < 2)  # "别说了" → "说", "必须的" → "的"
        or (not cjk and re.fullmatch(r"(?i)[a-z]+ing", obj))  # "stop talking"
        or (predicate == "must_not" and obj.lower().startswith("be "))  # "don't be late"
        or referential  # "don't do that again"
    ):
        return None
    lang = language_of(obj)
    if lang and re.search(r"(?i)answer|repl|respon|回答|回复|说|写", obj) and predicate == "must":
        return Hit("user", "answer_language", lang, "preference", explicit=True)
    if predicate == "must_not" and _WORDY.fullmatch(obj):
        # "别啰嗦", "don't ramble", "不要写成 essay": a prohibition of wordiness asks for concise
        # answers (an explicit preference: it is said as an order)
        return Hit("user", "response_length", "concise", "preference", explicit=True)
    topic = topic_of(obj)
    if predicate == "must" and topic and topic[0] == "response_length":
        # "always go into detail" is the answer-length preference, not a free constraint
        return Hit("user", "response_length", topic[1], "preference", explicit=True)
    return Hit(
        "assistant",
        predicate,
        canon_constraint(obj),
        "constraint",
        explicit=True,
        multi_valued=True,
    )


_TOOL_PREDICATES = frozenset(
    {"programming_language", "database", "test_framework", "indentation", "operating_system"}
)


def _tool(obj: str, predicate: str | None) -> tuple[str, str] | None:
    """``(predicate, value)`` of a tool named in ``obj``: a cloud region, or a known tool
    (canonical name plus the version the user gave: "MySQL 8.0"), under ``predicate`` when
    the attribute was named ("数据库用的是…"); None when ``obj`` names no known tool."""
    region = region_of(obj)
    if region and predicate in (None, "cloud_region"):
        return ("cloud_region", region)
    topic = topic_of(obj)
    if topic and (topic[0] == predicate or (predicate is None and topic[0] in _TOOL_PREDICATES)):
        return (topic[0], topic_surface(obj, *topic)[0])
    return None


def project_hit(m: re.Match[str], subject: str = "project") -> Hit | None:
    """A fact about the project: "this project uses X", "我们项目的数据库用的是 X"."""
    obj = clean(m.group("o"))
    if not obj:
        return None
    attr = m.groupdict().get("attr")
    predicate = attribute_of(attr) if attr else None
    found = _tool(obj, predicate)
    scope = "project" if subject == "project" else "user"
    if found:
        return Hit(subject, found[0], found[1], "stable_fact", scope_level=scope)
    if predicate:
        return Hit(subject, predicate, obj, "stable_fact", scope_level=scope)
    return Hit(subject, "uses", obj, "stable_fact", scope_level=scope, multi_valued=True)


def _owner(m: re.Match[str]) -> tuple[str, str]:
    """``(subject, scope level)``: the project when the clause names it ("our team", "我们项目"),
    else unstated (``""``: the resolver takes the owner of the record it updates)."""
    return ("project", "project") if m.groupdict().get("who") else ("", "user")


def _named_value(obj: str) -> bool:
    """True when ``obj`` reads as a name ("GitHub Actions", "MySQL", "8.0", "阿里云"), not a
    state ("down", "slow")."""
    return bool(re.match(r"[A-Z0-9\u4e00-\u9fff]", obj))


def attribute_hit(m: re.Match[str]) -> Hit | None:
    """ "our database is MySQL 8.0", "the project's CI is GitHub Actions"."""
    predicate = attribute_of(m.group("attr"))
    obj = clean(m.group("o"))
    found = _tool(obj, predicate)
    if found is None and predicate and _named_value(obj):
        found = (predicate, obj)
    if found is None:
        return None
    subject, scope = _owner(m)
    return Hit(subject, found[0], found[1], "stable_fact", scope_level=scope)


def switch_hit(m: re.Match[str]) -> Hit | None:
    """ "we switched from MySQL to Postgres", "数据库已经换成 Postgres 了": the new value of the
    attribute (or of the tool's own predicate), naming the old one when given."""
    attr = m.groupdict().get("attr")
    predicate = attribute_of(attr) if attr else None
    obj = clean(m.group("o"))
    found = _tool(obj, predicate)
    if found is None and predicate and _named_value(obj):
        found = (predicate, obj)
    if found is None:
        if (m.groupdict().get("verb") or "").lower() in {"moved", "relocated"}:
            return fact_hit("location", obj)  # "we moved to Berlin": where the user lives
        return None
    old = clean(m.groupdict().get("x") or "") or None
    old_tool = _tool(old, found[0]) if old else None
    subject, scope = _owner(m)
    return Hit(
        subject,
        found[0],
        found[1],
        "stable_fact",
        scope_level=scope,
        corrects=old_tool[1].split(" ")[0] if old_tool else old,
    )


def region_hit(m: re.Match[str]) -> Hit | None:
    """ "we run in eu-west-1", "our servers are in us-east-1": the cloud region."""
    region = region_of(m.group("o"))
    if region is None:
        return None
    subject, scope = _owner(m)
    return Hit(subject, "cloud_region", region, "stable_fact", scope_level=scope)


def routine_hit(m: re.Match[str]) -> Hit | None:
    """ "Our team deploys on Fridays" → ``deploy_day`` Fridays; "我们团队每周五发布" →
    ``release_day`` 周五."""
    word = (m.group("verb") or m.groupdict().get("event") or "").lower()
    word = re.sub(r"-", "", word)
    key = ROUTINES.get(word) or ROUTINES.get(re.sub(r"(?:e?s)$", "", word))
    day = clean(m.group("o"))
    if key is None or not day:
        return None
    subject, scope = _owner(m)
    return Hit(subject, f"{key}_day", day, "stable_fact", scope_level=scope)


def limit_hit(m: re.Match[str]) -> Hit | None:
    """A length limit on the assistant's answers ("answers under 100 words", "回答不超过200字")."""
    n, unit = m.group("n"), m.group("unit").lower()
    if re.search(r"[\u4e00-\u9fff]", unit):
        value = f"回答不超过{n}{unit}"
    else:
        cmp = m.group("cmp").lower()
        value = f"answers {'under' if cmp in LIMIT_UNDER else 'at most'} {n} {unit}"
    return Hit(
        "assistant", "must", value, "constraint", explicit=True, multi_valued=True, confidence=0.9
    )


_STOP_NAMES = frozenset(
    {
        *("at", "on", "in", "to", "by", "me", "you", "it", "that", "this", "the", "a", "an"),
        *("and", "or", "but", "so", "if", "when", "back", "later"),
        *("phone", "number", "mobile", "email"),
    }
)


def name_hit(value: str) -> Hit | None:
    """A name, never a placeholder, a number or a function word ("call me at [PHONE]")."""
    cleaned = clean(value)
    if (
        not cleaned
        or PLACEHOLDER_RE.search(value)
        or re.search(r"\d", cleaned)
        or cleaned.lower() in _STOP_NAMES
    ):
        return None
    return fact_hit("name", cleaned)


_EVENT_WORDS = re.compile(
    r"(?i)\b(?:party|appointment|flight|trip|exam|test|game|match|meeting|recital|surgery"
    r"|visit|interview|wedding|concert|show|class|lesson|practice)\b"
)
"""Attributes that are one-off events ("birthday party", "flight"): nothing durable."""


def relation_hit(m: re.Match[str], attribute: str | None = None) -> Hit | None:
    """ "my daughter's birthday is June 3rd" → ``daughter_birthday`` June 3rd (a free
    predicate ``<relation>_<attribute>``)."""
    rel = RELATIONS.get(m.group("rel").lower(), m.group("rel").lower())
    raw = attribute or m.group("attr")
    if _EVENT_WORDS.search(raw):
        return None  # "my daughter's birthday party is on Saturday": an event, not a fact
    attr = ZH_ATTRIBUTE_NAMES.get(raw) or re.sub(r"\W+", "_", raw.lower()).strip("_")
    attr = re.sub(r"^(?:mom|mum)$", "mother", attr)
    return fact_hit(f"{rel.replace(' ', '_')}_{attr}", m.group("o"))


_ZH_MUST_NOT_IN = re.compile(
    r"^(?P<topic>[^，,]{0,16}?)(?:绝对|千万|一定|永远)?(?:不要|不能|不得|不准|不许|禁止|严禁|切勿|请勿"
    r"|不可以|不可|别)(?P<o>[^，,]+)$"
)
_ZH_MUST_IN = re.compile(
    r"^(?P<topic>[^，,]{0,16}?)(?:务必|必须|一定要|总是|始终|每次都要?)(?P<o>[^，,]+)$"
)
_ZH_ONLY_IN = re.compile(r"(?<![一二两三四五六七八九十几每\d])(?:只能?|仅)(?![是有要])")
_EN_ONLY = re.compile(r"(?i)^(?:please\s+)?(?:only|exclusively)\s+(?P<o>.+)$")


def note_rule(body: str) -> Hit | None:
    """A rule for the assistant inside an explicit note ("记住：所有通知只发内部组",
    "报告里不得出现客户姓名", "remember: only …"), or None. A note about the user themselves
    ("我…") is not a rule for the assistant."""
    text = clean(body)
    if not text or re.match(r"(?i)我(?!们)|i\b|my\b", text):
        return None
    m = _ZH_MUST_NOT_IN.match(text)
    if m:
        return _rule_hit("must_not", m.group("topic") + m.group("o"))
    m = _ZH_MUST_IN.match(text)
    if m:
        return _rule_hit("must", m.group("topic") + m.group("o"))
    if _ZH_ONLY_IN.search(text):
        return _rule_hit("must", text)
    m = _EN_ONLY.match(text)
    return _rule_hit("must", f"only {clean(m.group('o'))}") if m else None


def _rule_hit(predicate: str, obj: str) -> Hit | None:
    referential = points_elsewhere(obj)
    obj = clean(obj)
    if len(obj) < 2 or referential:
        return None
    return Hit(
        "assistant",
        predicate,
        canon_constraint(obj),
        "constraint",
        explicit=True,
        multi_valued=True,
    )


_USE_EN = re.compile(
    r"(?i)^i\s+(?:only\s+|mostly\s+|always\s+|still\s+)?(?:use|am using|'m using|go with"
    r"|stick with|code in|write in|work in|run)\s+(?P<o>.+)$"
)
_USE_ZH = re.compile(r"^我(?:只|一般|平时|一直|都)?(?:用的是|在用|使用|用)(?P<o>.+)$")


def used_tool(stmt: str) -> Hit | None:
    """ "I use vim" said against another tool ("…, not emacs"): a preference for a known
    tool. (Alone, "I use X" is not yet a preference.)"""
    m = _USE_EN.match(stmt) or _USE_ZH.match(stmt)
    if m is None:
        return None
    hit = pref(m.group("o"), explicit=True)
    return hit if hit is not None and hit.predicate != "likes" else None


# (pattern, builder, explicit-by-form) in priority order.


__all__ = [
    "answer_lang",
    "attribute_hit",
    "constraint_hit",
    "employer_hit",
    "fact_hit",
    "limit_hit",
    "name_hit",
    "note_rule",
    "occupation_hit",
    "project_hit",
    "region_hit",
    "relation_hit",
    "routine_hit",
    "said_timezone_text",
    "switch_hit",
    "tz_hit",
    "used_tool",
    "with_also",
    "zh_location",
    "zh_work",
]
