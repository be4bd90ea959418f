"""Hit builders the rule tables call with a pattern's match: typed facts, constraints on the
assistant, tools, project facts, attributes, switches, routines, limits, names and relations.
Pure."""

from __future__ import annotations

import re
from dataclasses import replace

from ..lexicon import (
    RELATIONS,
    ZH_ATTRIBUTE_NAMES,
    attribute_of,
    language_of,
    region_of,
    topic_of,
)
from ..redact import PLACEHOLDER_RE
from ..segment import topic_surface, zh_place, zh_workplace
from ..slots.preference import said_timezone
from .fragments import _LIMIT_UNDER, _ROUTINES
from .one_off import without_this_turn_markers
from .values import (
    _CHITCHAT_OBJECTS,
    _GENERIC_PLACE,
    _ORG_TAIL_EN,
    _PRONOUNS,
    _REFERENTIAL,
    _ROLE_TAIL_EN,
    _bound,
    _canon_constraint,
    _clean,
    _Hit,
    _pref,
)


def _fact(
    predicate: str, obj: str, *, kind: str = "stable_fact", multi: bool = False, conf: float = 0.9
) -> _Hit | None:
    obj = _clean(_bound(predicate, _clean(obj)))
    if not obj or _PRONOUNS.match(obj) or len(obj) > 80:
        return None
    generic = obj[:1].islower() and _GENERIC_PLACE.match(obj)
    if predicate in {"location", "hometown", "employer"} and generic:
        return None
    return _Hit("user", predicate, obj, kind, multi_valued=multi, confidence=conf)


def _with_also(hit: _Hit | None, *more: _Hit | None) -> _Hit | None:
    """``hit`` carrying the other facts stated with it (those that are not None)."""
    if hit is None:
        return None
    return replace(hit, also=tuple(h for h in more if h is not None))


def _employer(value: str) -> _Hit | None:
    """ "Acme as a data engineer" → employer Acme and occupation data engineer."""
    m = _ROLE_TAIL_EN.match(value)
    if m is None:
        return _fact("employer", value)
    return _with_also(_fact("employer", m.group("head")), _occupation(m.group("role")))


def _occupation(value: str) -> _Hit | None:
    """ "nurse at St. Mary's" → occupation nurse and employer St. Mary's."""
    m = _ORG_TAIL_EN.match(value)
    if m is None:
        return _fact("occupation", value.lower())
    return _with_also(
        _fact("occupation", m.group("head").lower()), _fact("employer", m.group("org"))
    )


def _zh_work(span: str) -> _Hit | None:
    """ "深圳南山区的一家公司" → location 深圳南山区; "阿里巴巴杭州总部" → employer 阿里巴巴."""
    found = zh_workplace(span)
    return _fact(*found) if found else None


def _zh_location(span: str) -> _Hit | None:
    """A Chinese place span cut at the place's last word ("杭州西湖区的一个小区" → 杭州西湖区)."""
    return _fact("location", zh_place(span) or span)


def _answer_lang(m: re.Match[str], explicit: bool) -> _Hit | None:
    lang = language_of(m.group("o"))
    return _Hit("user", "answer_language", lang, "preference", explicit=explicit) if lang else None


def _tz(m: re.Match[str]) -> _Hit | None:
    """The timezone as the user said it ("PST", "东八区", "UTC+8"; the guide's rule), cut to
    the zone when the words after it name one; the resolver keeps the ``UTC±h`` form beside
    it (``metadata["canonical"]``), so "PST" and "UTC-8" still supersede each other."""
    tz = _said_timezone(m.group("o"))
    return _Hit("user", "timezone", tz, "stable_fact") if tz else None


def _said_timezone(text: str) -> str:
    """The zone named in ``text`` as written, else ``text`` cleaned."""

    return said_timezone(text) or _clean(text)


_SPEAKER_STATEMENT = re.compile(
    r"(?i)^(?:[\w .'-]{1,30}:\s*)?(?:(?:and|but|so|also)\s+)*"
    r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|my|our|here's|there's|it|it's|that's"
    r"|this|he|she|they|in the future,?\s+i\b|have you|did you|do you)\b"
)
"""A clause about the speaker or the world, not addressed to the assistant."""
_NOT_A_DIRECTIVE_EN = re.compile(
    r"(?i)^(?:"
    # a gerund, a past form or a perfect: "always running around", "never tried climbing",
    # "never been to Japan", "always been interested in…" describe the speaker, order nothing
    r"(?!(?:bring|sing|string|ring|swing|sting|ping)\b)\w{2,}ing"
    r"|(?!\w*(?:eed|embed|shed)\b)\w{2,}ed"
    r"|been|had|got|gone|done|seen|went|was|were|made|met|heard|thought|felt|known"
    # not a verb at all: "always up for…", "always here to help", "always a joy", "always
    # calm", "always great chatting"
    r"|up|here|there|a|an|the|so|such|on|great|fun|happy|calm|nice|good"
    r"|glad|ready|lucky|busy"
    # a subject, so not an imperative: "don't you think", "always I…"
    r"|i|i'm|i've|i'd|you|we|they|he|she|it's"
    # a state of the speaker with "I" left out: "(I) don't know what I'd do without them",
    # "(I) don't feel like…", "(I) always love having fun"
    r"|know|feel|think|love|like|enjoy|care|mind|believe|wish|hope"
    r")\b"
)
"""The first word of an English "always/never/don't/must …" clause that cannot head an
instruction: an imperative starts with the verb's base form."""
_EPISTEMIC_MUST = re.compile(r"(?i)^you must\s+(?:have|love|feel|know|think|miss|enjoy|mean|see)\b")
""""You must have put in a ton of work", "you must love it": a guess about the listener."""
_ADVICE_TO_LISTENER = re.compile(r"(?i)\byour(?:self|selves)\b|\byou(?:\s+(?:down|back|out))?$")
"""Advice about the listener's own life ("don't let anything stop you", "don't limit
yourself"): encouragement between people, not a rule for the assistant's answers."""


_ORDER_LEAD_EN = re.compile(
    r"(?i)^(?:[\w .'-]{1,30}:\s*)?(?:please\s+)?(?:don't|don’t|do not|dont|never|always|avoid|stop"
    r"|make sure (?:to|you)|be sure to|you must|you should always)\s+(?:ever\s+)?"
)


def not_an_order(clause: str) -> bool:
    """True for an English clause worded like an order that orders nothing: "Never been to
    Japan", "Don't know what I'd do without them", "You must have worked hard", "Don't let
    anything stop you" (see :data:`_NOT_A_DIRECTIVE_EN`)."""
    m = _ORDER_LEAD_EN.match(clause.strip())
    if m is None:
        return False
    rest = _clean(clause.strip()[m.end() :])
    prohibition = not re.match(r"(?i)always|make|be sure|you", m.group(0).split(":")[-1].strip())
    return bool(
        _NOT_A_DIRECTIVE_EN.match(rest)
        or (prohibition and rest.lower().startswith("be "))  # "don't be scared", as the rules
        or _EPISTEMIC_MUST.match(clause.strip())
        or _ADVICE_TO_LISTENER.search(rest)
    )


def _constraint(m: re.Match[str], predicate: str) -> _Hit | None:
    obj = re.sub(r"(?i)^(?:always|总是|始终)\s*", "", _clean(m.group("o")))
    obj = _clean(without_this_turn_markers(obj))  # "this time" marks the candidate, not the object
    if not obj or _CHITCHAT_OBJECTS.match(obj) or _PRONOUNS.match(obj) or len(obj) > 120:
        return None
    if not re.search(r"[\u4e00-\u9fff]", obj) and (
        _NOT_A_DIRECTIVE_EN.match(obj)
        or _EPISTEMIC_MUST.match(m.group(0).strip())
        or _ADVICE_TO_LISTENER.search(obj)
    ):
        return None
    cjk = re.search(r"[\u4e00-\u9fff]", obj) is not None
    if (
        (cjk and len(obj) < 2)  # "别说了" → "说", "必须的" → "的"
        or (not cjk and re.fullmatch(r"(?i)[a-z]+ing", obj))  # "stop talking"
        or (predicate == "must_not" and obj.lower().startswith("be "))  # "don't be late"
        or _REFERENTIAL.search(obj)  # "don't do that again"
    ):
        return None
    lang = language_of(obj)
    if lang and re.search(r"(?i)answer|repl|respon|回答|回复|说|写", obj) and predicate == "must":
        return _Hit("user", "answer_language", lang, "preference", explicit=True)
    topic = topic_of(obj)
    if predicate == "must" and topic and topic[0] == "response_length":
        # "always go into detail" is the answer-length preference, not a free constraint
        return _Hit("user", "response_length", topic[1], "preference", explicit=True)
    return _Hit(
        "assistant",
        predicate,
        _canon_constraint(obj),
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


def _project(m: re.Match[str], subject: str = "project") -> _Hit | None:
    """A fact about the project: "this project uses X", "我们项目的数据库用的是 X"."""
    obj = _clean(m.group("o"))
    if not obj:
        return None
    attr = m.groupdict().get("attr")
    predicate = attribute_of(attr) if attr else None
    found = _tool(obj, predicate)
    scope = "project" if subject == "project" else "user"
    if found:
        return _Hit(subject, found[0], found[1], "stable_fact", scope_level=scope)
    if predicate:
        return _Hit(subject, predicate, obj, "stable_fact", scope_level=scope)
    return _Hit(subject, "uses", obj, "stable_fact", scope_level=scope, multi_valued=True)


def _owner(m: re.Match[str]) -> tuple[str, str]:
    """``(subject, scope level)``: the project when the clause names it ("our team", "我们项目"),
    else unstated (``""``: the resolver takes the owner of the record it updates)."""
    return ("project", "project") if m.groupdict().get("who") else ("", "user")


def _named_value(obj: str) -> bool:
    """True when ``obj`` reads as a name ("GitHub Actions", "MySQL", "8.0", "阿里云"), not a
    state ("down", "slow")."""
    return bool(re.match(r"[A-Z0-9\u4e00-\u9fff]", obj))


def _attribute(m: re.Match[str]) -> _Hit | None:
    """ "our database is MySQL 8.0", "the project's CI is GitHub Actions"."""
    predicate = attribute_of(m.group("attr"))
    obj = _clean(m.group("o"))
    found = _tool(obj, predicate)
    if found is None and predicate and _named_value(obj):
        found = (predicate, obj)
    if found is None:
        return None
    subject, scope = _owner(m)
    return _Hit(subject, found[0], found[1], "stable_fact", scope_level=scope)


def _switch(m: re.Match[str]) -> _Hit | None:
    """ "we switched from MySQL to Postgres", "数据库已经换成 Postgres 了": the new value of the
    attribute (or of the tool's own predicate), naming the old one when given."""
    attr = m.groupdict().get("attr")
    predicate = attribute_of(attr) if attr else None
    obj = _clean(m.group("o"))
    found = _tool(obj, predicate)
    if found is None and predicate and _named_value(obj):
        found = (predicate, obj)
    if found is None:
        if (m.groupdict().get("verb") or "").lower() in {"moved", "relocated"}:
            return _fact("location", obj)  # "we moved to Berlin": where the user lives
        return None
    old = _clean(m.groupdict().get("x") or "") or None
    old_tool = _tool(old, found[0]) if old else None
    subject, scope = _owner(m)
    return _Hit(
        subject,
        found[0],
        found[1],
        "stable_fact",
        scope_level=scope,
        corrects=old_tool[1].split(" ")[0] if old_tool else old,
    )


def _region(m: re.Match[str]) -> _Hit | None:
    """ "we run in eu-west-1", "our servers are in us-east-1": the cloud region."""
    region = region_of(m.group("o"))
    if region is None:
        return None
    subject, scope = _owner(m)
    return _Hit(subject, "cloud_region", region, "stable_fact", scope_level=scope)


def _routine(m: re.Match[str]) -> _Hit | None:
    """ "Our team deploys on Fridays" → ``deploy_day`` Fridays; "我们团队每周五发布" →
    ``release_day`` 周五."""
    word = (m.group("verb") or m.groupdict().get("event") or "").lower()
    word = re.sub(r"-", "", word)
    key = _ROUTINES.get(word) or _ROUTINES.get(re.sub(r"(?:e?s)$", "", word))
    day = _clean(m.group("o"))
    if key is None or not day:
        return None
    subject, scope = _owner(m)
    return _Hit(subject, f"{key}_day", day, "stable_fact", scope_level=scope)


def _limit(m: re.Match[str]) -> _Hit | None:
    """A length limit on the assistant's answers ("answers under 100 words", "回答不超过200字")."""
    n, unit = m.group("n"), m.group("unit").lower()
    if re.search(r"[\u4e00-\u9fff]", unit):
        value = f"回答不超过{n}{unit}"
    else:
        cmp = m.group("cmp").lower()
        value = f"answers {'under' if cmp in _LIMIT_UNDER else 'at most'} {n} {unit}"
    return _Hit(
        "assistant", "must", value, "constraint", explicit=True, multi_valued=True, confidence=0.9
    )


_STOP_NAMES = frozenset(
    {
        *("at", "on", "in", "to", "by", "me", "you", "it", "that", "this", "the", "a", "an"),
        *("and", "or", "but", "so", "if", "when", "back", "later"),
        *("phone", "number", "mobile", "email"),
    }
)


def _name(value: str) -> _Hit | None:
    """A name, never a placeholder, a number or a function word ("call me at [PHONE]")."""
    cleaned = _clean(value)
    if (
        not cleaned
        or PLACEHOLDER_RE.search(value)
        or re.search(r"\d", cleaned)
        or cleaned.lower() in _STOP_NAMES
    ):
        return None
    return _fact("name", cleaned)


_EVENT_WORDS = re.compile(
    r"(?i)\b(?:party|appointment|flight|trip|exam|test|game|match|meeting|recital|surgery"
    r"|visit|interview|wedding|concert|show|class|lesson|practice)\b"
)
"""Attributes that are one-off events ("birthday party", "flight"): nothing durable."""


def _relation(m: re.Match[str], attribute: str | None = None) -> _Hit | None:
    """ "my daughter's birthday is June 3rd" → ``daughter_birthday`` June 3rd (a free
    predicate ``<relation>_<attribute>``)."""
    rel = RELATIONS.get(m.group("rel").lower(), m.group("rel").lower())
    raw = attribute or m.group("attr")
    if _EVENT_WORDS.search(raw):
        return None  # "my daughter's birthday party is on Saturday": an event, not a fact
    attr = ZH_ATTRIBUTE_NAMES.get(raw) or re.sub(r"\W+", "_", raw.lower()).strip("_")
    attr = re.sub(r"^(?:mom|mum)$", "mother", attr)
    return _fact(f"{rel.replace(' ', '_')}_{attr}", m.group("o"))


_ZH_MUST_NOT_IN = re.compile(
    r"^(?P<topic>[^，,]{0,16}?)(?:绝对|千万|一定|永远)?(?:不要|不能|不得|不准|不许|禁止|严禁|切勿|请勿"
    r"|不可以|不可|别)(?P<o>[^，,]+)$"
)
_ZH_MUST_IN = re.compile(
    r"^(?P<topic>[^，,]{0,16}?)(?:务必|必须|一定要|总是|始终|每次都要?)(?P<o>[^，,]+)$"
)
_ZH_ONLY_IN = re.compile(r"(?<![一二两三四五六七八九十几每\d])(?:只能?|仅)(?![是有要])")
_EN_ONLY = re.compile(r"(?i)^(?:please\s+)?(?:only|exclusively)\s+(?P<o>.+)$")


def _note_rule(body: str) -> _Hit | None:
    """A rule for the assistant inside an explicit note ("记住：所有通知只发内部组",
    "报告里不得出现客户姓名", "remember: only …"), or None. A note about the user themselves
    ("我…") is not a rule for the assistant."""
    text = _clean(body)
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
    return _rule_hit("must", f"only {_clean(m.group('o'))}") if m else None


def _rule_hit(predicate: str, obj: str) -> _Hit | None:
    obj = _clean(obj)
    if len(obj) < 2 or _REFERENTIAL.search(obj):
        return None
    return _Hit(
        "assistant",
        predicate,
        _canon_constraint(obj),
        "constraint",
        explicit=True,
        multi_valued=True,
    )


_USE_EN = re.compile(
    r"(?i)^i\s+(?:only\s+|mostly\s+|always\s+|still\s+)?(?:use|am using|'m using|go with"
    r"|stick with|code in|write in|work in|run)\s+(?P<o>.+)$"
)
_USE_ZH = re.compile(r"^我(?:只|一般|平时|一直|都)?(?:用的是|在用|使用|用)(?P<o>.+)$")


def _used_tool(stmt: str) -> _Hit | None:
    """ "I use vim" said against another tool ("…, not emacs"): a preference for a known
    tool. (Alone, "I use X" is not yet a preference.)"""
    m = _USE_EN.match(stmt) or _USE_ZH.match(stmt)
    if m is None:
        return None
    hit = _pref(m.group("o"), explicit=True)
    return hit if hit is not None and hit.predicate != "likes" else None


# (pattern, builder, explicit-by-form) in priority order.


__all__ = [
    "not_an_order",
]
