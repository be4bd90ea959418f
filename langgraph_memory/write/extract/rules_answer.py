"""Rule table (first of three, in order): project-scope facts, the answer language and the
response length."""

from __future__ import annotations

import re

from ..lexicon import topic_of
from .builders import (
    answer_lang,
    attribute_hit,
    limit_hit,
    project_hit,
    region_hit,
    routine_hit,
    switch_hit,
)
from .fragments import (
    ATTR_EN,
    ATTR_ZH,
    DAY_EN,
    LANG_WORDS,
    LIMIT_CMP,
    LIMIT_UNIT,
    PROJECT_EN,
    ZH_LANGS,
)
from .values import Builder, Hit, Rule, clean, rule_table

RULES: list[Rule] = []
"""This table's rules in order (see :func:`~.values.rule_table`)."""
_rule = rule_table(RULES)


# --- project-scope facts ------------------------------------------------------------
_rule(
    r"^(?:in\s+)?(?:this|our|the)\s+(?:project|repo|repository|codebase|app|service|team)(?:'s)?\s+"
    r"(?:uses|is using|is written in|is built (?:with|on)|runs (?:on|in)|targets|depends on"
    r"|requires|deploys to|stores data in|is hosted (?:in|on)|is deployed (?:in|to|on)"
    r"|lives in)\s+(?P<o>.+)$"
)(lambda m, e: project_hit(m))
_rule(
    r"^(?:in|for) (?:this|our) (?:project|repo|codebase),?\s*we (?:use|are using|write"
    r"|deploy (?:to|on))\s+(?P<o>.+)$"
)(lambda m, e: project_hit(m))
_rule(
    r"^(?:在)?(?:这个|我们的?|本|咱们的?)(?:项目|仓库|代码库|团队|服务|系统)(?:里|中)?"
    r"(?:的(?P<attr>[\u4e00-\u9fffA-Za-z]{1,8}?))?(?:都|统一|现在|目前)?"
    r"(?:用的是|使用的是|采用的是|写的是|用|使用|采用|基于|依赖|部署在|运行在|跑在)(?P<o>.+)$"
)(lambda m, e: project_hit(m))
_rule(
    rf"^(?:our|the|this)\s+(?:(?P<who>{PROJECT_EN})(?:'s)?\s+)?(?P<attr>{ATTR_EN})\s+"
    r"(?:is now|is still|is|has moved to|moved to|switched to|runs on|is on)\s+(?P<o>.+)$"
)(lambda m, e: attribute_hit(m))
_rule(
    rf"^(?:we|our\s+(?P<who>{PROJECT_EN}))(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+"
    r"|now\s+|already\s+)?(?P<verb>switched|moved|migrated|changed|upgraded|relocated)\s+"
    rf"(?:(?:our|the)\s+(?P<attr>{ATTR_EN})\s+)?(?:over\s+)?(?:from\s+(?P<x>.+?)\s+)?to\s+(?P<o>.+)$"
)(lambda m, e: switch_hit(m))
_rule(
    r"^(?:(?:我们|咱们)的?)?(?:(?:这个|本)?(?P<who>项目|仓库|代码库|团队|服务|系统)的?)?(?:已经|现在|早就)?"
    rf"(?:把)?(?P<attr>{ATTR_ZH})(?:已经|现在|早就|刚刚?|都|也)?(?:从(?P<x>[^，,]+?))?"
    r"(?:换成了?|改成了?|改用了?|换到了?|迁移到了?|迁到了?|切换到了?|切到了?|升级到了?|升级成了?|变成了?"
    r"|改为|换为)(?P<o>.+)$",
    0,
)(lambda m, e: switch_hit(m))
_rule(
    rf"^(?:we|our\s+(?P<who>{PROJECT_EN})|our\s+(?:servers?|infra(?:structure)?|stack|workloads?"
    r"|clusters?))(?:'re|\s+are|\s+is)?\s+(?:(?:all|now|currently|mostly|still)\s+)*(?:running|run|runs"
    r"|hosted|host|deployed|deploy|deploys|living|live|lives|located|based)?\s*"
    r"(?:in|on|to|out of)\s+"
    r"(?P<o>.+)$"
)(lambda m, e: region_hit(m))
_rule(
    rf"^(?:(?:our|the|my)\s+(?P<who>{PROJECT_EN})|we)\s+(?:(?:usually|always|only|typically"
    r"|normally|generally)\s+)?(?:(?P<verb>deploy|release|ship|meet)(?:s|es)?|(?:have|has|hold|holds"
    r"|do|does)\s+(?:our\s+|the\s+|a\s+)?(?P<event>stand-?ups?|retros?|retrospectives?|planning"
    r"|demos?|meetings?|releases?|deploy(?:ment)?s?))\s+(?:to\s+prod(?:uction)?\s+)?(?:on|every)\s+"
    rf"(?P<o>{DAY_EN})\b"
)(lambda m, e: routine_hit(m))
_rule(
    r"^(?:我们|咱们)(?P<who>团队|项目|项目组|组|公司|部门)?(?:一般|通常|都|只|固定)?(?:在)?(?:每个?)?"
    r"(?P<o>(?:周|星期|礼拜)[一二三四五六日天](?:上午|下午|晚上)?|周末|工作日)(?:都|统一|固定)?"
    r"(?P<verb>部署|发布|上线|发版|开例会|开周会|开会|开站会|站会|复盘)",
    0,
)(lambda m, e: routine_hit(m))
# a deadline stated is a fact about the project (the guide's kind), not a rule for answers
_rule(r"^(?:the\s+)?(?:project\s+)?deadline is (?P<o>.+)$")(
    lambda m, e: Hit(
        "project", "deadline", clean(m.group("o")), "stable_fact", scope_level="project"
    )
)
_rule(r"^(?:项目的?)?(?:截止日期|截止时间|deadline)(?:是|为|定在)(?P<o>.+)$")(
    lambda m, e: Hit(
        "project", "deadline", clean(m.group("o")), "stable_fact", scope_level="project"
    )
)

# --- answer language -------------------------------------------------------------------
_rule(
    rf"\b(?:answer|reply|respond|write|talk|speak|communicate|chat)(?:\s+(?:to"
    rf"|with)\s+me)?(?:\s+\w+){{0,2}}?\s+in\s+(?P<o>{LANG_WORDS})\b"
)(lambda m, e: answer_lang(m, e))
_rule(
    rf"\buse\s+(?P<o>{LANG_WORDS})\s+(?:in|for|when)\s+(?:your\s+)?(?:answers|replies|responses"
    rf"|answering|replying)"
)(lambda m, e: answer_lang(m, e))
_rule(
    rf"用(?P<o>{ZH_LANGS})(?:来)?(?:回答|回复|交流|沟通|写|说|答复|和我|跟我|与我|给我|对话|聊)", 0
)(lambda m, e: answer_lang(m, e))
_rule(
    rf"(?:回答|回复|说话|交流|答复)(?:我|你)?(?:都|请|要|一律|统一)?(?:用|使用|说)(?P<o>{ZH_LANGS})",
    0,
)(lambda m, e: answer_lang(m, e))
_rule(rf"^(?:请|麻烦)?说(?P<o>{ZH_LANGS})", 0)(lambda m, e: answer_lang(m, e))

_NAMES_ANSWERS = re.compile(
    r"(?i)\b(?:answers?|repl(?:y|ies)|responses?|explanations?|explain\w*)\b|回答|回复|答复|解释|讲"
)
"""Words that name the answers: a length said of them is asked of the assistant (explicit),
not a remark on one answer ("that was too long")."""


def _length(value: str, *, asked: bool = False) -> Builder:
    """A builder of the ``response_length`` preference ``value``, explicit when the clause
    names the answers ("回复短一点呗", "answers 短一点 ok?") or the rule's words are a request
    (``asked``: "keep it to three sentences")."""

    def build(m: re.Match[str], e: bool) -> Hit:
        explicit = asked or e or bool(_NAMES_ANSWERS.search(m.string))
        return Hit("user", "response_length", value, "preference", explicit=explicit)

    return build


# --- response length -----------------------------------------------------------------------
# A numeric limit ("under 100 words") is a rule the assistant must keep, stored as an
# assistant ``must`` constraint ("answers under 100 words"), not as the vaguer concise
# preference.
_rule(
    r"\b(?:keep|make|limit|cap)\s+(?:your\s+|the\s+|all\s+|my\s+|each\s+|every\s+)?(?:answers?"
    r"|responses?|replies|reply|messages?|it|them)\s+(?:to\s+(?=at most|no more|under|below|within"
    rf"|less|fewer|max))?(?P<cmp>{LIMIT_CMP})\s+(?:about\s+|around\s+|roughly\s+)?(?P<n>\d+)\s+"
    rf"(?P<unit>{LIMIT_UNIT})\b"
)(lambda m, e: limit_hit(m))
_rule(
    r"\b(?:answers?|responses?|replies)\s+(?:should|must|need to|have to)\s+(?:be\s+|stay\s+)?"
    rf"(?:kept\s+)?(?P<cmp>{LIMIT_CMP})\s+(?P<n>\d+)\s+(?P<unit>{LIMIT_UNIT})\b"
)(lambda m, e: limit_hit(m))
_rule(
    rf"^(?:please\s+)?(?P<cmp>no more than|at most|max(?:imum)?|under)\s+(?P<n>\d+)\s+"
    rf"(?P<unit>{LIMIT_UNIT})\s+(?:per|in each|in every|for each|in an?)\s+"
    r"(?:answer|reply|response)"
)(lambda m, e: limit_hit(m))
_rule(
    r"(?:回答|回复|答案)(?:都|请|尽量)?(?:不要|不能|别|不得|不可以)?(?:超过|多于)(?P<n>\d+)个?"
    r"(?P<unit>字|词|句话|句|行|段)",
    0,
)(lambda m, e: limit_hit(m))
_rule(
    r"(?:回答|回复|答案)(?:都|请|尽量)?(?:控制在|限制在|保持在|少于)(?P<n>\d+)个?(?P<unit>字|词|句话|句|行|段)",
    0,
)(lambda m, e: limit_hit(m))
_rule(
    r"\b(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers|responses|replies|it)\s+(?P<o>short|shorter"
    r"|brief|concise|detailed|longer|thorough)"
)(
    lambda m, e: Hit(
        "user",
        "response_length",
        "concise"
        if m.group("o").lower() in {"short", "shorter", "brief", "concise"}
        else "detailed",
        "preference",
        explicit=e or bool(_NAMES_ANSWERS.search(m.group(0))),  # "keep replies short": asked
    )
)
_rule(r"(?:回答|回复|答案)(?:要|请|尽量|都)?(?:更)?(?P<o>简洁|简短|精简|详细|详尽)", 0)(
    # "回答简洁一点" stays implicit (the labelling guide's repeated implicit preference): the
    # repetition gate decides, and the clause classifier's noise veto does not apply to it
    lambda m, e: Hit(
        "user",
        "response_length",
        "concise" if m.group("o") in {"简洁", "简短", "精简"} else "detailed",
        "preference",
        explicit=e,
    )
)
_FEW = r"(?:one|two|three|four|five|a few|a couple(?: of)?)(?:\s+or\s+(?:two|three|four|five))?"
_rule(
    r"\bkeep\s+(?:it|them|things|answers?|replies|responses|your\s+answers?)\s+(?:to|under|within)\s+"
    rf"{_FEW}\s+(?:short\s+)?(?:sentences?|lines?|paragraphs?|bullet points?|bullets)\b"
    rf"|\b{_FEW}\s+(?:short\s+)?(?:sentences?|lines?|paragraphs?)\s+(?:is|are|should be)\s+"
    r"(?:plenty|enough|fine|max|the max|all i need)\b"
)(_length("concise", asked=True))
""""keep it to three sentences", "two or three sentences is plenty": a few sentences is the
concise preference (a number of words is a limit, a rule of its own above)."""
_rule(
    r"^(?:please\s+|pls\s+|plz\s+)?(?:short|shorter|brief|concise|quick|terse)\s+"
    r"(?:answers?|replies|responses)\b(?:\s+(?:please|pls|plz|only|from now on)\b.*)?$"
    r"|\b(?:gimme|give me|just)\s+the\s+gist\b"
)(_length("concise", asked=True))
_rule(
    r"\b(?:go|get)\s+(?:in(?:to)?[\s-]?depth|deep(?:er)?)\s+when\s+you\s+explain\b"
    r"|\b(?:explain|explanations?|answers?)\b.{0,24}\b(?:in[\s-]?depth|go deep(?:er)?)\b"
    r"|\b(?:go|get)\s+in(?:to)?[\s-]?depth\b"
)(_length("detailed"))
_rule(r"简短点|简短些|短点|短些|能短就短|(?<!我)(?:说|讲)重点|(?:回答|回复|answers?)\s*短一点", 0)(
    _length("concise")
)
_rule(
    r"(?<!我)(?:讲|说|解释|回答|回复)(?:得)?(?:尽量)?(?:细|详细)(?!节|致)(?:一点|一些|点|些)?"
    r"|(?i:explain\w*|answers?|repl(?:y|ies))[^，,。.]{0,16}?(?i:detailed)\s*一点",
    0,
)(_length("detailed"))
_ANSWER_WORDS = re.compile(
    r"(?i)\b(?:answers?|repl(?:y|ies)|responses?|explanations?|messages?|summar\w+|you|your"
    r"|it|this|that)\b|回答|回复|答复|解释|你|说|写|讲"
)


def _terse_answers(m: re.Match[str], e: bool) -> Hit | None:
    """Answers asked shorter ("too long", "太啰嗦") — unless the words judge a named tool
    ("Java is way too verbose", "Java 太啰嗦了": a reason for a preference, not a length)."""
    before = m.string[: m.start()]
    if topic_of(before) is not None and not _ANSWER_WORDS.search(
        re.split(r"[,，;；。]", before)[-1]
    ):
        return None
    asked = e or bool(_NAMES_ANSWERS.search(m.string))  # "回复短一点呗": asked of the answers
    return Hit("user", "response_length", "concise", "preference", explicit=asked, confidence=0.8)


_rule(r"\b(?:too long|too verbose|too wordy|shorter please|be more concise|be brief)\b")(
    _terse_answers
)
_rule(r"太长了|太啰嗦|太啰唆|简短一点|简洁一点|短一点", 0)(_terse_answers)
_rule(r"\b(?:more details? please|too short|go into more detail|be more detailed)\b")(
    lambda m, e: Hit(
        "user", "response_length", "detailed", "preference", explicit=e, confidence=0.8
    )
)
_rule(r"详细一点|详细点|具体一点|具体点|说详细些", 0)(
    lambda m, e: Hit(
        "user", "response_length", "detailed", "preference", explicit=e, confidence=0.8
    )
)


__all__ = [
    "RULES",
]
