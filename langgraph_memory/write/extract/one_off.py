"""One-off requests: instructions for the current turn or task only, never stored as rules.

The labelling guide calls them one-off requests; the gate keeps a candidate marked
``Candidate.one_off`` in working memory with its reason. Stored as a standing rule it would be
injected into every later prompt and checked against every later answer ("never use globals"
in a poem, "少放盐" in a tax question). One request is one-off on either of two evidence:

* **a this-turn marker in its own clause** ("this time", "just now", "for this answer", "这次",
  "本次", "先不要"): :func:`says_this_turn_only` (the rule extractor and the clause classifier
  set ``one_off`` from it when they build the candidate, and :func:`without_this_turn_markers`
  keeps the marker out of a constraint's object);
* **the artifact in front of the user** ("Fix this function, don't use globals", "这个菜不要放太多
  盐", "Make that email shorter, no emojis"): :func:`is_task_bound`, applied to a turn's
  candidates by :func:`mark_task_bound` after extraction. The test, per sentence of the turn (a
  request and its conditions are usually one sentence: "帮我改一下这段代码，不要用全局变量"):

  - the sentence that holds the candidate's clause names a present artifact with a deictic
    ("this/these/that/the above" + code, email, paragraph, dish…; "这/那/上面的" + 代码, 邮件,
    文章, 菜…), and
  - the clause says nothing durable ("from now on", "always", "every time", "all my…", "以后",
    "每次", "所有", "一律", "记住"…).

  Places and groups that outlive a task ("this project", "this repo", "这个项目", "我们团队") are
  not artifacts, and the user's own hard limits (allergy, diet, dietary restriction) are never
  task-bound.
* **how far to edit** the text being worked on ("don't change too much", "别改太多"), unless the
  turn makes something last;
* **the conditions of a request or a question** ("Can you write a toast for my sister? Keep it
  under two minutes, don't mention her ex." / "你觉得送什么比较好？不要太 generic 的东西。"): an
  instruction on how to answer (``must`` / ``must_not``, length, format, language…) in a
  sentence of its own that is not about the user ("I prefer…", "我喜欢…"), next to another
  sentence of the turn that asks for something (:func:`asks_for_something`), in a turn with
  nothing that makes anything lasting (:func:`says_standing`: the durable words above, or
  "never", "stop", "anymore", "in general", "your replies", "绝对", "永远", "再也", "别再"…):
  the labelling guide's task-bound instructions, which end with the task. "Never email
  customers directly." beside a request stays a rule.

Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..slots.holder import health_base
from ..types import Candidate
from .markers import split_clauses

_THIS_TURN = re.compile(
    r"(?i)\b(?:this time|this once|for this (?:one|answer|question|reply)|in this "
    r"(?:answer|reply|response|one)|right now|just now)\b"
    r"|这次|这一次|这回|本次|此次|这个回答|先不要"
)
"""Markers of an instruction for the current turn only: working memory, not a constraint."""

_ARTIFACTS_EN = (
    "code|snippet|function|method|class|script|query|sql|regex|file|email|e-mail|mail|message|"
    "letter|cover letter|paragraph|text|sentence|essay|draft|post|article|story|poem|summary|"
    "translation|answer|reply|list|table|chart|graph|slide|slides|deck|doc|document|report|"
    "resume|cv|page|recipe|dish|meal|itinerary|outline|section|paper|abstract|speech|caption|"
    "title|tweet|bio|spreadsheet|form|diagram|image|picture|photo|logo|song|lyrics|menu|"
    "review|literature review|proposal|assignment|homework|application|presentation|talk|toast"
)
_CURRENT_ARTIFACT_EN = re.compile(
    rf"(?i)\b(?:this|these|that|those|the above|the following|the attached|the pasted)\s+"
    rf"(?:[\w-]+\s+){{0,2}}?(?:{_ARTIFACTS_EN})s?\b"
    r"|\b(?:the (?:text|code|email|paragraph|list) )?(?:above|below)\b(?![\w-])"
)
_ARTIFACTS_ZH = (
    "代码|函数|方法|脚本|程序|文件|邮件|消息|短信|信|文章|段落|文字|内容|话|句子|稿子|草稿|帖子|"
    "故事|诗|总结|摘要|翻译|回答|列表|清单|表格|表|图|图片|照片|PPT|ppt|幻灯片|文档|报告|简历|"
    "页面|菜|菜谱|食谱|行程|大纲|章节|论文|演讲稿|标题|文案|方案|SQL|sql|正则|题|作文|海报"
)
_CURRENT_ARTIFACT_ZH = re.compile(
    rf"(?:这|那|上面|下面|以下|上述)(?:一)?(?:个|段|篇|封|份|道|张|页|条|句|版|首|套|些)?的?"
    rf"(?:{_ARTIFACTS_ZH})"
)
_DURABLE = re.compile(
    r"(?i)\b(?:from now on|going forward|in (?:the )?future|from today|always|never again|"
    r"every ?time|each time|whenever|any ?time|all (?:my|our|of my|of our|the)|by default|"
    r"in general|as a rule|remember|don't ever|do not ever)\b"
    r"|以后|今后|往后|此后|之后都|从现在起|从现在开始|从今天起|每次|每回|所有|一律|永远|总是|一直|"
    r"凡是|任何时候|默认|记住|始终|都要|都别|都不要"
)

_STANDING = re.compile(
    r"(?i)\b(?:never|ever|anymore|any more|no longer|no more|at all times|for good|permanently"
    r"|stop|quit|in general|generally|your (?:replies|answers|responses|messages))\b"
    r"|绝不|绝对|永远|从不|从来|再也|不再|别再|不要再|一直都|你的回答|回答我的?时候|平时|一般"
)
"""Words that make an instruction hold beyond the task it was said with."""
_ASKS = re.compile(
    r"(?i)^(?:(?:hey|hi|so|ok|okay|also|and|now|quick question)[,\s]+)?(?:can|could|would|will)"
    r" (?:you|u)\b|^(?:please|pls|plz)\b|\bhelp me\b|\b(?:i need|i'd like|i want) (?:you|help|some"
    r" help|a|an|ideas|suggestions)\b|\bany (?:ideas|tips|suggestions|advice)\b"
    r"|^(?:what|which|how|where|when|who|why|is there|are there|should i|do you)\b"
    r"|帮我|帮忙|麻烦你?|请你?帮|能不能|能否|可以帮|可不可以|你觉得|你看|有没有|推荐|建议一下|怎么|如何|哪"
)
"""Openings of a sentence that asks the assistant for something (a task or an answer)."""
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i'd|i've|my|me)\b|我")


def asks_for_something(text: str, sentence: str) -> bool:
    """True when ``sentence`` of turn ``text`` asks the assistant for something: it is a
    question (ends with "?" / "？" in the turn, or opens as one), opens as a request ("can you",
    "please", "帮我", "能不能"…) or names an artifact in front of the user ("this email",
    "这段代码")."""
    stripped = sentence.strip()
    if not stripped:
        return False
    at = text.find(stripped)
    after = text[at + len(stripped) : at + len(stripped) + 2] if at >= 0 else ""
    return bool(
        stripped.endswith(("?", "？"))
        or after.lstrip()[:1] in {"?", "？"}
        or _ASKS.search(stripped)
        or names_present_artifact(stripped)
    )


def says_standing(clause: str) -> bool:
    """True when ``clause`` makes an instruction outlast its task: :func:`says_durable`, or
    "never", "anymore", "绝对", "永远", "再也"…"""
    return says_durable(clause) or bool(_STANDING.search(clause))


TASK_BOUND_KINDS = frozenset({"constraint", "preference"})
"""Kinds an instruction about the present artifact can take (facts about the user never)."""
ANSWER_PREFERENCES = frozenset(
    {"answer_language", "response_length", "ui_theme", "indentation", "must", "must_not",
     "format", "tone", "style"}
)  # fmt: skip
"""Preferences that are instructions on how to answer or produce something ("make this
shorter"); other preferences are about the user ("这个菜是我最喜欢的") and never task-bound."""
NEVER_TASK_BOUND = frozenset({"allergy", "diet", "dietary_restriction", "name", "location"})
"""Predicates that are the user's own lasting limits or facts, whatever the sentence says."""


_OCCASION_AMOUNT = re.compile(
    r"(?i)(?:这次|这一次|这回|本次|此次).*?(?:预算|经费|花费|budget|deadline|ddl|截止日期|截止时间)"
)
"""A budget or deadline of an occasion named with 这次 ("这次旅行预算一万五左右",
"这次去日本玩五天，两个人预算两万块左右", "这次 honeymoon 的 budget 大概 $8k"): 这次 picks the
trip, the amount is a fact about it, not an instruction for this answer."""


def says_this_turn_only(clause: str) -> bool:
    """True when ``clause`` limits itself to the current turn ("this time", "这次", "先不要");
    not for the budget or deadline of an occasion called 这次 (:data:`_OCCASION_AMOUNT`)."""
    return bool(_THIS_TURN.search(clause)) and not _OCCASION_AMOUNT.search(clause)


def without_this_turn_markers(text: str) -> str:
    """``text`` with its this-turn markers removed ("this time" marks the candidate, not the
    object it states)."""
    return _THIS_TURN.sub("", text)


def names_present_artifact(sentence: str) -> bool:
    """True when ``sentence`` points at an artifact of the current task ("this email",
    "这段代码", "the code above")."""
    return bool(_CURRENT_ARTIFACT_EN.search(sentence) or _CURRENT_ARTIFACT_ZH.search(sentence))


def says_durable(clause: str) -> bool:
    """True when ``clause`` makes itself lasting ("from now on", "always", "以后", "每次"…)."""
    return bool(_DURABLE.search(clause))


def _sentence_of(text: str, clause: str) -> str:
    """The sentence of ``text`` that holds ``clause`` (or shares its longest stretch),
    else ``clause`` itself."""
    needle = clause.strip()
    sentences = split_clauses(text)  # the extractor's own sentence split: clauses match it
    for sentence in sentences:
        if needle and needle in sentence:
            return sentence
    head = needle[: max(4, len(needle) // 2)]
    for sentence in sentences:
        if head and head in sentence:
            return sentence
    return clause


_EDIT_EXTENT = re.compile(
    r"(?i)\b(?:don'?t|do not|dont)\s+(?:change|edit|rewrite|touch|alter)\s+(?:it\s+|this\s+"
    r"|that\s+|anything\s+)?(?:too much|a lot|much|so much|everything)\b"
    r"|(?:别|不要|不用|不必)(?:大)?(?:改|动|修改|改动)(?:得)?(?:太多|太大|太狠|很多)"
)
"""How far to edit the text the user is working on ("don't change too much", "别改太多"): the
labelling guide's example of a task-bound instruction."""


def is_task_bound(text: str, candidate: Candidate) -> bool:
    """True when ``candidate`` (found in turn ``text``) is an instruction about the artifact
    in front of the user — see the module docstring."""
    if (
        candidate.kind not in TASK_BOUND_KINDS
        or candidate.predicate in NEVER_TASK_BOUND
        or health_base(candidate.predicate) is not None  # a son's allergy too
    ):
        return False
    if candidate.kind == "preference" and candidate.predicate not in ANSWER_PREFERENCES:
        return False
    sentence = _sentence_of(text, candidate.text)
    if says_durable(candidate.text) or says_durable(sentence):
        return False
    if names_present_artifact(sentence):
        return True
    if _EDIT_EXTENT.search(candidate.text) and not any(
        says_standing(other) for other in split_clauses(text)
    ):
        return True  # "Don't change too much, 稍微 polish 一下就好": how far to edit this text
    if candidate.predicate not in ANSWER_PREFERENCES or _FIRST_PERSON.search(sentence):
        return False  # "I prefer dark mode": the user's own preference, not a condition
    sentences = split_clauses(text)
    if any(says_standing(other) for other in sentences):
        return False  # the turn makes something last: what it asks may be the lasting rule
    # the conditions of a request or question said in the sentences around it
    return any(other != sentence and asks_for_something(text, other) for other in sentences)


def mark_task_bound(text: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """``candidates`` with ``one_off=True`` on those :func:`is_task_bound` finds."""
    return [
        c.model_copy(update={"one_off": True}) if not c.one_off and is_task_bound(text, c) else c
        for c in candidates
    ]


__all__ = [
    "ANSWER_PREFERENCES",
    "NEVER_TASK_BOUND",
    "TASK_BOUND_KINDS",
    "asks_for_something",
    "is_task_bound",
    "mark_task_bound",
    "names_present_artifact",
    "says_durable",
    "says_standing",
    "says_this_turn_only",
    "without_this_turn_markers",
]
