"""Kinds the labelling guide fixes by the words of a clause, applied after the model's reading.

The clause classifier chooses between preference, stable fact and constraint from the whole
clause; for two shapes the words themselves decide, whatever the model leaned to:

* **health limits are constraints** — a diet, an allergy or a food the user (or one of their
  people: ``son_allergy``) cannot eat is a limit the assistant must respect, never a mere fact
  ("I went vegan two years ago" → ``diet=vegan``, kind ``constraint``);
* **"don't call me X" names no one** — a name taken from a prohibition of a form of address
  ("never call me buddy", "以后别叫我亲了") is the rule ``must_not`` "call me buddy".

:func:`states_rule` tells whether words prohibit or oblige for the assistant; it keeps a note
of a long turn (see :mod:`~langgraph_memory.write.decide`). It does **not** turn notes into
standing rules: measured on LoCoMo conversation 26 through the agent, doing so made about a
dozen sentences of talk between two friends rules injected into every prompt (records per
question prompt 10.9 → 22.9, memory tokens 949 → 1,602), so a rule still needs the rule
extractor or the classifier's reading of a constraint.

Pure: candidates in, candidates out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .classify import cues_of
from .extract.markers import FROM_NOW_ON
from .slots.holder import health_base
from .slots.preference import constraint_slot
from .types import Candidate

RULE_WORDS = frozenset({"prohibit", "oblige"})
"""Cues (see :data:`~langgraph_memory.write.classify.CUES`) of a prohibition or obligation."""

_OWN_HABIT = re.compile(
    r"(?i)\b(?:i|we|i'm|we're)\s+(?:\w+\s+)?(?:never|don't|do not|dont|always|only|must|mustn't"
    r"|have to|had to|need to|needed to|avoid|stopped|stop|can't|cannot|shouldn't)\b"
    r"|我(?:们)?(?:从来|从|一直|平时|基本)?(?:不|没|只|必须|得|需要|总是|一律|不能|避免)"
)
"""The prohibition or obligation binds the speaker ("I never drink coffee", "我只喝茶")."""

_YOU_RULE = re.compile(
    r"(?i)(?:\byou|[你您])\s*(?:\w+\s+)?(?:must|mustn't|have to|need to|should|shouldn't"
    r"|always|never|can't|cannot|may not|are not to)\b"
    r"|[你您].{0,3}(?:必须|得|要|别|不要|一定|务必|不能|不许)"
    r"|^\W*(?:\d+[.)]\s*)?no\s+\w+"
)
"""The rule's subject is the assistant ("you must keep", "你必须先问我", "还有你must提醒我"), or
the rule is a bare "no …" ("no spoilers. EVER", "1) no python 2 code")."""

_NO_CALLING = re.compile(
    r"(?i)\b(?:never|don't|do not|dont|stop|quit|no more)\s+(?:\w+\s+){0,2}call(?:ing)?\s+me\b"
    r"|(?:别|不要|不许|不准|别再|不用)\s*(?:再)?\s*(?:叫|喊|称呼)我"
)


def is_health_limit(predicate: str) -> bool:
    """Whether ``predicate`` is a diet, allergy or dietary restriction (of anyone:
    ``son_allergy`` too, see :func:`~langgraph_memory.write.slots.holder.health_base`)."""
    return health_base(predicate) is not None


_REPORTED = re.compile(
    r"(?i)\b(?:says|said|(?:they|people|everyone|experts|doctors|folks)\s+say|told me|tells me"
    r"|heard|read (?:that|somewhere|online)|according to"
    r"|claim(?:s|ed|ing)?|apparently|supposedly|insists?|insisted)\b"
    r"|听说|看到说|[他她]说|跟我说(?!话)|说过|据说|通知说|上说|上写着|里说"
)
"""Someone else's words reported ("my mom always says 'never go to bed angry'", "网上说…"); a
bare "say" is the rule's own verb ("Never say 'as an AI'")."""


_PEOPLE_EN = (
    r"friend|mom|mum|mother|dad|father|wife|husband|partner|boss|manager|sister|brother|son"
    r"|daughter|kid|child|teacher|doctor|dentist|colleague|co-?worker|roommate|flatmate"
    r"|neighbou?r|grandma|grandmother|grandpa|grandfather|uncle|aunt|cousin|girlfriend"
    r"|boyfriend|in-laws?|landlord|coach|instructor|trainer|team ?lead|team-?mate|classmate"
    r"|mentor|supervisor|advisor|tech ?lead|customer|client|intern|patient|student|guest"
)
_PEOPLE_ZH = (
    r"闺蜜|朋友|妈妈?|爸爸?|老公|老婆|同事|老板|领导|经理|儿子|女儿|孩子|男朋友|女朋友|男友|女友|室友"
    r"|哥哥?|姐姐?|弟弟?|妹妹?|婆婆|公公|岳母|丈母娘|奶奶|爷爷|外婆|外公|姥姥|姥爷|老师|班主任|医生"
    r"|邻居|房东|教练|表哥|表姐|表弟|表妹|主管|上司|总监|组长|同学|客户|舍友|对象|实习生|新人|顾客|学生"
    r"|病人|患者|师傅"
)
_STRANGER = re.compile(
    r"^\W*(?:(?i:some|many|most|lots of|a lot of)\s+(?i:people|folks|devs|developers"
    r"|of my friends)\b"
    r"|(?i:a|one|this|that)\s+(?i:new\s+)?(?i:customer|client|guy|girl|woman|man|lady|person|user"
    r"|student|patient|stranger|intern|coworker|colleague)\b"
    r"|(?i:apparently|supposedly|i heard|i read that)\s+(?-i:[A-Z][a-z]+\s+[A-Z][a-z]+)\b"
    r"|有些人|有人|很多人|好多人|别人|大家|(?:客户|顾客|甲方|人家)的(?!资料|数据|信息|邮箱|电话)"
    rf"|[^，。,.\s我]{{1,8}}的(?:{_PEOPLE_ZH}))"
)
"""A clause that opens on someone who is none of the user's people: people in general ("Some
people prefer tabs", "有人说…"), a customer or a stranger ("A customer told me he's allergic to
gluten"), a named public figure ("Apparently Linus Torvalds writes…"), someone described by a
place ("隔壁桌新来的实习生…")."""
_SOMEONE_ELSE = re.compile(
    rf"(?i)^\W*(?:(?:and|but|so|also|then|plus|btw)\W+)?(?:he|she|they|(?:my|our|his|her|their)"
    rf"\s+(?:[\w-]+\s+){{0,2}}?(?:{_PEOPLE_EN})s?(?:'s\s+[\w-]+)?)\b"
    rf"|^\W*(?:而且|但是|但|不过|然后|结果|虽然)?(?:他|她|他们|她们|(?:我|我们|他|她)的?(?:{_PEOPLE_ZH}))"
    rf"|^\W*(?:我|我们|他|她)的?\s*(?i:{_PEOPLE_EN})s?\b"
    rf"|{_STRANGER.pattern}"
    r"|(?:景区|学校|公司|医院|小区|餐厅|酒店|机场|班主任|老师|房东|物业)[^，。,.]{0,6}"
    r"(?:规定|要求|不让|不许|通知)"
    r"|(?:菜谱|食谱|说明书|网上|书上|文章|帖子)[^，。,.]{0,3}(?:说|写着|写的)"
)
"""The rule is someone else's — a person of the story ("My friend Dana has this habit where she
always…", "我闺蜜每次都要…") or a place's regulation ("景区规定不许…") — not one for the
assistant."""


def about_someone_else(text: str) -> bool:
    """Whether ``text`` opens about another person of the user's story ("My friend Dana has
    this habit…", "我闺蜜有个习惯…", "she always…") or a place's regulation ("景区规定…")."""
    return bool(_SOMEONE_ELSE.search(text))


_HOLDER = re.compile(
    rf"(?i)^\W*(?:(?:and|but|so|also|btw)\W+)?(?:我|我们)?\s*(?:的\s*)?(?:{_PEOPLE_EN})s?\b"
    rf"|^\W*(?:而且|但是|不过|然后)?(?:{_PEOPLE_ZH})"
    rf"|{_STRANGER.pattern}"
)
"""A clause that opens on another person without "my" ("我 colleague 说…", "老板在会上说…",
"隔壁桌新来的实习生…")."""
_OPINION = re.compile(
    r"(?i)\b(?:says?|said|swears?|thinks?|believes?|insists?|suggest(?:s|ed)?|recommend(?:s|ed)?"
    r"|keeps? (?:telling|saying|pushing|asking|nagging)|wants? (?:me|us) to|told (?:me|us)"
    r"|tells (?:me|us)|push(?:es|ing)? (?:me|us)|convinced|is obsessed with|swear by|swears by)\b"
    r"|说|劝|觉得|认为|推荐|建议|让我|非要|安利|(?i:push)"
)
_SUGGESTION = re.compile(
    r"(?i)\b(?:should|try|trying|wants? (?:me|us) to|telling (?:me|us) to|push(?:es|ing)? (?:me|us)"
    r"|keeps? (?:pushing|nagging|asking))\b|劝|让我试|建议我|非要我|(?i:push)\s*我"
)


def _opens_on_someone_else(text: str) -> bool:
    """:func:`about_someone_else`, or a clause opening on a person without "my"
    (:data:`_HOLDER`)."""
    return about_someone_else(text) or bool(_HOLDER.search(text))


_TOLD_ME = re.compile(
    r"(?i)\b(?:told|tells|asked|asks|texted|warned|showed)\s+me\b|(?:跟|和|告诉)我"
)
"""A first person that is the listener of someone's words ("A customer told me he's…"), not the
subject of what is said."""


def about_a_stranger(text: str, value: str) -> bool:
    """Whether ``value`` is said of someone who is none of the user's people
    (:data:`_STRANGER`): the clause opens on them and no "I" / "我" of the user's own (other than
    "told me") comes before the value ("A customer told me he's allergic to gluten", "Some
    people prefer tabs"; not "Some people hate it but I love vim")."""
    opener = _STRANGER.match(text)
    if opener is None:
        return False
    at = text.casefold().find(value.casefold()) if value else -1
    head = _TOLD_ME.sub(" ", text[opener.end() : at if at >= 0 else len(text)])
    return not _ME.search(head)


_SAYING = re.compile(
    rf"(?i)^\W*(?:my|our)\s+(?:[\w-]+\s+){{0,2}}?(?:{_PEOPLE_EN})s?\s+(?:[\w-]+\s+)?"
    r"(?:always\s+|often\s+|keeps\s+|used\s+to\s+)?(?:says?|said|saying|thinks?|believes?"
    r"|swears?|insists?|claims?|tells\s+me|told\s+me|reckons?)\b"
    rf"|^\W*我(?:的|们的?)?\s*(?:{_PEOPLE_ZH}|(?i:{_PEOPLE_EN}))\s*(?:总|老|一直|常常?|天天|总是)?"
    r"(?:说|觉得|认为|讲)"
)


def others_saying(text: str) -> bool:
    """Whether ``text`` opens on one of the user's people saying or thinking something ("My
    mom always says never go to bed angry", "我妈总说…"): their words, not a fact. The verb
    must follow the person ("my daughter Lily starts kindergarten…, can't believe it" is the
    daughter's fact and the user's feeling)."""
    return bool(_SAYING.search(text))


def others_view(text: str, *, health: bool = False) -> bool:
    """Whether ``text`` is another person's opinion or urging ("My coworker swears Rust is the
    only sane language", "我同事说 Rust 是未来，天天劝我学", "My sister keeps saying I should
    try going vegan"): a value it names is theirs, not the user's. For a ``health`` limit only
    an urging counts ("my doctor says I'm lactose intolerant" tells the user's own limit)."""
    if not _opens_on_someone_else(text):
        return False
    return bool(_SUGGESTION.search(text) if health else _OPINION.search(text))


_FICTION = re.compile(
    r"(?i)\b(?:write|writing|draft|sketch|create|make up|invent)\b[^.?!。？！]{0,40}?"
    r"\b(?<!long )(?<!long, )(?:story|stories|novel|scene|poem|script|screenplay|fanfic"
    r"|fan fiction|backstory"
    r"|dialogue|monologue|character|short story|tale)\b"
    r"|\b(?:main|my|the|a|this)\s+character\b|\bprotagonist\b|\brole[- ]?play\b"
    r"|\bpretend\s+(?:you(?:'re| are)|to be|that you|i(?:'m| am))\b|\bi'?ll play\b"
    r"|\blet'?s (?:do|play) (?:a |an )?(?:role|pretend|game|interview practice|mock)"
    r"|\bin my (?:novel|story|book|game|script)\b"
    r"|\b(?:campaign|playthrough|d&d|dnd|tabletop|rpg)\b"
    r"|\bmy (?:[\w&'-]+\s+)?(?:character|avatar|farmer|toon|oc|sim|villager|persona)\b"
    r"|游戏(?:里|中)|在[^，。,.\s]{1,10}里玩|(?:游戏|[A-Za-z]{3,})\s*(?:里|中)?的?\s*(?:角色|人物|小人)"
    r"|写(?:一?个|一篇|篇|一段|段)?(?:小)?(?:故事|小说|剧本|场景|scene|诗|人物介绍|人物小传|人物简介|角色介绍)"
    r"|(?:小说|故事|剧本)(?:里|中)"
    r"|主角|女主|男主|主人公|角色扮演|扮演|你演|我演|模拟面试|人设"
)
"""A turn that sets up fiction, a role-play or a mock scene ("Write a short story about a
detective who's allergic to cats", "I'm writing a novel and the main character is…", "我们来玩
个角色扮演：…我是一个只吃素的和尚", "写一个小故事。主角是个对猫毛过敏的程序员"): the values it
describes are the characters', not the user's; so does a game's character ("In my D&D
campaign I play Thalia…", "In Stardew my farmer is named…", "游戏里我那个角色是个剑客")."""
_REAL_LIFE = re.compile(
    r"(?i)\b(?:in real life|irl|myself|for real|me personally|actually i)\b|现实中|我自己|我本人"
)
"""Words that step out of the fiction to tell about the user ("I'm vegan myself")."""


_ME = re.compile(r"(?i)\b(?:i|i'm|i've|me|my)\b|我(?![们的]?(?:" + _PEOPLE_ZH + r"))")


def others_habit(text: str, value: str) -> bool:
    """Whether ``value`` is a habit or taste of another person ``text`` opens on
    ("我主管每天早上都只喝黑咖啡", "My roommate lives on energy drinks"): no "I" / "我" of the
    user's own before it."""
    if not _opens_on_someone_else(text):
        return False
    at = text.casefold().find(value.casefold()) if value else -1
    head = text[:at] if at >= 0 else text
    opener = _SOMEONE_ELSE.search(head) or _HOLDER.search(head)
    if opener is None:
        return False  # "daily driver 是 Windows 11, 没办法公司要求": the other one comes after
    return not _ME.search(head[opener.end() :])


_ROLE_PLAY = re.compile(
    r"(?i)\brole[- ]?play\b|\bpretend\b|\bi'?ll play\b|\blet'?s (?:do|play)\b"
    r"|\binterview practice\b|\bmock (?:interview|call|meeting)\b"
    r"|角色扮演|扮演|你演|我演|模拟面试|模拟一下"
)
"""A role-play or mock scene: the user casts themselves too ("you're a travel agent and I'm a
vegan tourist"), so every later clause is the scene's."""


def sets_up_role_play(clause: str) -> bool:
    """Whether ``clause`` sets up a role-play or mock scene (:data:`_ROLE_PLAY`)."""
    return bool(_ROLE_PLAY.search(clause))


def sets_up_fiction(clause: str) -> bool:
    """Whether ``clause`` sets up fiction, a role-play or a mock scene (:data:`_FICTION`)."""
    return bool(_FICTION.search(clause))


def steps_out_of_fiction(clause: str) -> bool:
    """Whether ``clause`` tells about the user in a turn of fiction (:data:`_REAL_LIFE`)."""
    return bool(_REAL_LIFE.search(clause))


def someone_elses_rule(text: str) -> bool:
    """Whether the rule ``text`` states is someone else's: reported words ("my mom always says
    never…", "I read an article claiming you should never…", "网上说…") or a rule of a person or
    place of the story ("my friend always…", "景区规定不许…"), and no word makes it one for the
    assistant from now on."""
    if FROM_NOW_ON.search(text):
        return False
    return bool(_REPORTED.search(text)) or about_someone_else(text)


def addresses_assistant(text: str) -> bool:
    """Whether the rule ``text`` states has the assistant as its subject ("you must…", "你必须
    先问我", "no spoilers")."""
    return bool(_YOU_RULE.search(text))


def states_rule(text: str) -> bool:
    """Whether ``text`` prohibits or obliges for the assistant: a rule word, not a question,
    a hedge or someone's words reported, and the rule does not bind the speaker ("I have to
    tell you…") unless a rule has the assistant as its subject too ("so you must…"); a rule of
    someone else in the story or of a place ("my friend always…", "景区规定…") is none."""
    cues = cues_of(text)
    if "question" in cues or "hedge" in cues or _REPORTED.search(text):
        return False
    if _YOU_RULE.search(text):
        return True
    return bool(cues & RULE_WORDS) and not _OWN_HABIT.search(text) and not about_someone_else(text)


def as_rule(candidate: Candidate, clause: str | None = None) -> Candidate | None:
    """``candidate`` as the rule ``clause`` (default: the candidate's text) states, as
    ``must`` / ``must_not`` on the assistant (or the limit or preference the rule names: see
    :func:`~langgraph_memory.write.slots.preference.constraint_slot`); None when no rule slot
    reads it."""
    slot = constraint_slot(candidate.text if clause is None else clause)
    if slot is None:
        return None
    return candidate.model_copy(
        update={
            "subject": slot.subject,
            "predicate": slot.predicate,
            "object": slot.object,
            "kind": "constraint",
            "multi_valued": True,
            "explicit": True,
        }
    )


_TOOL_PREDICATES = frozenset(
    {"programming_language", "database", "editor", "operating_system", "test_framework"}
)
_ANOTHERS_WORDS = re.compile(
    rf"(?i)\b(?:my|our|his|her|their)\s+(?:[\w-]+\s+){{0,2}}?(?:{_PEOPLE_EN})s?\b"
    r"(?:(?!\b(?:i|we)\b)[^,.;!?，。；！？]){0,30}?\b(?:says?|said|swears?|swore|thinks?|insists?"
    r"|claims?|believes?|reckons?|keeps\s+(?:saying|telling\s+\w+)|told\s+\w+|tells\s+\w+)\b"
    rf"|(?:{_PEOPLE_ZH}|(?i:colleague|co-?worker|boss|manager|friend|team\s?lead))\s*"
    r"(?:一直|总|总是|天天|老是|都)?(?:说|觉得|认为|坚持|劝|推荐|安利|喜欢|用)"
)
"""Another person's words or tools ("My coworker swears Rust is…", "我同事说 Rust 是未来",
"我 colleague 说 Go 比 Java 好"): a tool named after them is theirs."""
_ME_AGAIN = re.compile(r"(?i)\b(?:i|i'm|i've|we|we're|me)\b|我(?!们?的?(?:同事|朋友|老板|领导))")
OTHERS_TOOL_REASON = "the tool is someone else's (said in their words or of them), not the user's"
"""Reason of a tool vetoed by :func:`others_tool`."""


def others_tool(candidate: Candidate) -> bool:
    """Whether ``candidate`` is a tool of someone else the user tells about: named after another
    person's reported words (:data:`_ANOTHERS_WORDS`) with no "I" / "我" between them and the
    tool, or in a clause that opens about another person with no "I" / "我" before the tool ("My
    coworker does all her stats in R")."""
    if candidate.predicate not in _TOOL_PREDICATES or candidate.subject == "assistant":
        return False
    text, value = candidate.text, (candidate.object or "").casefold()
    at = text.casefold().find(value.split()[0]) if value.split() else -1
    if at < 0:
        return False
    said = _ANOTHERS_WORDS.search(text, 0, at + len(value))
    if said is not None and said.start() < at and not _ME_AGAIN.search(text, said.end(), at):
        return True  # "我同事用 Mac，我用 Windows": the user's own tool after theirs
    opener = _SOMEONE_ELSE.match(text)  # the clause opens on another person
    return opener is not None and not _ME_AGAIN.search(text, 0, at)


def settle(candidate: Candidate) -> Candidate:
    """``candidate`` with the kind the guide fixes for its words (see the module docstring),
    or vetoed when it is another person's tool (:func:`others_tool`)."""
    if candidate.retract or candidate.vetoed or candidate.hedged or candidate.one_off:
        return candidate
    if others_tool(candidate) and not candidate.correction:
        return candidate.model_copy(update={"vetoed": OTHERS_TOOL_REASON})
    if is_health_limit(candidate.predicate) and candidate.kind != "constraint":
        return candidate.model_copy(update={"kind": "constraint"})
    if candidate.subject != "user":
        return candidate
    if candidate.predicate == "name" and _NO_CALLING.search(candidate.text):
        return as_rule(candidate) or candidate
    return candidate


def settle_all(candidates: Sequence[Candidate]) -> list[Candidate]:
    """:func:`settle` over ``candidates``."""
    return [settle(c) for c in candidates]


__all__ = [
    "OTHERS_TOOL_REASON",
    "about_a_stranger",
    "about_someone_else",
    "as_rule",
    "is_health_limit",
    "others_habit",
    "others_saying",
    "others_tool",
    "others_view",
    "sets_up_fiction",
    "sets_up_role_play",
    "settle",
    "settle_all",
    "someone_elses_rule",
    "states_rule",
    "steps_out_of_fiction",
]
