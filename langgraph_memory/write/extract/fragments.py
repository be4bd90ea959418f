"""Regex fragments the rule tables interpolate: language, job, attribute, weekday, limit
and relation alternations. Pure data."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..lexicon import ATTRIBUTES, JOB_HEADS_EN, LANGUAGES, RELATIONS, ZH_ATTRIBUTE_NAMES


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first (so "简体中文" wins over "中文")."""
    return "(?:" + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)) + ")"


LANG_WORDS = _alternation(a for aliases in LANGUAGES.values() for a in aliases if a.isascii())
ZH_LANGS = _alternation(a for aliases in LANGUAGES.values() for a in aliases if not a.isascii())
OCC_EN = (
    rf"(?:{JOB_HEADS_EN})"
    r"(?:\s(?:practitioner|assistant|technician|specialist|lead|manager|engineer))?"
)
"""A job's head noun, and a second one a compound job ends with ("nurse practitioner")."""
OCC_ZH = (
    r"(?:工程师|程序员|老师|教师|医生|护士|设计师|学生|研究生|博士生|大学生|经理|律师|研究员|分析师|"
    r"会计|作家|架构师|教授|厨师|自由职业者|实习生|总监|主管|顾问|运维|编辑|记者|销售|开发)"
)

ZH_SINCE = r"最近|今年|(?:\d{4}年|去年|前年|上个?月)(?:起|开始|以来)"
"""A time adverbial that keeps a state current ("我2020年起住在苏州")."""
ZH_TIME = (
    rf"{ZH_SINCE}|上个?月|上周|上星期|上个?礼拜|去年|前年|刚刚?|前几天|前段时间|昨天|前天"
    r"|\d{4}年|[一二三四五六七八九十两几\d]+(?:个月|年|周|天)前"
)
"""A time adverbial before a move ("我上个月搬到了杭州": the move is past, the place is
current). Before 住/在…工作 only :data:`ZH_SINCE` is read: "我去年在深圳工作" is a former
job."""
NOT_A_NAME = (
    r"at|on|back|later|tomorrow|tonight|today|anytime|any time|when|whenever|if|after|before"
    r"|by|via|in|about|for|to|sometime|again|now|soon|asap|maybe|please|up|once|around"
    r"|between|from|or|and|with|the|a|an|every|this|next|here|there|first|directly"
)
"""Words after "call me" that start a time or a number, never a name ("call me at …")."""
PROJECT_EN = (
    r"(?:project|team|app|application|service|repo|repository|codebase|product|company|squad"
    r"|group|org|department|dev team|engineering team|stack)"
)
ATTR_EN = _alternation(w for words in ATTRIBUTES.values() for w in words if w.isascii())
ATTR_ZH = _alternation(w for words in ATTRIBUTES.values() for w in words if not w.isascii())
_WEEKDAY_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
DAY_EN = (
    rf"(?:{_WEEKDAY_EN}|weekdays|weekends?)(?:\s+(?:mornings?|afternoons?|evenings?|nights?))?"
    rf"(?:\s*(?:,|and|&|or)\s*{_WEEKDAY_EN})*"
)
LIMIT_UNDER = ("under", "below", "less than", "fewer than", "shorter than")
LIMIT_CMP = (
    r"(?:under|below|less than|fewer than|shorter than|within|at most|no more than"
    r"|no longer than|not more than|max(?:imum)?(?: of)?|up to|to)"
)
LIMIT_UNIT = (
    r"(?:words?|sentences?|lines?|characters?|chars|paragraphs?|bullet points?|bullets?|tokens?)"
)
RELATION_EN = _alternation(k for k in RELATIONS if k.isascii())
RELATION_ZH = _alternation(k for k in RELATIONS if not k.isascii())
ATTRIBUTE_ZH = _alternation(ZH_ATTRIBUTE_NAMES)
ROUTINES: dict[str, str] = {
    "deploy": "deploy",
    "deployment": "deploy",
    "release": "release",
    "ship": "release",
    "meet": "meeting",
    "meeting": "meeting",
    "standup": "standup",
    "retro": "retro",
    "retrospective": "retro",
    "planning": "planning",
    "demo": "demo",
    "部署": "deploy",
    "上线": "deploy",
    "发布": "release",
    "发版": "release",
    "开会": "meeting",
    "开例会": "meeting",
    "开周会": "meeting",
    "站会": "standup",
    "开站会": "standup",
    "复盘": "retro",
}
"""A team routine's verb or event → the first half of its ``<routine>_day`` predicate."""


__all__ = [
    "ATTRIBUTE_ZH",
    "ATTR_EN",
    "ATTR_ZH",
    "DAY_EN",
    "LANG_WORDS",
    "LIMIT_CMP",
    "LIMIT_UNDER",
    "LIMIT_UNIT",
    "NOT_A_NAME",
    "OCC_EN",
    "OCC_ZH",
    "PROJECT_EN",
    "RELATION_EN",
    "RELATION_ZH",
    "ROUTINES",
    "ZH_LANGS",
    "ZH_SINCE",
    "ZH_TIME",
]
