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

from .lexicon import SPECIFIC_ALIASES, TOPICS, _alias_re, is_place

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


_UNNAMED_ORG = re.compile(
    r"^(?:一家|一个|某个?|这家|那家)|^(?:公司|企业|单位|工厂|外企|国企|央企|创业公司|初创公司|大厂)$"
)
"""An organisation only described ("一家外企", "外企"), never a name ("招商银行")."""


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


_DISTRICT = re.compile(r"(?:新区|区|县|园区|开发区|镇|街道)$")


_REGIONS_ZH = (
    "山东|湖南|湖北|广东|广西|河南|河北|山西|陕西|江苏|浙江|安徽|福建|江西|四川|贵州|云南|辽宁|吉林|黑龙江"
    "|甘肃|青海|海南|台湾|内蒙古|新疆|西藏|宁夏|东北|美国|英国|日本|德国|法国|加拿大|澳大利亚|澳洲|韩国"
    "|意大利|西班牙|荷兰|瑞士|瑞典|新西兰|马来西亚|泰国|越南|印度"
)
REGION_PREFIX_ZH = re.compile(rf"^(?:{_REGIONS_ZH})(?:省|州)?(?=[\u4e00-\u9fff]{{2}})")
"""A province, region or country said before its city ("山东青岛", "美国西雅图")."""


def zh_city(place: str) -> str:
    """The city of a Chinese place said with its district ("上海浦东新区" → 上海, "深圳南山区"
    → 深圳, "Shenzhen 南山区" → Shenzhen) or its province or country first ("湖南长沙" → 长沙,
    "美国西雅图" → 西雅图): the guide's location is the city; a district said alone ("朝阳区")
    or a place with no district stays."""
    place = REGION_PREFIX_ZH.sub("", place.strip()) or place.strip()  # "湖南长沙" → 长沙
    if not _DISTRICT.search(place):
        return place
    head = re.match(r"([A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)?)\s*[\u4e00-\u9fff]", place)
    if head is not None:
        return head.group(1)
    words = [w for w in zh_words(place) if w[0].strip()]
    if len(words) >= 2 and _is_place_word(*words[0]) and len(words[0][0]) >= 2:
        return words[0][0]
    for size in (2, 3):
        prefix = place[:size]
        if len(place) - size >= 2:
            cut = zh_words(prefix)
            if len(cut) == 1 and _is_place_word(*cut[0]) and zh_words(place[size:])[0][1] == "ns":
                return prefix
    return place


def zh_workplace(span: str) -> tuple[str, str] | None:
    """Whether the span before 工作/上班 names where the user works (``("location",
    place)``: a city, or a place followed by an unnamed organisation) or the organisation
    (``("employer", name)``); None when nothing is left once time words are removed."""
    words = strip_time(zh_words(re.sub(r"^在", "", span.strip())))
    if not words:
        return None
    text = "".join(w for w, _ in words)
    place = zh_place(text)
    if place == text:
        return ("location", place)
    rest = text[len(place) :] if place else text
    if place and _GENERIC_ORG.match(rest.removeprefix("的")):
        return ("location", place)
    if not place and _UNNAMED_ORG.match(rest):
        return None  # "一家外企": an organisation described, none named
    if place and rest.startswith("的") and len(rest) > 2:
        words = strip_time(zh_words(rest[1:]))  # "杭州的网易": the organisation after its city
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


CANONICAL_TOPICS = frozenset({"ui_theme", "indentation", "response_length", "units"})
"""Topics whose value is the lexicon's canonical word whatever the user said (``dark``,
``tabs``, ``concise``), as the labelling guide fixes them."""
AS_SAID_TOPICS = frozenset({"cuisine", "pet", "drink"})
"""Topics whose value is always the words the user used ("川菜", "柯基", "korean bbq", "咖啡"):
the guide's rule for everything it gives no canonical word for (the lexicon's form, "coffee",
is kept beside the value by the resolver)."""
MODIFIED_TOPICS = frozenset({"drink", "cuisine", "pet"})
"""Topics whose value may start with describing words ("green tea", "冰美式", "oat latte")."""
VERSIONED_TOPICS = frozenset(
    {"programming_language", "database", "test_framework", "operating_system", "editor"}
)
"""Tools: a version right after the name is part of the value ("MySQL 8.0", "Ubuntu 22.04")."""

_VERSION = re.compile(r"^[\s-]*v?(\d+(?:\.\d+){0,2}[a-z]?)(?!\w|\.\w)", re.IGNORECASE)
_EN_WORD_BEFORE = re.compile(r"(?<![\w'’])([A-Za-z][A-Za-z-]*)\s+$")  # "it's" is no modifier
_MODIFIER_STOPWORDS = (
    "a an the my our your his her their its i we you it is am are was were be been of for to "
    "in on at with and or but like likes love loves prefer prefers enjoy drink drinks "
    "drinking have has had get got use uses using used run runs running write writing code "
    "coding mostly really usually always just only more most much very honestly some any no "
    "not than over instead fan big huge favourite favorite fave daily good great nice plain "
    "regular cup cups mug glass pot then so also too either all every each that this these "
    "those off from into now still do does did hate dislike make keep rather would via by "
    "about after before around order ordering drinker eat eating want wants need needs usual "
    "go-to cook cooking "
)
_NOT_A_MODIFIER = frozenset(_MODIFIER_STOPWORDS.split())
"""Words that never describe a drink or dish ("I drink tea", "a cup of tea", "big fan of")."""
_ZH_MODIFIER_FLAGS = ("n", "a", "b", "nz", "ng", "vn")
_ZH_TAKING_VERBS = ("喝", "吃", "爱", "喜欢", "点", "要")
"""Verbs jieba sometimes tags as nouns ("爱喝" as a name): never part of a drink's name."""


def _left_modifiers(text: str, start: int) -> int:
    """Where the describing words before ``text[start:]`` begin ("an oat milk flat white" →
    at "oat"; "冰美式" → at "冰"): up to three English words that are not function words or
    verbs, or up to two adjacent Chinese nouns/adjectives as jieba cuts the text; a value
    never starts inside a Chinese word ("江浙菜" stays whole)."""
    if start and "\u4e00" <= text[start - 1] <= "\u9fff":
        offsets, pos = [], 0
        for word, flag in zh_words(text):
            offsets.append((pos, pos + len(word), word, flag))
            pos += len(word)
        at, taken = start, 0
        for begin, end, word, _flag in offsets:  # "江浙菜": a value never starts mid-word
            head = word[: start - begin]
            if (
                begin < start < end
                and head.isalpha()
                and not any(verb in head for verb in (*_ZH_TAKING_VERBS, "还是", "是", "都", "也"))
            ):
                at = begin
        for begin, end, word, flag in reversed(offsets):
            if end <= start and end == at and taken < 2:
                if (
                    not flag.startswith(_ZH_MODIFIER_FLAGS)
                    or _is_time(word, flag)
                    or any(verb in word for verb in _ZH_TAKING_VERBS)
                    or word
                    in {
                        "我",
                        "的",
                    }
                ):
                    break
                at, taken = begin, taken + 1
        return at
    at = start
    for _ in range(3):
        m = _EN_WORD_BEFORE.search(text[:at])
        if m is None or m.group(1).lower() in _NOT_A_MODIFIER:
            break
        at = m.start(1)
    return at


def _right_heads(text: str, end: int, predicate: str) -> int:
    """Where a drink or dish named at ``text[:end]`` ends when another name of the same
    topic follows it as its head ("matcha latte", "oolong milk tea", "抹茶拿铁")."""
    names = sorted(
        (a for aliases in TOPICS.get(predicate, {}).values() for a in aliases),
        key=len,
        reverse=True,
    )
    for _ in range(2):
        rest = text[end:]
        gap = len(rest) - len(rest.lstrip(" ")) if rest[:1] == " " else 0
        if gap > 1:
            break
        for alias in names:
            m = _alias_re(alias).match(rest, gap)
            if m is not None and (gap or not alias.isascii()):
                end += m.end()
                break
        else:
            break
    return end


JUDGED = re.compile(
    r"(?i)\s*(?:(?:is|are|was|were|got|gets|has\s+gotten)\s+(?:way\s+|so\s+|just\s+|really\s+)?"
    r"(?:too\s+\w+|awful|terrible|horrible|the worst|overrated|a pain|painful)|sucks"
    r"|\s*(?:真的|实在|也)?太(?:啰嗦|啰唆|慢|贵|甜|咸|腻|难|乱|麻烦|复杂|重|苦|涩|累|烦|卡|丑|吵"
    r"|油|淡|坑|老|旧|笨)"
    r"|难(?:喝|吃|用|读|懂|学)|受不了|不好(?:用|喝|吃))"
)
"""A judgement right after a value that rejects it ("Java is way too verbose", "拿铁太腻",
"Perl 太难读了"): the value is the one the user turns from, not theirs."""


_NAME_TAIL = r"(?i)(?:\s*(?:语言|数据库|系统|编辑器|programming\s+language|language|lang))+$"
"""Words said after a tool's name that are no part of it ("Go语言", "Python language")."""


def _same_name(said: str, canonical: str) -> bool:
    """True when ``said`` spells ``canonical`` (case, spaces, dots and dashes aside: "vscode" is
    "VS Code", "postgresql" is "PostgreSQL"); a tool called by another name ("Mac" for macOS,
    "Postgres", "k8s") keeps the user's name (the canonical form is kept beside it)."""

    def key(text: str) -> str:
        text = re.sub(_NAME_TAIL, "", text)
        return re.sub(r"[\s.\-_]+", "", text).casefold()

    return key(said) == key(canonical)


def topic_surface(text: str, predicate: str, canonical: str) -> tuple[str, str]:
    """``(object, canonical form)`` for a topic value named in ``text``: the canonical word for
    :data:`CANONICAL_TOPICS`; otherwise the words as said when they are more specific than the
    canonical — a describing word ("green tea", "冰美式"), a variety (``美式``, ``latte``, see
    :data:`~langgraph_memory.write.lexicon.SPECIFIC_ALIASES`) or a cuisine/pet named the
    user's way — else the canonical spelling ("Postgres" → ``PostgreSQL``, "咖啡" →
    ``coffee``). A tool's version that follows its name is kept ("MySQL 8.0", "Postgres 14" →
    ``PostgreSQL 14``). The canonical form (with that version) is returned too, for matching
    the value across spellings. The most specific mention wins ("咖啡我最爱冰美式" → 冰美式)."""
    aliases = TOPICS.get(predicate, {}).get(canonical, ())
    best: tuple[int, int, str, str] | None = None
    for alias in aliases:
        for m in _alias_re(alias).finditer(text):
            if JUDGED.match(text, m.end()):
                continue  # "只喝美式，拿铁太腻": the mention turned from is not the value
            start, end = m.start(), m.end()
            version = ""
            if predicate in VERSIONED_TOPICS:
                v = _VERSION.match(text[end:])
                if v:
                    version = v.group(1)
            if predicate in MODIFIED_TOPICS:
                start = _left_modifiers(text, start)
                end = _right_heads(text, end, predicate)
            said = text[start:end].strip()
            if predicate == "cuisine":  # "Sichuan food" → "Sichuan"; "川菜" stays
                said = re.sub(r"(?i)\s+(?:food|cuisine|dishes)$", "", said) or said
            plain = said.casefold() == alias and alias not in SPECIFIC_ALIASES
            if predicate in CANONICAL_TOPICS or (
                plain
                and predicate not in AS_SAID_TOPICS
                and (predicate not in VERSIONED_TOPICS or _same_name(said, canonical))
            ):
                value = canonical
            else:
                value = said
            value = f"{value} {version}" if version else value
            score = (0 if plain else 1) * 1000 + len(said)
            if best is None or score > best[0]:
                best = (score, -start, value, f"{canonical} {version}" if version else canonical)
    if best is None:
        return canonical, canonical
    return best[2], best[3]


__all__ = [
    "JUDGED",
    "REGION_PREFIX_ZH",
    "strip_time",
    "topic_surface",
    "zh_city",
    "zh_place",
    "zh_words",
    "zh_workplace",
]
