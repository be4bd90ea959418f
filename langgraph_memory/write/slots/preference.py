"""Constraint and preference slots (:func:`constraint_slot`, :func:`preference_slot`,
:func:`dont_forget`,
:func:`language_preference`), and the timezone and spoken languages a clause states. Pure."""

from __future__ import annotations

import re

from ..lexicon import LANGUAGES, _alias_re
from .diet import diet_or_allergy_slot
from .model import MAX_FREE_TEXT, PARTS, Slot, bound_liking, clean_value, first_alias, strip_lead
from .typed import length_slot, quantity_slot, typed_slot

_PROHIBIT = re.compile(
    r"(?i)\b(?:never|don't|do not|dont|avoid|no more|stop|must not|mustn't|shouldn't|should not"
    r"|not allowed|refrain from)\b|^no\s+\w+"
    r"|不要|别|绝对不|不得|禁止|不准|不许|千万别|严禁|不能|勿|拒绝"
)


_LIKE_EN = re.compile(
    r"(?i)^i\s+(?:really\s+|absolutely\s+|totally\s+|kinda\s+|do\s+)?(?:like|love|enjoy|adore"
    r"|prefer|am into|'m into|am a (?:big |huge )?fan of|'m a (?:big |huge )?fan of)\s+(?P<o>.+)$"
)
_DISLIKE_EN = re.compile(
    r"(?i)^i\s+(?:really\s+)?(?:hate|dislike|can't stand|cannot stand|don't like|do not like"
    r"|am not a fan of|'m not a fan of|detest)\s+(?P<o>.+)$"
)
_LIKE_ZH = re.compile(
    r"^我?(?:很|特别|超|超级|真的|一直|比较|最)?(?:喜欢|爱|偏爱|偏好|热爱|迷上了?)(?P<o>.+)$"
)
_DISLIKE_ZH = re.compile(r"^我?(?:很|特别|超|真的|最)?(?:不喜欢|讨厌|受不了|反感|不爱)(?P<o>.+)$")


_REASON_TAIL = re.compile(
    r"(?i)(?<=\S)\s*[,，;；—–]\s*(?:(?:because|since|as|it's|it is|it looks|it feels|that's|they're"
    r"|they are|it makes)\b|我觉得|因为|感觉|看着|显得|不然|否则|太).*$"
)
"""The reason given after a rule's part ("never 加 emoji，我觉得不 professional", "no
exclamation marks, it looks unprofessional"): why the rule holds, not what it forbids (and
an opinion word in it is no hedge of the rule)."""


_DONT_FORGET = re.compile(
    r"(?i)^(?:(?:please|pls|plz|and|also|oh|btw)[,\s]+)*(?:don't|don’t|do not|dont|never)\s+"
    r"(?:ever\s+)?forget\s+to\s+(?P<act>[a-z-]+)\b(?P<rest>.*)$"
    r"|^(?:还有|另外|而且)?[，,\s]*(?:请)?(?:别|不要|千万别|可别)忘(?:了|记)?(?P<zact>\S+)$"
)
_ANSWER_ACTS_EN = frozenset(
    [
        "mention",
        "include",
        "add",
        "cite",
        "ask",
        "remind",
        "check",
        "double-check",
        "use",
        "write",
        "reply",
        "answer",
        "show",
        "give",
        "tell",
        "format",
        "label",
        "list",
        "explain",
        "attach",
        "link",
        "flag",
        "summarize",
        "summarise",
        "translate",
        "respond",
        "put",
        "keep",
        "sign",
        "copy",
        "cc",
        "convert",
        "quote",
        "credit",
        "warn",
        "suggest",
        "offer",
        "provide",
        "state",
        "specify",
        "highlight",
        "mark",
        "end",
        "start",
        "open",
        "close",
        "say",
        "number",
        "bold",
        "sort",
        "spell",
        "source",
        "date",
        "note",
        "save",
        "log",
        "update",
    ]
)
"""Verbs of what an answer does: "don't forget to <verb>…" with one of them is a rule."""
_ANSWER_ACTS_ZH = re.compile(
    r"^(?:提醒|加上?|附上?|标注|标明|注明|写上|写明|列出|问我|问一下|告诉我|跟我说|用|给出|给我|引用|检查"
    r"|翻译|总结|带上(?:来源|出处|链接)|说明|署名|抄送|附带|加粗|编号|注释)"
)


def dont_forget(clause: str) -> tuple[bool, str] | None:
    """A "don't forget to X" / "别忘了X" clause read for the assistant: ``(True, X)`` when X
    is something an answer does ("Don't forget to cite your sources", "别忘了提醒我吃药": an
    obligation, ``must``), ``(False, X)`` when it is the listener's own errand or life ("Don't
    forget to prepare emotionally for the interview", "别忘了带伞", "don't forget to have
    fun": advice between people, no rule); None for any other clause. Never a prohibition."""
    m = _DONT_FORGET.match(clause.strip())
    if m is None:
        return None
    if m.group("zact"):
        act = clean_value(m.group("zact"))
        return bool(_ANSWER_ACTS_ZH.match(act)), act
    return m.group("act").lower() in _ANSWER_ACTS_EN, clean_value(m.group("act") + m.group("rest"))


def constraint_slot(clause: str) -> Slot | None:
    """The rule a constraint clause states, as ``must`` / ``must_not`` on the assistant (an
    obligation about the answer language or length is that preference instead)."""
    forgotten = dont_forget(clause)
    if forgotten is not None:
        answer_act, act = forgotten
        return (
            Slot("assistant", "must", act[:200].lower(), multi_valued=True) if answer_act else None
        )
    body = clean_value(_REASON_TAIL.sub("", strip_lead(clause)))
    if len(body) < 2:
        return None
    health = diet_or_allergy_slot(clause)
    if health is not None:
        return health
    quantity = quantity_slot(clause)
    if quantity is not None:
        return quantity  # "keep the trip under €1,200": the budget, not the rule's words
    prohibits = bool(_PROHIBIT.search(clause))
    if prohibits and not re.search(r"\d", clause):
        # "别太啰嗦", "回答简短点，别整那么长": a prohibition of long answers is their length
        # (a limit in numbers, "never more than 100 words", stays a rule)
        length = length_slot(clause)
        if length is not None and length.object == "concise":
            return length
    typed = None if prohibits else typed_slot(clause)
    if typed is not None and typed.predicate in {"answer_language", "response_length"}:
        return typed
    if len(body) > MAX_FREE_TEXT:
        return None
    predicate = "must_not" if prohibits else "must"
    return Slot("assistant", predicate, body[:200].lower(), multi_valued=True)


_NOT_ANSWERS = re.compile(
    r"(?i)\b(?:speak|spoke|learn|learning|study|studying|native|fluent|class|course|lesson"
    r"|exam|movies?|films?|songs?|music|books?|food|bbq|barbecue|dramas?|shows?|restaurants?"
    r"|friends?|people)\b|会说|会讲|在学|学了|母语|课|考试|电影|歌|书|菜|料理|剧|餐厅|朋友"
)


def language_preference(clause: str) -> Slot | None:
    """``answer_language`` for a preference clause that names a language and nothing that
    makes it a language the user speaks or learns ("算了还是中文吧", "English is fine again"),
    else None. Only for clauses already read as a preference."""
    lang = first_alias(clause, LANGUAGES)
    if lang is None or _NOT_ANSWERS.search(clause):
        return None
    rest = clause[: lang[0]] + " " + clause[lang[0] :].split(None, 1)[-1]
    if re.search(r"[\u4e00-\u9fff]", clause):
        rest = "".join(ch for ch in clause if "\u4e00" <= ch <= "\u9fff")
        if len(rest) > 14:
            return None  # a long clause that names a language says more than the answers'
    elif len(re.findall(r"[A-Za-z']+", rest)) > 5:
        return None
    return Slot("user", "answer_language", lang[1])


def preference_slot(clause: str) -> Slot | None:
    """A typed preference, a language to answer in, a like / dislike, or the preference in
    the user's words."""
    body = strip_lead(clause)
    typed = typed_slot(body) or language_preference(body)
    if typed is not None:
        return typed
    for pattern, predicate in (
        (_DISLIKE_EN, "dislikes"),
        (_LIKE_EN, "likes"),
        (_DISLIKE_ZH, "dislikes"),
        (_LIKE_ZH, "likes"),
    ):
        m = pattern.match(body)
        if m:
            value = bound_liking(clean_value(m.group("o")))
            if value:
                return Slot("user", predicate, value.lower(), multi_valued=True)
    body = clean_value(body)
    if not 2 <= len(body) <= MAX_FREE_TEXT:
        return None
    return Slot("user", "prefers", body, multi_valued=True)


NOT_FACT_TOPICS = frozenset({"pet", "cuisine", "drink"})
"""Topic values that name a liking, not a fact ("coffee" in a fact clause is not a drink
preference); pets are found by :func:`trigger_slots` with their breed."""


TZ_EN = re.compile(
    r"(?<![\w+-])(?P<o>(?:UTC|GMT)\s?[+-]\s?\d{1,2}(?::?\d{2})?|[PMCE][SD]T|CET|CEST|EAT|WAT|JST|KST"
    r"|IST|BST|AEST|AEDT|AWST|ACST|ACDT|NZST|NZDT|SGT|HKT|[AH]ST|AKST|MSK|PKT|WIB|PHT|EET|EEST"
    r"|BRT|SAST|GMT|UTC"
    r"|(?i:(?:central|eastern|western)\s+european|indian|china|japan|korea|singapore"
    r"|australian\s+(?:eastern|central|western))\s+(?i:(?:standard|summer)\s+)?(?i:time)"
    r"|(?i:pacific|eastern|central|mountain)(?:\s+time)?|(?i:atlantic|alaska|hawaii|greenwich)\s+time)"
    r"(?:\s+(?:time\s*zone|timezone))?(?![\w+-])",
)
_TZ_CUE = re.compile(
    r"(?i)time\s*zone|\btime\b|\bi'?m\s+(?:on|in)\b|\bon\s+[A-Z]{3}\b|时区|时间|东.区|西.区"
)
_TZ_OFFSET = re.compile(r"(?:UTC|GMT)\s?[+-]\s?\d{1,2}(?::?\d{2})?")
"""An explicit offset ("UTC+8", "GMT-5"): a timezone without a cue word ("我这边是 UTC+8",
"based in Singapore, UTC+8")."""
_TZ_ZH = re.compile(
    r"(?P<o>东[一二三四五六七八九十]{1,2}区|西[一二三四五六七八九十]{1,2}区|零时区|中时区"
    r"|(?:北京|东京|日本|韩国|首尔|新加坡|香港|台北|悉尼|莫斯科|印度|英国|伦敦|巴黎|柏林|纽约|洛杉矶"
    r"|美东|美西|美中|美国?(?:东部|西部|中部|山地)|太平洋|大西洋|山地|夏威夷|阿拉斯加"
    r"|格林尼治|格林威治|(?:欧洲|欧)(?:中部|东部|西部)|中欧|东欧|西欧|澳洲?东部|澳大利亚东部)"
    r"(?:标准|夏令)?(?:时间|时区))"
)
"""A timezone said in Chinese: a zone by its number ("东八区"), or a city's, region's or
country's time ("北京时间", "太平洋时间", "欧洲中部时间", "美国东部时区")."""
_SPEAK = re.compile(
    r"(?i)(?:\bi\s+|我\s*)(?:can\s+)?speak\s+(?P<en>.+)$|我(?:会说|会讲|会)(?P<zh>[^，,。]+(?:[，,]\s*(?:也|还|另外还?)(?:会|能)[^，,。]*)*)"
)


def split_parts(clause: str) -> list[str]:
    """``clause`` cut at commas, semicolons and dashes (and at spaces between Chinese
    words), empty parts dropped."""
    return [p for p in PARTS.split(clause) if p and len(p.strip()) >= 2]


def said_timezone(text: str) -> str | None:
    """The timezone named in ``text`` as written ("UTC+8", "PST", "东八区", "Eastern time"),
    or None."""
    m = _TZ_ZH.search(text) or TZ_EN.search(text)
    if m is None:
        return None
    return re.sub(r"(?i)\s+(?:time\s*zone|timezone)$", "", m.group("o"))


_TZ_PART_SPLIT = re.compile(r"[,，;；。.!！、|/()（）]|\s[—–-]\s|[—–]")
_TZ_PART = re.compile(
    r"(?i)^\s*(?:(?:so|i\.?e\.?|aka|which\s+is|that's|that\s+is|thus|hence|all|mostly|usually"
    r"|and|also|on|时区是?|时区)\s*[,:：]?\s*)*"
    r"(?-i:(?P<o>(?:UTC|GMT)\s?[+-]\s?\d{1,2}(?::?\d{2})?|[A-Z]{2,5}))"
    r"\s*(?:here|over\s+here|for\s+me|time(?:\s*zone)?|timezone|zone|时区|时间|这边)?\s*$"
)
"""A part of a clause that is only a timezone token ("SF-based, PST, mostly remote", "I'm in
Singapore, so UTC+8", "人在多伦多，EST"): said next to the user's place, as a fragment, it is
the user's timezone without a cue word."""


def bare_timezone(clause: str) -> str | None:
    """The timezone a part of ``clause`` is made of alone (:data:`_TZ_PART`), as said; None
    when no part is a bare timezone token."""
    for part in _TZ_PART_SPLIT.split(clause):
        m = _TZ_PART.match(part) if part and part.strip() else None
        if m is not None and TZ_EN.fullmatch(m.group("o")):
            return m.group("o")
    return None


def timezone_slot(clause: str) -> Slot | None:
    """The user's timezone named in ``clause``, as said ("PST", "UTC+2", "Eastern time",
    "东八区", "太平洋时间"), or a part that is only a timezone token (:func:`bare_timezone`);
    the resolver keeps its ``UTC±h`` form beside it."""
    m = _TZ_ZH.search(clause)
    if m:
        return Slot("user", "timezone", m.group("o"))
    bare = bare_timezone(clause)
    if bare is not None:
        return Slot("user", "timezone", bare)
    m = TZ_EN.search(clause)
    if m and (_TZ_CUE.search(clause) or _TZ_OFFSET.fullmatch(m.group("o"))):
        value = re.sub(r"(?i)\s+(?:time\s*zone|timezone)$", "", m.group("o"))
        if value.isalpha() and value.islower() and "time" not in m.group(0).lower():
            return None  # "pacific" alone, lower-case: an ocean more likely than a zone
        return Slot("user", "timezone", value)
    return None


_SPEAK_MORE = re.compile(
    r"(?i)\b(?:fluent|conversational|proficient|bilingual)\s+in\s+"
    r"(?P<a>[\w -]+?)(?=[,.;!?—–]|\s+(?:but|so|and\s+i)\b|$)"
    r"|\bget\s+by\s+in\s+(?P<b>[\w -]+?)(?=[,.;!?—–]|\s+(?:but|so|and\s+i)\b|$)"
    r"|(?P<c>[A-Z][a-z]+(?:\s+(?:and|&)\s+[A-Z][a-z]+)?)\s+(?:is|are)\s+my\s+(?:first|native|mother|home)"
    r"\s+(?:language|tongue)s?\b"
    r"|\bmy\s+(?:first|native|mother)\s+(?:language|tongue)\s+is\s+(?P<d>[A-Z][a-z]+)"
    r"|\bnative\s+(?P<e>[A-Z][a-z]+)\s+speaker\b"
    r"|母语是(?P<f>[^，,。]+)|我(?:能说|能讲|可以说|可以讲)(?P<g>[^，,。]+)"
    r"|(?P<h>[\u4e00-\u9fff]{1,4}?[语话文])(?:也|还|都)?(?:会一点|会一些|会说|会讲|能说|能讲"
    r"|说得|讲得|(?:很|挺|非常|比较)?流利)"
    r"|\bmy\s+(?P<i>[A-Z][a-z]+)\s+is\s+(?:(?:pretty|quite|very|a\s+bit|still|only|fairly)\s+)?"
    r"(?i:basic|decent|rusty|good|fluent|ok|okay|conversational|passable|solid|native"
    r"|intermediate|limited|so-so)\b"
)
"""More ways of saying a language is spoken ("fluent in French", "get by in German", "Polish
is my first language", "母语是粤语", "我能说流利的英语"), or by the level it is spoken at
("我日语会一点", "英语也很流利", "my Spanish is basic")."""


_LANG_WORD = r"(?:[A-Z][a-z]+|[\u4e00-\u9fff]{1,3}?[语话文])"
_SPOKEN_FIRST = re.compile(
    r"(?:^|(?<=[,.;:!?，。；：！？—–])\s*|\s-\s)(?P<a>[A-Z][a-z]+)\s+I\s+(?:(?:already|also|still"
    r"|actually|do|can|even)\s+)*(?:speak|picked\s+up|learned|learnt|grew\s+up\s+(?:speaking|with))\b"
    r"|(?P<b>" + _LANG_WORD + r")\s*我\s*[\u4e00-\u9fff]{0,4}?"
    r"(?:会说|会讲|能说|能讲|说得|讲得|能流利|可以流利|能用|会(?=[了，,。！!]|$))"
    r"|(?i:\bnative(?:\s+language)?|mother\s+tongue|first\s+language)\s*(?:是|is)\s*(?P<c>"
    + _LANG_WORD
    + r")|(?P<d>"
    + _LANG_WORD
    + r")\s*是(?:后来|小时候|从小|[\u4e00-\u9fff]{1,4}?时|在[^，,。]{1,6}?)?学的"
    r"|(?i:\bcomfortable\s+(?:presenting|speaking|talking|working|chatting)\s+in)\s+(?P<e>[A-Z][a-z]+)"
)
"""A language named before the words that say the user speaks it ("Korean I already speak",
"French I picked up in Lyon", "粤语我从小就会说", "我 native 是 Mandarin"), or as the one the
user is at ease speaking ("more comfortable presenting in Spanish")."""
_SPOKEN_LEVEL = re.compile(
    r"(?P<a>" + _LANG_WORD + r")\s*(?:(?:工作|日常|交流|沟通|基本|读写)(?:上)?)?\s*(?:也|都|还)?\s*"
    r"(?:挺|很|比较|特别)?\s*"
    r"(?:够用|(?i:ok|okay)\b|没问题|还行|可以|流利|挺好|不错|凑合|一般般?|能看懂|看得懂|听得懂|会一点"
    r"|懂一点|略懂|马马虎虎|是(?:我的)?母语)"
    r"|\b(?i:decent|fluent|good|solid|conversational|working|business|passable|native|basic"
    r"|rusty|broken|intermediate|beginner|some|a bit of|a little)\s+(?P<b>[A-Z][a-z]+)\b"
    r"(?!\s+(?i:food|cuisine|class(?:es)?|teachers?|lessons?|people|friends?|movies?|films?|music"
    r"|books?|tea|breakfast|wine|restaurants?))"
)
"""A language said with how well it is spoken ("English 工作够用", "Mandarin 也 OK", "decent
English"): spoken, when the clause speaks of the languages the user speaks or learns
(:data:`_SPEAKING`), so "中文也可以" alone stays an answer language."""
_SPEAKING = re.compile(
    r"(?i)\b(?:speak\w*|spoke|native|mother\s+tongue|first\s+language|learning|fluent|bilingual)\b"
    r"|母语|会说|会讲|在学|还在学|说得|讲得|流利|一般般|看懂|懂一点|会一点|略懂|(?i:basic|rusty)"
)


def speaks_slots(clause: str) -> list[Slot]:
    """Each language the user says they speak, as they name it ("我会粤语和普通话" → 粤语,
    普通话; "I speak Portuguese, and some French" → Portuguese, French; "I can get by in
    German and I'm fluent in French" → German, French; "Korean I already speak"; "我 native 是
    Mandarin，English 工作够用" → Mandarin, English)."""
    levels = [*_SPOKEN_LEVEL.finditer(clause)] if _SPEAKING.search(clause) else []
    matches = [
        *_SPEAK.finditer(clause),
        *_SPEAK_MORE.finditer(clause),
        *_SPOKEN_FIRST.finditer(clause),
        *levels,
    ]
    matches.sort(key=lambda m: m.start())
    spans = [next((g for g in m.groups() if g), "") for m in matches]
    found = [v for span in spans for v in _languages_in(span)]
    return [Slot("user", "speaks", v, multi_valued=True) for v in dict.fromkeys(found)]


def _languages_in(span: str) -> list[str]:
    """The languages named in ``span``, in order, as written."""
    found: list[tuple[int, str]] = []
    for aliases in LANGUAGES.values():
        for alias in aliases:
            for hit in _alias_re(alias).finditer(span):
                if not any(s <= hit.start() < s + len(v) for s, v in found):
                    found.append((hit.start(), span[hit.start() : hit.end()]))
    found.sort()
    kept = [
        (at, v)
        for at, v in found
        if not any(o != at and at < o + len(w) and o <= at for o, w in found)
    ]
    return [v for _, v in kept]


__all__ = [
    "NOT_FACT_TOPICS",
    "TZ_EN",
    "bare_timezone",
    "constraint_slot",
    "dont_forget",
    "language_preference",
    "preference_slot",
    "said_timezone",
    "speaks_slots",
    "split_parts",
    "timezone_slot",
]
