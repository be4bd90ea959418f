"""Extraction: turn one (already redacted) user turn into structured :class:`Candidate` s.

Two extractors share one output type:

* :class:`RuleExtractor` — Chinese and English patterns for preferences, constraints, stable
  facts, corrections ("不是X，是Y", "actually it's Y", "scratch that"), explicit "remember …"
  / "记住…" and "from now on …" / "以后…". Objects are normalised through
  :mod:`langgraph_memory.write.lexicon` so one fact stated differently maps to the same
  ``(subject, predicate)``. It also flags hedges and prompt-injection attempts.
* :class:`LLMExtractor` — an optional chat model called through
  ``with_structured_output`` for what the rules miss. Its candidates must be grounded in the
  (redacted) turn: the model's quote occurs in it, or else the fact's value does (normalised,
  see :func:`value_in_text`); a candidate that is not, or that the model marks as inferred,
  gets ``source=model`` and is never stored as a user fact.

Neither produces free-text summaries: every candidate's ``text`` is the user's own (redacted)
clause and its content is the ``(subject, predicate, object)`` triple.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, runtime_checkable

from langchain_core.language_models import LanguageModelInput
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..core.logsafe import get_logger
from ..core.records import Evidence, Source
from ..core.text import INVISIBLE_CHARS, detect_language, is_cjk, normalize_for_matching
from ..errors import ConfigError
from .lexicon import (
    ATTRIBUTES,
    CONSTRAINT_OBJECTS,
    LANGUAGES,
    MULTI_VALUED_PREDICATES,
    attribute_of,
    language_of,
    predicate_hint,
    region_of,
    timezone_of,
    topic_of,
)
from .redact import PLACEHOLDER_RE
from .segment import strip_time, topic_surface, zh_city, zh_place, zh_words, zh_workplace
from .slots import SWITCHED, bound_liking, speaks_slots
from .types import Candidate

log = get_logger("write")

# ---------------------------------------------------------------------- markers
_HEDGE_EN = re.compile(
    r"(?i)\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|"
    r"i'm not sure|i am not sure|let me think|i'll think about it|considering|"
    r"thinking about|for now|tentatively|kind of|sort of|not certain|undecided|"
    r"i believe|i reckon|i suspect|likely|unsure|we'll see|not decided yet)\b"
)
_HEDGE_ZH = re.compile(
    r"(?<![尽不])可能|也许|或许|大概|我再想想|再想想|先这样|不确定|说不定|好像|应该吧|我觉得|我猜|"
    r"暂时|考虑一下|还没想好|看情况|不一定|估计|八成|没准"
)
_EXPLICIT_EN = re.compile(
    r"(?i)^(?:(?:please\s+)?(?:remember|note|keep in mind|don't forget)(?:\s+that)?|"
    r"from now on|going forward|in (?:the )?future|for future reference|always)\b[\s,:-]*"
)
_EXPLICIT_ZH = re.compile(
    r"^(?:请?记住|记一下|记得|请注意|以后(?:都|一律|一直)?|今后(?:都)?|从现在(?:开始|起)(?:都)?|"
    r"往后(?:都)?|永远|一直)[，,：:\s]*"
)
_CORRECTION_EN = re.compile(
    r"(?i)^(?:actually|correction|scratch that|sorry|no wait|wait|oops|typo|my bad|i meant|i mean|"
    r"let me correct (?:that|myself)|no(?=\s*[,.!:]))\b[\s,:!.-]*"
)
_CORRECTION_ZH = re.compile(
    r"^(?:其实|更正一下|更正|纠正一下|纠正|不对|说错了|我说错了|刚才说错了|打错了|打错字了|写错了|记错了"
    r"|搞错了|抱歉|不好意思)[，,：:！!\s]*"
)
_RETRACT = re.compile(
    r"(?i)\bscratch that\b|\bforget (?:what i (?:just )?said|that)\b"
    r"|忘掉刚才|刚才的不算|当我没说|收回刚才"
)

_CLAUSE_SPLIT = re.compile(
    r"(?<=[.!?])\s+|[。！？；;\n]+|[，,]\s*(?=(?:而且|另外|还有|并且|同时|also|and also|plus)\b)"
)
_PART_SPLIT = re.compile(r"(?i)[，,]\s*|\s+and\s+(?=i\b|i'm\b|my\b)|(?<=\w)\s+but\s+")
_LIST_LEAD = re.compile(
    r"(?i)^(?:and also|and|also|plus)\s+(?=\S)"
    r"|^(?:还有|另外|而且|并且|以及|再就是)(?:那些|这些|那个|这个)?"
)
"""The conjunction that opens the last item of a list ("Spanish, short answers, and no
emojis"; "…，还有那些emoji别加了"): the item's own rule reads what follows it."""
_RULE_ITEM = re.compile(
    r"(?i)^(?:please\s+)?(?:no|never|don't|do not|avoid|stop|always|make sure)\b"
    r"|别|不要|不许|不准|禁止|必须|一定要|务必"
)
"""A list item after :data:`_LIST_LEAD` is read on its own only when it is an instruction:
"and also coffee" stays part of the preference before it."""

# ---------------------------------------------------------------------- injection
# Principle: a memory may restrict the assistant; it may never widen what the assistant may
# do, who the user is, or whose data is visible. The semantic patterns below are
# (grant / permission phrase) x (scope object), identity claims, and removal of
# restrictions, in English and Chinese. All injection patterns are matched on
# ``normalize_for_matching(text)`` (NFKC, invisible characters removed, look-alikes folded),
# so they are written in lower-case ASCII / simplified Chinese with ASCII punctuation.

_GRANT_EN = (
    r"(?:you|u|the assistant|assistant|the ai|the bot|i|we|my account|my user|this account"
    r"|my role|my team|i'm|im|you're|youre)\s+(?:may|can|could|allowed to|permitted to"
    r"|authori[sz]ed to|are allowed to|is allowed to|am allowed to"
    r"|are permitted to|am permitted to|am authori[sz]ed to|are authori[sz]ed to"
    r"|have (?:the )?(?:right|permission|access|clearance) to|has (?:the )?(?:right"
    r"|permission|access|clearance) to|have (?:full |complete |unrestricted |admin |root )?"
    r"access to|has (?:full |complete |unrestricted |admin |root )?access to|should)"
    r"(?!\s*(?:not|never)\b)(?!n't)"
    r"|\b(?:feel free to|it'?s (?:ok|okay|fine|allowed)(?: for you)? to|it is (?:ok|okay|fine"
    r"|allowed)(?: for you)? to|let me (?:see|read|view|access|browse|download|export|query)"
    r"|allow me to|permit me to|grant me|give me|show me"
    r"|(?:full|complete|unrestricted|admin|root) access to)"
)
_OWNERS_EN = (
    r"(?:all|every|any|each|other|another)\s+(?:other\s+|the\s+)?(?:users?|tenants?|accounts?"
    r"|customers?|people|persons?|members?|employees?|clients?|colleagues?|coworkers?)"
)
_DATA_EN = (
    r"(?:data|memor(?:y|ies)|records?|histor(?:y|ies)|conversations?|chats?|messages?|files?"
    r"|notes|profiles?|information|info|details|emails?|documents?|secrets?|passwords?|facts"
    r"|threads?|accounts?)"
)
_SCOPE_EN = (
    # whose data: "every user's", "all users'", "other users' data", "the data of all users"
    rf"{_OWNERS_EN}(?:'s?\b|s'|\s+{_DATA_EN}\b)"
    rf"|\b{_DATA_EN}\s+(?:of|from|for|belonging to|across|about)\s+(?:the\s+)?{_OWNERS_EN}\b"
    r"|\b(?:everyone|everybody|anyone|anybody|someone else|somebody else|other people"
    r"|all people)'s?\b(?!\s+(?:is|are|who)\b)"
    r"|\b(?:users?|tenants?|accounts?|customers?)\s+[\w.-]+'s\b"
    # tenants / accounts as a whole are a scope, never the user's own
    r"|\b(?:all|every|any|other|another)\s+(?:the\s+)?(?:tenants?|accounts?|workspaces?)\b"
    r"|\b(?:across|over)\s+(?:all\s+)?tenants\b|\bthe (?:whole|entire) (?:database|memory store)\b"
)
_ADMIN_ROLE_EN = (
    r"(?:admin|administrator|sysadmin|root|root user|superuser|super user|super-user|owner"
    r"|system owner|developer|operator|moderator|staff member|privileged user|god)"
)
_ADMIN_CLAIM_EN = (
    r"(?:admin|administrator|root|root user|superuser|super user|super-user|system owner"
    r"|privileged user|god)"
)
_ADMIN_CLAIM_ZH = r"(?:超级管理员|系统管理员|管理员|超级用户|root|特权用户)"
_ADMIN_ROLE_ZH = r"(?:超级管理员|系统管理员|管理员|超级用户|root|所有者|开发者|运维|版主|特权用户)"
_SCOPE_ZH = (
    r"(?:所有人|所有的人|每个人|全部人|任何人|其他人|其它人|别人|他人|所有用户|每个用户|每一个用户"
    r"|全部用户|任何用户|任意用户|其他用户|其它用户|别的用户|所有租户|全部租户|其他租户|每个租户"
    r"|所有账号|所有账户|其他账号|其他账户|所有客户的|全部数据|所有数据|所有记忆|全部记忆"
    r"|全公司|整个公司|全体员工|所有员工|所有同事|每个同事|全部门|整个部门)"
)
_ACCESS_ZH = (
    r"(?:查看|看到?|读取?|访问|修改|删除|导出|获取|拿到|调取|检索|搜索"
    r"|发给|分享|共享|透露|泄露|告诉)"
)

_OTHER_PERSON_EN = (
    r"(?:she|he|they|someone|somebody|others|\w+'s\s+\w+|my\s+(?:wife|husband|partner|son"
    r"|daughter|kids?|children|mom|mother|dad|father|sister|brother|boss|manager|colleague"
    r"|coworker|friend|roommate|neighbou?r|employee|team(?:mate)?s?)|[a-z][\w-]+)"
)
"""Someone other than the speaker (a pronoun, a relation, a name)."""
_OTHER_PERSON_ZH = (
    r"(?:她们|他们|她|他|别人|其他人|(?:我|我的)?(?:同事|老婆|老公|妻子|丈夫|男朋友|女朋友|对象|爸爸|妈妈|爸|妈"
    r"|儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|老板|领导|上司|朋友|室友|邻居|员工|下属|家人|客户))"
)
"""Someone other than the speaker, in Chinese (a pronoun or a relation: not "我昨天")."""

_INJECTION: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "override instructions",
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+"
            r"|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|original|system"
            r"|existing)?\s*(?:instructions|rules|prompts?|directions|guidelines|constraints"
            r"|system prompt)",
        ),
        (
            "role escalation",
            r"\byou are now (?:an? |the |in )?(?:admin|administrator|root|superuser|developer mode"
            r"|dan|unrestricted|jailbroken|god mode|system)",
        ),
        (
            "privilege claim",
            r"\b(?:i am|i'm) (?:the |an? )?(?:admin|administrator|root user|root|superuser"
            r"|owner of this system|system owner)\b(?!\s+(?:at|for|in|of a)\b)",
        ),
        (
            "permission grant",
            r"\b(?:grant|give)\s+(?:me|us|everyone|all users|user \w+)\s+(?:full\s+|admin\s+"
            r"|root\s+|elevated\s+)?(?:access|permissions?|privileges?|rights|admin|root)",
        ),
        ("permission grant", r"\b(?:elevate|escalate) (?:my )?(?:privileges?|permissions?|role)"),
        (
            "cross-tenant access",
            r"\b(?:user|account)\s+\w+'s\s+\w+"
            r"|\bother users'?\s+(?:data|memor|records|history)|\b(?:all"
            r"|every)\s+users'?\s+(?:data|memor|records)",
        ),
        (
            "mode switch",
            r"\b(?:enable|activate|enter|switch to)\s+(?:developer|god|admin|debug|jailbreak"
            r"|unrestricted)\s+mode",
        ),
        (
            "system prompt",
            r"\b(?:reveal|show|print|leak|override|change|replace|update"
            r"|rewrite)\s+(?:me\s+)?(?:your\s+|the\s+)?(?:system\s+prompt|hidden\s+instructions"
            r"|system\s+message)",
        ),
        (
            "new instructions",
            r"\b(?:new|updated)\s+(?:system\s+)?(?:instructions?|rules|role)\s*:"
            r"|\byour new (?:instructions|rules|role) (?:is|are)\b",
        ),
        (
            "fake system tag",
            r"<\s*/?\s*(?:system|sys|admin|instructions?|im_start|im_end)\s*>|\[/?(?:system|sys"
            r"|admin|inst)\]|<\|(?:im_start|im_end|system|endoftext)\|>|^\s*(?:system"
            r"|assistant)\s*:|#{2,}\s*(?:system|instruction)",
        ),
        (
            "safety bypass",
            r"\b(?:bypass|disable|turn off|ignore|remove)\s+(?:the\s+|your\s+|all\s+)?(?:safety"
            r"|filters?|guardrails|restrictions|content policy|permission checks?|acl"
            r"|access control)",
        ),
        (
            "scope change",
            r"\b(?:change|set|switch|move)\s+(?:my\s+|the\s+|this\s+)?(?:scope|user_?id|user id"
            r"|tenant|acl|role|permissions?)\s+(?:to|=)",
        ),
        (
            "scope change",
            r"\b(?:save|store|write|remember|copy)\s+(?:this|it|that)?\s*(?:for|to|in"
            r"|into)\s+(?:all users|every user|everyone'?s?|user \w+'?s?|\w+'s memory"
            r"|the global memory|global memory)",
        ),
        (
            "obedience",
            r"\b(?:always|must)\s+(?:obey|comply with)\b|\bno (?:restrictions|rules"
            r"|limits) (?:apply|anymore)\b|\bwithout any (?:restrictions|rules|limits)\b",
        ),
        (
            "override instructions",
            r"(?:忽略|无视|忘记|忘掉|不要理会|不用管)(?:掉)?(?:之前|以上|上面|前面|先前|所有|你的|原来的|系统)(?:的)?(?:所有|全部)?(?:指令"
            r"|指示|规则|提示词?|设定|限制|要求)",
        ),
        (
            "role escalation",
            r"你现在是(?:一个|一名)?(?:管理员|超级管理员|超级用户|root|系统|开发者模式|不受限制)|你(?:已经)?没有(?:任何)?限制(?![我他她你])",
        ),
        ("privilege claim", r"我是(?:这个)?(?:系统的?)?(?:超级)?(?:管理员|root|超级用户)"),
        (
            "permission grant",
            r"(?:给|授予|赋予|开放|分配)(?:我|用户\w+)(?:.{0,8})(?:权限|访问权|管理员)|(?:提升|提高)(?:我的)?权限",
        ),
        (
            "cross-tenant access",
            r"(?:用户|账号)\s*\w+\s*的(?:数据|记忆|资料|信息|文件|聊天记录)|其他(?:用户|人)的(?:数据|记忆|资料|信息)|所有用户的",
        ),
        ("mode switch", r"(?:进入|开启|启用|切换到)(?:开发者|管理员|调试|越狱|上帝)模式"),
        (
            "system prompt",
            r"(?:系统提示词?|系统指令|系统消息)(?:.{0,6})(?:泄露|告诉我|显示|修改|覆盖|替换|输出|发给我)|(?:泄露|告诉我|显示|修改|覆盖|替换"
            r"|输出)(?:你的)?(?:系统提示词?|系统指令)",
        ),
        (
            "safety bypass",
            r"(?:绕过|关闭|解除|禁用|取消)(?:.{0,6})(?:安全|过滤|审查|限制|权限|访问控制)",
        ),
        (
            "scope change",
            r"(?:把|将)(?:我的)?(?:作用域|scope|用户\s*id|租户|权限|角色)(?:改|设|切换)(?:成|为|到)",
        ),
        (
            "scope change",
            r"(?:保存|存|写入|记)(?:到|给|进)(?:所有用户|每个用户|全局|用户\w+的?记忆)",
        ),
        ("new instructions", r"新的?(?:系统)?指令[:：]|以下是(?:新的)?系统指令"),
        # -- widening the assistant's permissions over other people's data (en)
        ("permission grant", rf"(?:{_GRANT_EN})\b.{{0,60}}?(?:{_SCOPE_EN})"),
        # -- identity claims (en)
        (
            "identity claim",
            rf"\bmy\s+(?:user[\s_-]?id|userid|uid|account[\s_-]?id|tenant(?:[\s_-]?id)?"
            rf"|org(?:anization|anisation)?[\s_-]?id|scope|acl|access level|clearance"
            rf"|permissions?)\s*(?:is|are|=|:|has been set to|should be)\b"
            rf"|\bmy\s+(?:role|account|user)\s*(?:is|=|:|has been set to|should be)\s+"
            rf"(?:now\s+)?(?:an?\s+|the\s+)?{_ADMIN_CLAIM_EN}\b",
        ),
        (
            "identity claim",
            rf"\b(?:treat|consider|regard|recogni[sz]e|see|handle|address)\s+me\s+(?:(?:as|like)\s+)?"
            rf"(?:an?\s+|the\s+|your\s+)?(?:{_ADMIN_ROLE_EN}|another user|(?:user|tenant)\s+\S+)\b"
            rf"|\b(?:i am|i'm|im)\s+(?:now\s+|actually\s+|really\s+)?(?:logged in|signed in"
            rf"|authenticated|acting|operating)\s+as\b"
            rf"|\b(?:i am|i'm|im)\s+(?:now\s+|actually\s+|really\s+)?(?:user|tenant|account)"
            rf"\s+[\w.-]+(?:\s+now)?\s*[.!]?$"
            rf"|\b(?:i am|i'm|im)\s+(?:now\s+|actually\s+|really\s+)?(?:the\s+|an?\s+)?"
            rf"{_ADMIN_CLAIM_EN}\s*(?:[,.;!]|$|now\b|here\b|so\b)"
            rf"|\b(?:i am|i'm|im)\s+(?:now\s+|actually\s+|really\s+)?(?:the\s+)?owner of"
            rf"\s+(?:this (?:system|server|assistant|app|tenant)|every|all|each)\b"
            rf"|\b(?:i|my account|my user|my role)\s+(?:have|has|hold|holds|got)\s+(?:the\s+)?"
            rf"(?:(?:admin|administrator|root|superuser|super user|elevated|owner|god)\s+"
            rf"(?:privileges?|rights|permissions?|access|role|powers?|mode)"
            rf"|(?:full|unrestricted|complete|all)\s+(?:admin\s+)?(?:privileges|rights"
            rf"|permissions))\b",
        ),
        # -- removal of the assistant's restrictions (en)
        (
            "restriction removal",
            r"\b(?:you|u|the assistant|assistant|the ai|the bot|the model)\s+(?:now\s+|will\s+)?"
            r"(?:have|has|are|is|operate|work|act|answer|run)\s+(?:now\s+)?(?:no|without(?: any)?"
            r"|free (?:of|from)(?: all| any)?)\s+(?:more\s+)?(?:restrictions?|limits?|limitations?"
            r"|rules|boundaries|filters?|guardrails|policies|censorship|constraints)\b"
            r"|\b(?:you|u|the assistant|assistant|the ai)\s+(?:are|is)\s+(?:now\s+)?"
            r"(?:unrestricted|unfiltered|uncensored|unbound|unlimited|jailbroken|free to do"
            r" anything)\b"
            r"|\b(?:your|the assistant's|all|any|these|the)\s+(?:restrictions|rules|limits"
            r"|limitations|policies|guidelines|filters|guardrails)\s+(?:no longer|don't|do not"
            r"|won't|will not|doesn't|does not|shall not)\s+apply\b"
            r"|\b(?:content|safety|moderation|privacy|ethics?|ethical|usage|the assistant's"
            r"|your)\s+"
            r"(?:filters?|rules|restrictions|limits|policies|guidelines|guardrails|checks)"
            r"\s+(?:(?:no longer|don't|do not|won't|will not|doesn't|does not|shall not)\s+apply"
            r"|(?:are|is)\s+(?:now\s+)?(?:off|disabled|turned off|switched off|lifted|suspended"
            r"|waived|removed))\b"
            r"|\b(?:you )?(?:don't|do not|no longer|never) (?:have|need) to (?:follow|obey|respect"
            r"|comply with) (?:any|the|your|those|these)\b.{0,20}?\b(?:rules|instructions"
            r"|restrictions|policies|guidelines|limits)\b",
        ),
        # -- Chinese: grants over other people's data, identity claims, removal of limits
        (
            "permission grant",
            rf"(?:我|本人|你|用户)(?:现在|以后|从现在起)?(?:有|拥有|具有|获得了?|被授予了?|被允许|可以|能够?"
            rf"|有权|允许)(?:了)?.{{0,12}}?{_ACCESS_ZH}.{{0,8}}?{_SCOPE_ZH}的"
            rf"|(?:我|本人)(?:有|拥有|具有|获得了?|被授予了?).{{0,16}}?{_SCOPE_ZH}.{{0,10}}?"
            rf"(?:权限|权利|访问权|的权)"
            rf"|(?:我|本人|你)(?:可以|能够?|有权|被允许).{{0,6}}?(?:把|将)?{_SCOPE_ZH}的"
            rf"|允许我{_ACCESS_ZH}|(?:我|我的账号|我的账户)(?:有|拥有|具有)(?:管理员|超级|root|最高|全部|所有"
            rf"|完全|无限制的?)(?:的)?(?:权限|访问权)",
        ),
        (
            "identity claim",
            rf"(?:把|将)我(?:当成|当作|当做|视为|看作|看成|认作|作为)(?:是)?(?:一个|一名|你的)?"
            rf"(?:{_ADMIN_ROLE_ZH}|其他用户|别的用户|用户\s*\S+)"
            rf"|我(?:就|其实|现在)?是(?:这里的|本系统的|系统的|你的)?{_ADMIN_CLAIM_ZH}"
            rf"|我的(?:用户\s*id|用户编号|user[\s_-]?id|uid|账号\s*id|账户\s*id|租户(?:\s*id)?"
            rf"|作用域|权限)(?:是|为|=|:|改成|改为|设为)"
            rf"|我的(?:角色|账号|账户|身份)(?:是|为|改成|改为|设为){_ADMIN_CLAIM_ZH}"
            rf"|我(?:就|其实|现在)?是用户\s*[\w.-]+|以(?:管理员|root|超级用户)(?:的)?(?:身份|权限)",
        ),
        (
            "restriction removal",
            r"不受(?:任何)?(?:限制|约束|规则)|你(?:现在|以后|从现在起)?(?:已经)?(?:没有|无)(?:任何)?"
            r"(?:限制|约束|规则|底线)(?![我他她你])|(?:不用|不必|不需要|无需)(?:再)?(?:遵守|遵循|服从|理会|管)(?:任何|那些|你的)?"
            r"(?:规则|限制|指令|规定|政策)|(?:忽略|无视|忘记|忘掉)(?:掉)?(?:之前|以前|先前|上面|前面|所有)(?:的)?"
            r"(?:所有)?(?:指令|指示|规则|限制|要求|设定)|(?:限制|规则)(?:已经|都)?(?:不再|不)(?:适用|有效)"
            r"|(?:你的|这些|那些|所有)?(?:规则|限制|规定|约束)对我(?:来说)?(?:无效|不适用|没用|不起作用)",
        ),
        # -- another person's conversation with the assistant is their data, whoever asks
        (
            "cross-user disclosure",
            rf"\b(?:tell|show|give|send|forward|read|repeat)\s+me\s+(?:everything\s+|all\s+|what(?:ever)?"
            rf"\s+|anything\s+)?(?:that\s+)?(?!(?:i|we|you)\b){_OTHER_PERSON_EN}\s+(?:has\s+|have\s+"
            rf"|had\s+)?(?:told|said to|shared with|wrote to|sent|asked|confided (?:in|to))\s+you\b"
            rf"|\b(?!(?:i|we|you)\b){_OTHER_PERSON_EN}\s+(?:has\s+|have\s+)?(?:told|said to"
            rf"|shared with|confided in)\s+you\b.{{0,40}}?\b(?:tell|show|give|send|share)\s+"
            rf"(?:it\s+|them\s+)?(?:to\s+|with\s+)?me\b",
        ),
        (
            "cross-user disclosure",
            rf"(?:告诉|发给|转给|给)我(?:听|看)?.{{0,4}}?{_OTHER_PERSON_ZH}(?:跟|和|对|给)你"
            rf"(?:说|讲|聊|提|发)"
            rf"|{_OTHER_PERSON_ZH}(?:跟|和|对|给)你(?:说|讲|聊|提|发)(?:过|了)?的"
            rf"(?:话|内容|事|东西|消息|记录)?.{{0,8}}?(?:告诉|发给|转给|给)我",
        ),
        (
            "identity claim",
            r"我(?:就|其实|现在)?是你的(?:开发者|开发人员|创造者|创建者|作者|主人|管理员|训练者|程序员)",
        ),
    )
)


def _matching_forms(text: str) -> tuple[str, ...]:
    """The normalised forms of ``text`` the patterns are tried on: invisible characters
    removed ("ig\u200bnore" → "ignore") and, when there were any, replaced by a space (an
    invisible character used as the only separator between two words)."""
    forms = [normalize_for_matching(text)]
    spaced = normalize_for_matching("".join(" " if c in INVISIBLE_CHARS else c for c in text))
    if spaced != forms[0]:
        forms.append(spaced)
    return tuple(forms)


def detect_injection(text: str) -> str | None:
    """Why ``text`` looks like an attempt to grant permissions, change who the user is or
    whose data is visible, lift the assistant's restrictions, or change its instructions
    through memory; ``None`` otherwise.

    The patterns are matched on :func:`~langgraph_memory.core.text.normalize_for_matching`
    forms of ``text``, so zero-width/bidi characters, full-width letters and Cyrillic/Greek
    look-alikes do not hide an attempt. A pattern set cannot prove the absence of every
    paraphrase: it is tested against a labelled set (``tests/data/injection_set.json``) of
    attacks that must be flagged and benign look-alikes (restrictions, names, jobs, the
    user's own permissions) that must not be."""
    for form in _matching_forms(text):
        for name, pattern in _INJECTION:
            if pattern.search(form):
                return name
    return None


def is_hedged(text: str) -> bool:
    """True when ``text`` is tentative ("maybe", "I think", "可能", "我再想想", "先这样"...)."""
    return bool(_HEDGE_EN.search(text) or _HEDGE_ZH.search(text))


_ABBREVIATION = re.compile(r"(?i)\b(Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|No|approx)\.\s+")


def split_clauses(text: str) -> list[str]:
    """Sentence-level clauses (keeps commas, so "不是X，是Y" stays together; "Dr. Lee" is
    not a sentence end)."""
    protected = _ABBREVIATION.sub(lambda m: m.group(1) + ".\x00", text)
    return [
        c.strip().replace("\x00", " ") for c in _CLAUSE_SPLIT.split(protected) if c and c.strip()
    ]


# ---------------------------------------------------------------------- helpers
_MAX_OBJECT = 120
"""Longest object a rule accepts: a fact's value is short; longer text is not a fact."""
_QUESTION = re.compile(
    r"(?i)^(?:do|does|did|am|is|are|was|were|what|which|who|whom|whose|why|how|where|when"
    r"|should|can|could|would|will)\b.*[?？]\s*$"
    r"|^(?:do|does|did|am|is|are|was|were|can|could|should|would|will)\s+"
    r"(?:i|you|we|they|he|she|it|my|your)\b(?!\s+not\b)"
    r"|^(?:what|which|who|whose|why|how|where|when)\b.*\b(?:do|does|did|is|are|am|was|should)\s+"
    r"(?:i|you|we|my|your)\b"
    r"|[吗呢][?？]?\s*$|(?:什么|哪个|哪种|哪里|为什么|怎么|如何|谁).*[?？]\s*$"
)
_FROM_NOW_ON = re.compile(
    r"(?i)\b(?:from now on|going forward|in (?:the )?future)\b|以后|今后|从现在(?:开始|起)|往后"
)
_REMEMBER = re.compile(r"(?i)\b(?:remember|note|keep in mind|don't forget)\b|记住|记一下|记得")
_FIRST_PERSON_PREF = re.compile(
    r"(?i)\bi\s+(?:\w+\s+)?(?:prefer|like|love|enjoy|want you to)\b"
    r"|我.{0,4}(?:喜欢|偏好|偏爱|习惯|希望)"
)


def _first_hit(body: str) -> _Hit | None:
    """The hit of the first rule that matches ``body`` with a usable object."""
    stated = bool(_FIRST_PERSON_PREF.search(body))
    for pattern, builder in _RULES:
        m = pattern.search(body)
        if m is None:
            continue
        hit = builder(m, stated)
        if hit is not None and hit.object and len(hit.object) <= _MAX_OBJECT:
            return hit
    return None


def _short_value(value: str) -> bool:
    """A bare value a correction can stand for ("Rust", "Lille", "李四")."""
    if re.search(r"[\u4e00-\u9fff]", value):
        return len(value) <= 12
    return len(value.split()) <= 4


_CONTRAST_EN = re.compile(
    r"(?i)^(?P<stmt>.+?)(?:,\s*|\s+)(?:not|rather than|instead of)\s+(?P<x>[^,]+?)$"
)
_NOT_A_VALUE = re.compile(
    r"(?i)^(?:even|at all|really|just|yet|now|anymore|always|ever|so|that|too|quite|exactly"
    r"|much|only|necessarily|sure|again|once)\b"
)
"""What may follow ", not" without naming a replaced value ("not even once", "not at all")."""
_CONTRAST_ZH = re.compile(
    r"^(?P<stmt>.+?)[，,]\s*(?:而)?(?:不是|不用|而不是|不再用)(?P<x>[^，,]+)$"
)

_TRAIL = re.compile(
    r"(?i)[\s,.;:!?，。；：！？~…]+$|\s+(?:please|thanks|thank you|from now on|going forward|"
    r"in the future|for me|all the time|instead|too|as well|anymore|now|these days)$|"
    r"(?:吧|哦|啊|呢|了|哈|呀|啦|嘛|就行|就好|就可以|谢谢)$"
)
_LEAD = re.compile(r"(?i)^(?:to\s+|using\s+|use\s+|the\s+|a\s+|an\s+|用|使用|喝|吃|都|也)")
_PRONOUNS = re.compile(
    r"(?i)^(?:it|that|this|them|those|these|you|your\b.*|yours|him|her|this one|that one|"
    r"[你这那它他她].*|this answer|that idea|this one|that one)$"
)
_CHITCHAT_OBJECTS = re.compile(
    r"(?i)^(?:worry|mind|bother|be (?:silly|sorry)|forget|panic|rush|hesitate|(?:ever )?give up"
    r"|(?:ever )?quit|担心|客气|"
    r"着急|急|紧|介意|怕|慌|见外|难过|谢|忘|加油|放弃|闹|哭)"
)
_REFERENTIAL = re.compile(
    r"(?i)\b(?:that|this|it|those|these|them|him|her)\b|这样|那样|这个|那个|这些|那些"
)
"""An instruction about "that"/"这个"/"them" only makes sense next to what it points at."""
_ONE_OFF = re.compile(
    r"(?i)\b(?:this time|this once|for this (?:one|answer|question|reply)|in this "
    r"(?:answer|reply|response|one)|right now|just now)\b"
    r"|这次|这一次|这回|本次|此次|这个回答|先不要"
)
"""Markers of an instruction for the current turn only: working memory, not a constraint."""


def _clean(obj: str) -> str:
    obj = obj.strip().strip("\"'“”‘’「」")
    for _ in range(4):
        new = _TRAIL.sub("", obj).strip()
        new = _LEAD.sub("", new).strip() if len(new) > 2 else new
        if new == obj:
            break
        obj = new
    return obj


def _canon_constraint(obj: str) -> str:
    """The canonical name when the object *is* a known alias ("emojis", "表情符号"); otherwise
    the object itself, lower-cased (so "markdown tables in replies" keeps its detail)."""
    lowered = obj.strip().lower()
    for canonical, aliases in CONSTRAINT_OBJECTS.items():
        if lowered in aliases:
            return canonical
    return lowered


@dataclass(frozen=True, slots=True)
class _Hit:
    subject: str
    predicate: str
    object: str
    kind: str
    explicit: bool = False
    multi_valued: bool = False
    confidence: float = 0.9
    scope_level: str = "user"
    corrects: str | None = None
    retract: bool = False
    also: tuple[_Hit, ...] = ()
    """Further facts stated in the same words ("at Acme as a data engineer": the occupation
    next to the employer)."""


Builder = Callable[[re.Match[str], bool], "_Hit | None"]
"""A rule's builder: (match, stated-as-first-person-preference) → hit or None."""


def _pref(obj: str, *, explicit: bool, confidence: float = 0.9) -> _Hit | None:
    """A preference for ``obj``, its predicate chosen by topic."""
    obj = _clean(obj)
    if not obj or _PRONOUNS.match(obj) or len(obj) > 80:
        return None
    lang = language_of(obj)
    if lang and (
        re.fullmatch(
            r"(?i)(?:to\s+)?(?:speak|use|write in|talk in|answers? in|replies in|the)?\s*\w+", obj
        )
        or re.search(r"(?i)answer|repl|respon|回答|回复|交流|沟通|说话", obj)
        or len(obj) <= 4
    ):
        return _Hit(
            "user", "answer_language", lang, "preference", explicit=explicit, confidence=confidence
        )
    topic = topic_of(obj)
    if topic:
        value = topic_surface(obj, *topic)[0]
        return _Hit("user", topic[0], value, "preference", explicit=explicit, confidence=confidence)
    return _Hit(
        "user",
        "likes",
        bound_liking(obj).lower(),
        "preference",
        explicit=explicit,
        multi_valued=True,
        confidence=confidence,
    )


_NUMBER = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several"
    r"|many)"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PERIOD = r"(?:days?|weeks?|months?|years?|decades?)"
_TIME_TAIL_EN = re.compile(
    r"(?i)\s+(?:"
    r"(?:last|this|next|past|earlier this|late last|early last)\s+(?:week|month|year|summer"
    r"|winter|spring|fall|autumn|weekend|quarter|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)"
    r"|yesterday|today|tonight|recently|lately|earlier|these days|nowadays|right now|now"
    r"|at the moment|currently|already"
    rf"|(?:since|from|back in|as of|starting|starting in|until|till|in)\s+(?:\d{{4}}|{_MONTH}\b"
    r"|last\s+\w+|then|childhood|college|school)"
    rf"|{_NUMBER}\s+{_PERIOD}\s+ago|(?:for|over)\s+(?:the\s+(?:last|past)\s+)?{_NUMBER}"
    rf"\s+{_PERIOD}|(?:a\s+)?(?:few|couple of)\s+{_PERIOD}\s+ago"
    r")\b.*$"
)
"""A time expression ending a value ("Berlin last month", "Paris since 2020"): never part of
it."""
_QUALIFIER_TAIL_EN = re.compile(
    r"(?i)\s+(?:with|because|since|where|which|who|near|after|before|so that|so|for"
    r"|to\s+(?:be|work|study|live|join)|and\s+(?:i|my|we|it)|but)\b.*$"
)
"""What follows a place or an organisation ("Munich with my wife", "Berlin for work")."""
_ROLE_TAIL_EN = re.compile(r"(?i)^(?P<head>.+?)\s+as\s+(?:an?\s+|the\s+|our\s+)?(?P<role>.+)$")
_ORG_TAIL_EN = re.compile(r"(?i)^(?P<head>.+?)\s+(?:at|for|with)\s+(?P<org>.+)$")
_SPAN_PREDICATES = frozenset({"location", "hometown", "employer", "occupation"})
"""Predicates whose value is a place, an organisation or a job: qualifier tails are cut."""


def _is_time_valued(predicate: str) -> bool:
    """True when the value itself is a time ("June 3rd", "Fridays"): no time words are cut."""
    return predicate in {"birthday", "deadline", "age"} or predicate.endswith(
        ("birthday", "_day", "_date", "anniversary", "_time")
    )


def _bound(predicate: str, value: str) -> str:
    """The shortest span of ``value`` that is the value of ``predicate``: trailing time
    expressions ("last month", "since 2020"; for places, organisations and jobs also Chinese
    ones: "上个月") and, for those, trailing qualifiers ("with my wife", "for work") removed;
    a budget is its money amount ("around 3k for the bike" → "3k"), a deadline its date."""
    if predicate in {"budget", "deadline"}:
        from .spans import DUE_DATE, MONEY

        pattern = MONEY if predicate == "budget" else DUE_DATE
        found = pattern.search(value)
        return found.group().strip() if found else value
    if _is_time_valued(predicate):
        return value
    if predicate in _NAME_PREDICATES:
        called = _CALLED.search(value)  # "a fintech called Lumen Pay": the name it is called
        value = called.group("name") if called else value
    if re.search(r"[\u4e00-\u9fff]", value):
        value = _TIME_TAIL_EN.sub("", value).strip()  # "上海 last month"
        if predicate not in _SPAN_PREDICATES:
            return value
        value = "".join(w for w, _ in strip_time(zh_words(value))) or value
        return zh_city(value) if predicate in {"location", "hometown"} else value
    value = _TIME_TAIL_EN.sub("", value).strip()
    if predicate in _SPAN_PREDICATES:
        value = _QUALIFIER_TAIL_EN.sub("", value).strip()
    if predicate in _NAME_PREDICATES:
        value = proper_span(value)
    return value


_CALLED = re.compile(
    r"(?i)^(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}?(?:called|named)\s+(?P<name>\S.*)$"
)
_NAME_PREDICATES = frozenset({"location", "hometown", "employer"})
"""Predicates whose value is a proper name (a place, an organisation)."""
_NAME_LINKS = frozenset({"of", "and", "&", "de", "del", "da", "do", "du", "upon", "on", "la", "le"})
"""Lowercase words inside a proper name, when a capitalised word follows ("Bosnia and
Herzegovina", "Stratford upon Avon", "Rio de Janeiro", "Procter & Gamble")."""


_NAME_HEADS = frozenset(
    {
        "hospital", "university", "college", "school", "bank", "clinic", "labs", "lab", "inc",
        "ltd", "group", "studio", "studios", "airlines", "institute", "center", "centre",
        "foundation", "museum", "library", "city", "county", "valley", "beach", "island",
    }
)  # fmt: skip
"""Lowercase words that end a name as its head noun ("St. Mary's hospital")."""


def proper_span(value: str) -> str:
    """The proper name ``value`` starts with, as an English noun phrase ends: at the first
    lowercase word that does not link two capitalised words ("Denver in the spring" →
    "Denver", "Porto and work" → "Porto", "Acme as a data engineer" → "Acme"). A value that
    does not start with a capital (typed in lowercase) is returned unchanged."""
    words = value.split()
    if not words or not re.match(r"[A-Z0-9]", words[0]) or not value.isascii():
        return value
    keep = 1
    while keep < len(words):
        word = words[keep]
        if words[keep - 1].endswith(","):
            break  # "Berlin, Germany": the place, then the region it is in
        if re.match(r"[A-Z0-9]", word) or word.lower().rstrip(",.;:!?") in _NAME_HEADS:
            keep += 1
        elif word in _NAME_LINKS and keep + 1 < len(words) and re.match(r"[A-Z]", words[keep + 1]):
            keep += 2
        else:
            break
    return " ".join(words[:keep]).rstrip(",.;:!?")


_GENERIC_PLACE = re.compile(
    r"(?i)^(?:[a-z]+\s+){0,2}(?:home|house|apartment|flat|place|office|city|town|country|area"
    r"|neighbou?rhood|building|room|job|team|cloud|school|myself|remotely"
    r"|remote|overseas|abroad)$"
)
"""A lowercase common noun ("a new apartment", "the cloud", "home", "myself"): somewhere or
someone, but no place or organisation name."""


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
    from .slots import said_timezone

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
    obj = _clean(_ONE_OFF.sub("", obj))  # "this time" marks the candidate, not the object
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


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first (so "简体中文" wins over "中文")."""
    return "(?:" + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)) + ")"


_LANG_WORDS = _alternation(a for aliases in LANGUAGES.values() for a in aliases if a.isascii())
_ZH_LANGS = _alternation(a for aliases in LANGUAGES.values() for a in aliases if not a.isascii())
_OCC_EN = (
    r"(?:engineer|developer|programmer|teacher|doctor|nurse|designer|student|scientist|manager|"
    r"lawyer|analyst|researcher|writer|accountant|consultant|architect|professor|chef|pilot|"
    r"product manager|data scientist|freelancer)"
)
_OCC_ZH = (
    r"(?:工程师|程序员|老师|教师|医生|护士|设计师|学生|研究生|博士生|大学生|经理|律师|研究员|分析师|"
    r"会计|作家|架构师|教授|厨师|自由职业者|实习生|总监|主管|顾问|运维|编辑|记者|销售|开发)"
)

_ZH_SINCE = r"最近|今年|(?:\d{4}年|去年|前年|上个?月)(?:起|开始|以来)"
"""A time adverbial that keeps a state current ("我2020年起住在苏州")."""
_ZH_TIME = (
    rf"{_ZH_SINCE}|上个?月|上周|上星期|上个?礼拜|去年|前年|刚刚?|前几天|前段时间|昨天|前天"
    r"|\d{4}年|[一二三四五六七八九十两几\d]+(?:个月|年|周|天)前"
)
"""A time adverbial before a move ("我上个月搬到了杭州": the move is past, the place is
current). Before 住/在…工作 only :data:`_ZH_SINCE` is read: "我去年在深圳工作" is a former
job."""
_NOT_A_NAME = (
    r"at|on|back|later|tomorrow|tonight|today|anytime|any time|when|whenever|if|after|before"
    r"|by|via|in|about|for|to|sometime|again|now|soon|asap|maybe|please|up|once|around"
    r"|between|from|or|and|with|the|a|an|every|this|next|here|there|first|directly"
)
"""Words after "call me" that start a time or a number, never a name ("call me at …")."""
_PROJECT_EN = (
    r"(?:project|team|app|application|service|repo|repository|codebase|product|company|squad"
    r"|group|org|department|dev team|engineering team|stack)"
)
_ATTR_EN = _alternation(w for words in ATTRIBUTES.values() for w in words if w.isascii())
_ATTR_ZH = _alternation(w for words in ATTRIBUTES.values() for w in words if not w.isascii())
_WEEKDAY_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_DAY_EN = (
    rf"(?:{_WEEKDAY_EN}|weekdays|weekends?)(?:\s+(?:mornings?|afternoons?|evenings?|nights?))?"
    rf"(?:\s*(?:,|and|&|or)\s*{_WEEKDAY_EN})*"
)
_LIMIT_UNDER = ("under", "below", "less than", "fewer than", "shorter than")
_LIMIT_CMP = (
    r"(?:under|below|less than|fewer than|shorter than|within|at most|no more than"
    r"|no longer than|not more than|max(?:imum)?(?: of)?|up to|to)"
)
_LIMIT_UNIT = (
    r"(?:words?|sentences?|lines?|characters?|chars|paragraphs?|bullet points?|bullets?|tokens?)"
)
_RELATIONS: dict[str, str] = {
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "dad": "father",
    "father": "father",
    "wife": "wife",
    "husband": "husband",
    "partner": "partner",
    "spouse": "spouse",
    "son": "son",
    "daughter": "daughter",
    "kid": "child",
    "child": "child",
    "baby": "baby",
    "brother": "brother",
    "sister": "sister",
    "boyfriend": "boyfriend",
    "girlfriend": "girlfriend",
    "fiance": "fiance",
    "fiancee": "fiancee",
    "grandma": "grandmother",
    "grandmother": "grandmother",
    "grandpa": "grandfather",
    "grandfather": "grandfather",
    "uncle": "uncle",
    "aunt": "aunt",
    "cousin": "cousin",
    "niece": "niece",
    "nephew": "nephew",
    "best friend": "best_friend",
    "friend": "friend",
    "roommate": "roommate",
    "boss": "boss",
    "manager": "manager",
    "dog": "dog",
    "cat": "cat",
    "女儿": "daughter",
    "儿子": "son",
    "老婆": "wife",
    "妻子": "wife",
    "太太": "wife",
    "爱人": "spouse",
    "老公": "husband",
    "丈夫": "husband",
    "妈妈": "mother",
    "母亲": "mother",
    "爸爸": "father",
    "父亲": "father",
    "哥哥": "brother",
    "弟弟": "brother",
    "姐姐": "sister",
    "妹妹": "sister",
    "男朋友": "boyfriend",
    "女朋友": "girlfriend",
    "孩子": "child",
    "宝宝": "baby",
    "爷爷": "grandfather",
    "奶奶": "grandmother",
    "外公": "grandfather",
    "外婆": "grandmother",
    "老板": "boss",
    "领导": "boss",
    "猫": "cat",
    "狗": "dog",
}
"""The user's people (and pets) as the first half of a free predicate ("daughter_birthday")."""
_ATTRIBUTES_ZH: dict[str, str] = {
    "生日": "birthday",
    "名字": "name",
    "学校": "school",
    "工作": "job",
    "职业": "occupation",
    "年龄": "age",
    "公司": "employer",
    "爱好": "hobby",
    "血型": "blood_type",
    "星座": "zodiac_sign",
}
_RELATION_EN = _alternation(k for k in _RELATIONS if k.isascii())
_RELATION_ZH = _alternation(k for k in _RELATIONS if not k.isascii())
_ATTRIBUTE_ZH = _alternation(_ATTRIBUTES_ZH)
_ROUTINES: dict[str, str] = {
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
    rel = _RELATIONS.get(m.group("rel").lower(), m.group("rel").lower())
    raw = attribute or m.group("attr")
    if _EVENT_WORDS.search(raw):
        return None  # "my daughter's birthday party is on Saturday": an event, not a fact
    attr = _ATTRIBUTES_ZH.get(raw) or re.sub(r"\W+", "_", raw.lower()).strip("_")
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
_RULES: list[tuple[re.Pattern[str], Builder]] = []


def _rule(pattern: str, flags: int = re.IGNORECASE) -> Callable[[Builder], Builder]:
    """Register a rule: ``pattern`` searched in a clause part, ``builder`` turns the match
    into a hit. Rules are tried in registration order; the first hit wins."""
    compiled = re.compile(pattern, flags)

    def register(fn: Builder) -> Builder:
        _RULES.append((compiled, fn))
        return fn

    return register


# --- project-scope facts ------------------------------------------------------------
_rule(
    r"^(?:in\s+)?(?:this|our|the)\s+(?:project|repo|repository|codebase|app|service|team)(?:'s)?\s+"
    r"(?:uses|is using|is written in|is built (?:with|on)|runs (?:on|in)|targets|depends on"
    r"|requires|deploys to|stores data in|is hosted (?:in|on)|is deployed (?:in|to|on)"
    r"|lives in)\s+(?P<o>.+)$"
)(lambda m, e: _project(m))
_rule(
    r"^(?:in|for) (?:this|our) (?:project|repo|codebase),?\s*we (?:use|are using|write"
    r"|deploy (?:to|on))\s+(?P<o>.+)$"
)(lambda m, e: _project(m))
_rule(
    r"^(?:在)?(?:这个|我们的?|本|咱们的?)(?:项目|仓库|代码库|团队|服务|系统)(?:里|中)?"
    r"(?:的(?P<attr>[\u4e00-\u9fffA-Za-z]{1,8}?))?(?:都|统一|现在|目前)?"
    r"(?:用的是|使用的是|采用的是|写的是|用|使用|采用|基于|依赖|部署在|运行在|跑在)(?P<o>.+)$"
)(lambda m, e: _project(m))
_rule(
    rf"^(?:our|the|this)\s+(?:(?P<who>{_PROJECT_EN})(?:'s)?\s+)?(?P<attr>{_ATTR_EN})\s+"
    r"(?:is now|is still|is|has moved to|moved to|switched to|runs on|is on)\s+(?P<o>.+)$"
)(lambda m, e: _attribute(m))
_rule(
    rf"^(?:we|our\s+(?P<who>{_PROJECT_EN}))(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+"
    r"|now\s+|already\s+)?(?P<verb>switched|moved|migrated|changed|upgraded|relocated)\s+"
    rf"(?:(?:our|the)\s+(?P<attr>{_ATTR_EN})\s+)?(?:over\s+)?(?:from\s+(?P<x>.+?)\s+)?to\s+(?P<o>.+)$"
)(lambda m, e: _switch(m))
_rule(
    r"^(?:(?:我们|咱们)的?)?(?:(?:这个|本)?(?P<who>项目|仓库|代码库|团队|服务|系统)的?)?(?:已经|现在|早就)?"
    rf"(?:把)?(?P<attr>{_ATTR_ZH})(?:已经|现在|早就|刚刚?|都|也)?(?:从(?P<x>[^，,]+?))?"
    r"(?:换成了?|改成了?|改用了?|换到了?|迁移到了?|迁到了?|切换到了?|切到了?|升级到了?|升级成了?|变成了?"
    r"|改为|换为)(?P<o>.+)$",
    0,
)(lambda m, e: _switch(m))
_rule(
    rf"^(?:we|our\s+(?P<who>{_PROJECT_EN})|our\s+(?:servers?|infra(?:structure)?|stack|workloads?"
    r"|clusters?))(?:'re|\s+are|\s+is)?\s+(?:(?:all|now|currently|mostly|still)\s+)*(?:running|run|runs"
    r"|hosted|host|deployed|deploy|deploys|living|live|lives|located|based)?\s*"
    r"(?:in|on|to|out of)\s+"
    r"(?P<o>.+)$"
)(lambda m, e: _region(m))
_rule(
    rf"^(?:(?:our|the|my)\s+(?P<who>{_PROJECT_EN})|we)\s+(?:(?:usually|always|only|typically"
    r"|normally|generally)\s+)?(?:(?P<verb>deploy|release|ship|meet)(?:s|es)?|(?:have|has|hold|holds"
    r"|do|does)\s+(?:our\s+|the\s+|a\s+)?(?P<event>stand-?ups?|retros?|retrospectives?|planning"
    r"|demos?|meetings?|releases?|deploy(?:ment)?s?))\s+(?:to\s+prod(?:uction)?\s+)?(?:on|every)\s+"
    rf"(?P<o>{_DAY_EN})\b"
)(lambda m, e: _routine(m))
_rule(
    r"^(?:我们|咱们)(?P<who>团队|项目|项目组|组|公司|部门)?(?:一般|通常|都|只|固定)?(?:在)?(?:每个?)?"
    r"(?P<o>(?:周|星期|礼拜)[一二三四五六日天](?:上午|下午|晚上)?|周末|工作日)(?:都|统一|固定)?"
    r"(?P<verb>部署|发布|上线|发版|开例会|开周会|开会|开站会|站会|复盘)",
    0,
)(lambda m, e: _routine(m))
_rule(r"^(?:the\s+)?(?:project\s+)?deadline is (?P<o>.+)$")(
    lambda m, e: _Hit(
        "project", "deadline", _clean(m.group("o")), "constraint", scope_level="project"
    )
)
_rule(r"^(?:项目的?)?(?:截止日期|截止时间|deadline)(?:是|为|定在)(?P<o>.+)$")(
    lambda m, e: _Hit(
        "project", "deadline", _clean(m.group("o")), "constraint", scope_level="project"
    )
)

# --- answer language -------------------------------------------------------------------
_rule(
    rf"\b(?:answer|reply|respond|write|talk|speak|communicate|chat)(?:\s+(?:to"
    rf"|with)\s+me)?(?:\s+\w+){{0,2}}?\s+in\s+(?P<o>{_LANG_WORDS})\b"
)(lambda m, e: _answer_lang(m, e))
_rule(
    rf"\buse\s+(?P<o>{_LANG_WORDS})\s+(?:in|for|when)\s+(?:your\s+)?(?:answers|replies|responses"
    rf"|answering|replying)"
)(lambda m, e: _answer_lang(m, e))
_rule(
    rf"用(?P<o>{_ZH_LANGS})(?:来)?(?:回答|回复|交流|沟通|写|说|答复|和我|跟我|与我|给我|对话|聊)", 0
)(lambda m, e: _answer_lang(m, e))
_rule(
    rf"(?:回答|回复|说话|交流|答复)(?:我|你)?(?:都|请|要|一律|统一)?(?:用|使用|说)(?P<o>{_ZH_LANGS})",
    0,
)(lambda m, e: _answer_lang(m, e))
_rule(rf"^(?:请|麻烦)?说(?P<o>{_ZH_LANGS})", 0)(lambda m, e: _answer_lang(m, e))

# --- response length -----------------------------------------------------------------------
# A numeric limit ("under 100 words") is a rule the assistant must keep, stored as an
# assistant ``must`` constraint ("answers under 100 words"), not as the vaguer concise
# preference.
_rule(
    r"\b(?:keep|make|limit|cap)\s+(?:your\s+|the\s+|all\s+|my\s+|each\s+|every\s+)?(?:answers?"
    r"|responses?|replies|reply|messages?|it|them)\s+(?:to\s+(?=at most|no more|under|below|within"
    rf"|less|fewer|max))?(?P<cmp>{_LIMIT_CMP})\s+(?:about\s+|around\s+|roughly\s+)?(?P<n>\d+)\s+"
    rf"(?P<unit>{_LIMIT_UNIT})\b"
)(lambda m, e: _limit(m))
_rule(
    r"\b(?:answers?|responses?|replies)\s+(?:should|must|need to|have to)\s+(?:be\s+|stay\s+)?"
    rf"(?:kept\s+)?(?P<cmp>{_LIMIT_CMP})\s+(?P<n>\d+)\s+(?P<unit>{_LIMIT_UNIT})\b"
)(lambda m, e: _limit(m))
_rule(
    rf"^(?:please\s+)?(?P<cmp>no more than|at most|max(?:imum)?|under)\s+(?P<n>\d+)\s+"
    rf"(?P<unit>{_LIMIT_UNIT})\s+(?:per|in each|in every|for each|in an?)\s+"
    r"(?:answer|reply|response)"
)(lambda m, e: _limit(m))
_rule(
    r"(?:回答|回复|答案)(?:都|请|尽量)?(?:不要|不能|别|不得|不可以)?(?:超过|多于)(?P<n>\d+)个?"
    r"(?P<unit>字|词|句话|句|行|段)",
    0,
)(lambda m, e: _limit(m))
_rule(
    r"(?:回答|回复|答案)(?:都|请|尽量)?(?:控制在|限制在|保持在|少于)(?P<n>\d+)个?(?P<unit>字|词|句话|句|行|段)",
    0,
)(lambda m, e: _limit(m))
_rule(
    r"\b(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers|responses|replies|it)\s+(?P<o>short|shorter"
    r"|brief|concise|detailed|longer|thorough)"
)(
    lambda m, e: _Hit(
        "user",
        "response_length",
        "concise"
        if m.group("o").lower() in {"short", "shorter", "brief", "concise"}
        else "detailed",
        "preference",
        explicit=e,
    )
)
_rule(r"(?:回答|回复|答案)(?:要|请|尽量|都)?(?:更)?(?P<o>简洁|简短|精简|详细|详尽)", 0)(
    lambda m, e: _Hit(
        "user",
        "response_length",
        "concise" if m.group("o") in {"简洁", "简短", "精简"} else "detailed",
        "preference",
        explicit=e,
    )
)
_rule(r"\b(?:too long|too verbose|too wordy|shorter please|be more concise|be brief)\b")(
    lambda m, e: _Hit(
        "user", "response_length", "concise", "preference", explicit=e, confidence=0.8
    )
)
_rule(r"太长了|太啰嗦|太啰唆|简短一点|简洁一点|短一点", 0)(
    lambda m, e: _Hit(
        "user", "response_length", "concise", "preference", explicit=e, confidence=0.8
    )
)
_rule(r"\b(?:more details? please|too short|go into more detail|be more detailed)\b")(
    lambda m, e: _Hit(
        "user", "response_length", "detailed", "preference", explicit=e, confidence=0.8
    )
)
_rule(r"详细一点|详细点|具体一点|具体点|说详细些", 0)(
    lambda m, e: _Hit(
        "user", "response_length", "detailed", "preference", explicit=e, confidence=0.8
    )
)

# --- stable facts (user) ----------------------------------------------------------------------
_rule(
    rf"\b(?:my name is|my name's|call me(?!\s+(?:{_NOT_A_NAME})\b)|i'm called|i am called"
    rf"|you can call me(?!\s+(?:{_NOT_A_NAME})\b))\s+"
    r"(?P<o>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[\w'-]+(?:\s+[A-Z][\w'-]*)?)"
)(lambda m, e: _name(m.group("o")))
_rule(
    r"(?:我叫(?!了)|我的名字(?:是|叫)|叫我|我名字叫|我名叫"
    r"|我的名字改成了?)(?P<o>[\u4e00-\u9fffA-Za-z·]{1,12}?)(?=[，。,.!！?？\s]|就行|就好|就可以|吧|$)",
    0,
)(lambda m, e: _fact("name", m.group("o")))
_rule(r"\bmy\s+time\s*zone\s+is\s+(?P<o>.+)$")(lambda m, e: _tz(m))
_rule(
    r"\bi(?:'m| am)\s+in\s+(?:the\s+)?(?P<o>(?:utc|gmt)\s*[+-]\s*\d{1,2}(?::?\d{2})?|pst|pdt|est"
    r"|edt|cet|jst|ist|pacific time|eastern time)\b"
)(lambda m, e: _tz(m))
_rule(r"(?:我的)?时区(?:是|为|：|:|在)(?P<o>.+)$", 0)(lambda m, e: _tz(m))
_rule(r"我(?:用|在|按)(?P<o>北京时间|东八区|东京时间|美东时间|美西时间)", 0)(lambda m, e: _tz(m))
_rule(r"\bi(?:'m| am)\s+(?:a\s+|an\s+)?(?P<o>vegetarian|vegan|pescatarian)\b")(
    lambda m, e: _Hit("user", "diet", m.group("o").lower(), "constraint")
)
_rule(r"我(?:是|只)?(?:吃素|素食者|素食主义者|纯素食者|纯素)", 0)(
    lambda m, e: _Hit(
        "user", "diet", "vegan" if "纯素" in m.group(0) else "vegetarian", "constraint"
    )
)
_rule(r"\bi(?:'m| am)\s+allergic\s+to\s+(?P<o>.+)$")(
    lambda m, e: _fact("allergy", m.group("o"), kind="constraint", multi=True)
)
_rule(r"我对(?P<o>.+?)过敏", 0)(
    lambda m, e: _fact("allergy", m.group("o"), kind="constraint", multi=True)
)
_rule(r"\bi\s+(?:don't|do not|can't|cannot|never)\s+eat\s+(?P<o>.+)$")(
    lambda m, e: _fact("dietary_restriction", m.group("o"), kind="constraint", multi=True)
)
_rule(r"我(?:不能|不|从不)吃(?P<o>[^，,。]+)", 0)(
    lambda m, e: _fact("dietary_restriction", m.group("o"), kind="constraint", multi=True)
)
_rule(
    rf"\bi(?:'m| am)\s+(?:a|an)\s+(?P<o>(?:[\w-]+\s+){{0,3}}{_OCC_EN})\b"
    r"(?:\s+(?:at|for)\s+(?P<org>[^,]+))?"
)(lambda m, e: _occupation(m.group("o") + (f" at {m.group('org')}" if m.group("org") else "")))
_rule(r"\bi\s+work\s+as\s+(?:a|an)\s+(?P<o>.+)$")(lambda m, e: _occupation(m.group("o")))
_rule(rf"我是(?:一名|一个|一位|个|名)?(?P<o>[\u4e00-\u9fffA-Za-z]{{0,6}}?{_OCC_ZH})", 0)(
    lambda m, e: _fact("occupation", m.group("o"))
)
_rule(r"我的(?:职业|工作)是(?P<o>.+)$", 0)(lambda m, e: _fact("occupation", m.group("o")))
_rule(
    r"\bi\s+(?:work|am working|'m working|have worked|'ve worked|have been working"
    r"|'ve been working)\s+(?:at|for)\s+(?P<o>.+)$"
)(lambda m, e: _employer(m.group("o")))
_rule(
    rf"我(?:{_ZH_SINCE})?(?:现在|目前)?在(?P<o>(?!家)[\u4e00-\u9fffA-Za-z0-9]{{2,20}}?)(?:当|做|担任)"
    rf"(?P<r>[\u4e00-\u9fffA-Za-z]{{0,6}}?{_OCC_ZH})",
    0,
)(lambda m, e: _with_also(_zh_work(m.group("o")), _fact("occupation", m.group("r"))))
_rule(
    rf"我(?:{_ZH_SINCE})?(?:现在|目前)?在(?P<o>(?!家)[\u4e00-\u9fffA-Za-z0-9]{{2,20}}?)"
    r"(?:工作|上班|任职)",
    0,
)(lambda m, e: _zh_work(m.group("o")))
_rule(
    r"\bi\s+(?:live|am living|'m living|now live)\s+in\s+(?P<o>.+)$|\bi(?:'m"
    r"| am)\s+based\s+in\s+(?P<o2>.+)$|\bi(?:'ve| have)?\s*(?:just\s+)?moved\s+to\s+(?P<o3>.+)$"
    r"|\bi(?:'ve| have)\s+(?:been\s+)?(?:lived|living)\s+in\s+(?P<o4>.+)$"
)(lambda m, e: _fact("location", m.group("o") or m.group("o2") or m.group("o3") or m.group("o4")))
_rule(
    rf"我(?:{_ZH_TIME})?(?:已经)?(?:搬到了?|搬去了?|定居在?)(?P<o>[\u4e00-\u9fffA-Za-z]{{2,12}})"
    rf"|我(?:{_ZH_SINCE})?(?:现在|目前)?(?:住在|住)(?P<o3>[\u4e00-\u9fffA-Za-z]{{2,12}})"
    rf"|我(?:{_ZH_SINCE})?(?:现在|目前)?在(?P<o2>[\u4e00-\u9fffA-Za-z]{{2,8}}?)(?:住|生活|定居)",
    0,
)(lambda m, e: _zh_location(m.group("o") or m.group("o2") or m.group("o3")))
_rule(r"\bi(?:'m| am)\s+(?:originally\s+)?from\s+(?P<o>.+)$|\bmy\s+hometown\s+is\s+(?P<o2>.+)$")(
    lambda m, e: _fact("hometown", m.group("o") or m.group("o2"))
)
_rule(r"我(?:来自|老家在|老家是|的家乡是)(?P<o>.+)$|我是(?P<o2>[\u4e00-\u9fff]{2,4})人$", 0)(
    lambda m, e: _fact("hometown", m.group("o") or m.group("o2"))
)
_rule(
    rf"\bmy\s+(?P<rel>{_RELATION_EN})(?:'s|’s)\s+(?P<attr>(?:[a-z]+\s+){{0,2}}?[a-z]+)\s+"
    r"(?:is|are|was|falls on)\s+(?:on\s+|in\s+|at\s+)?(?P<o>.+)$"
)(lambda m, e: _relation(m))
_rule(
    rf"\bmy\s+(?P<rel>{_RELATION_EN})\s+is\s+(?:called|named)\s+(?P<o>[\w'-]+(?:\s+[A-Z][\w'-]*)?)"
)(lambda m, e: _relation(m, "name"))
_rule(
    rf"我(?:的)?(?P<rel>{_RELATION_ZH})(?:的)?(?P<attr>{_ATTRIBUTE_ZH})(?:是|在|叫)(?P<o>.+)$", 0
)(lambda m, e: _relation(m))
_rule(rf"我(?:的)?(?P<rel>{_RELATION_ZH})叫(?P<o>[\u4e00-\u9fffA-Za-z·]{{1,8}})", 0)(
    lambda m, e: _relation(m, "name")
)
_rule(r"\bmy\s+birthday\s+is\s+(?:on\s+)?(?P<o>.+)$")(lambda m, e: _fact("birthday", m.group("o")))
_rule(r"我的?生日(?:是|在|[:：]\s*|(?=[\d一二三四五六七八九十]))(?P<o>[^，,。]+)", 0)(
    lambda m, e: _fact("birthday", m.group("o"))
)
_rule(
    r"\bmy\s+(?:e-?mail|email address)\s+is\s+(?P<o>.+)$"
    r"|我的(?:邮箱|电子邮件|邮件地址)(?:地址)?是(?P<o2>.+)$"
)(lambda m, e: _fact("email", m.group("o") or m.group("o2")))
_rule(
    r"\bmy\s+(?:phone|mobile|cell)(?:\s+number)?\s+is\s+(?P<o>.+)$|我的(?:手机号码?|电话号码?|手机)(?:是"
    r"|为)(?P<o2>.+)$"
)(lambda m, e: _fact("phone", m.group("o") or m.group("o2")))
_rule(
    r"\bmy\s+(?:id|id card|national id)(?:\s+number)?\s+is\s+(?P<o>.+)$|我的身份证(?:号码?)?(?:是"
    r"|为)(?P<o2>.+)$"
)(lambda m, e: _fact("national_id", m.group("o") or m.group("o2")))
_rule(
    r"\bmy\s+(?:bank\s+)?card(?:\s+number)?\s+is\s+(?P<o>.+)$|我的(?:银行卡|卡)号?(?:是|为)(?P<o2>.+)$"
)(lambda m, e: _fact("bank_card", m.group("o") or m.group("o2")))
_rule(r"\bi\s+(?:have|own)\s+(?:a|an|two|three)\s+(?P<o>dog|cat|parrot|rabbit|hamster)s?\b")(
    lambda m, e: _Hit("user", "pet", m.group("o").lower(), "stable_fact", multi_valued=True)
)
_rule(r"我(?:养了|养着|有)(?:一只|一条|两只|一个)(?P<o>猫|狗|鹦鹉|兔子|仓鼠)", 0)(
    lambda m, e: _Hit("user", "pet", m.group("o"), "stable_fact", multi_valued=True)
)  # as said ("猫"); the resolver keeps the lexicon's "cat" beside it


def _speaks(m: re.Match[str]) -> _Hit | None:
    """Each language the user speaks, as they name it ("我会说粤语和普通话" → 粤语, 普通话)."""
    hits = [
        _Hit("user", "speaks", slot.object, "stable_fact", multi_valued=True)
        for slot in speaks_slots(m.group(0))
    ]
    if hits:
        return _with_also(hits[0], *hits[1:])
    value = _clean(m.group("o") or m.group("o2") or "")
    return _Hit("user", "speaks", value, "stable_fact", multi_valued=True) if value else None


_rule(r"\bi\s+speak\s+(?P<o>.+)$|我会说(?P<o2>.+)$")(lambda m, e: _speaks(m))
_rule(r"\bmy\s+budget\s+is\s+(?P<o>.+)$|预算(?:是|为|不超过|控制在)(?P<o2>.+)$")(
    lambda m, e: _fact("budget", m.group("o") or m.group("o2"), kind="constraint")
)

# --- preferences --------------------------------------------------------------------------
_rule(r"\bmy\s+(?:favou?rite|preferred)\s+(?P<cat>[\w\s]+?)\s+is\s+(?P<o>.+)$")(
    lambda m, e: _pref(m.group("o"), explicit=True)
)
_rule(r"我最喜欢的(?P<cat>\S+?)是(?P<o>.+)$", 0)(lambda m, e: _pref(m.group("o"), explicit=True))
_rule(
    r"\bi\s+(?:don't|do not)\s+like\s+(?P<o>.+)$|\bi\s+(?:dislike|hate|can't stand)\s+(?P<o2>.+)$"
)(lambda m, e: _dislike(m.group("o") or m.group("o2")))
_rule(r"我(?:不喜欢|讨厌|不爱|受不了)(?P<o>.+)$", 0)(lambda m, e: _dislike(m.group("o")))
_rule(
    r"\bi\s+(?:really\s+|much\s+|strongly\s+|generally\s+|usually\s+|always\s+"
    r"|definitely\s+)?(?:prefer|like|love|enjoy|favou?r)\s+(?P<o>.+?)(?:\s+(?:over|to|rather than"
    r"|more than|instead of)\s+.+)?$"
)(lambda m, e: _pref(m.group("o"), explicit=True))
_rule(
    r"^(?:the\s+)?user\s+(?:prefers|likes|loves|wants)\s+(?P<o>.+)$|^用户(?:喜欢|偏好|更喜欢|想要)(?P<o2>.+)$"
)(lambda m, e: _pref(m.group("o") or m.group("o2"), explicit=False))
_rule(r"\bi(?:'d| would)\s+(?:rather|prefer)(?:\s+to)?\s+(?P<o>.+?)(?:\s+(?:than|over|to)\s+.+)?$")(
    lambda m, e: _pref(m.group("o"), explicit=True)
)
_rule(
    r"我(?:可能|也许|大概|好像|应该)?(?:还是)?(?:比较|更|很|非常|最|特别|一直|平时|通常|其实)?(?:喜欢|偏好|偏爱|习惯|倾向于"
    r"|爱)(?P<o>[^，,]+?)(?:(?:，|,)?(?:而不是|不喜欢).+)?$",
    0,
)(lambda m, e: _pref(m.group("o"), explicit=True))


# --- lifting a constraint ("you can use emojis now", "可以用表情了") -------------------------
def _lift(m: re.Match[str], e: bool) -> _Hit | None:
    obj = _clean(m.group("o") or m.group("o2") or "")
    if not obj or _PRONOUNS.match(obj) or len(obj) > 60:
        return None
    return _Hit(
        "assistant",
        "must_not",
        _canon_constraint(obj),
        "correction",
        explicit=True,
        multi_valued=True,
        retract=True,
    )


_rule(
    r"^(?:you can|you may|feel free to|it's ok to|it is ok to)\s+(?:use|include|add)\s+(?P<o>.+?)"
    r"(?:\s+(?:now|again|after all))?$"
    r"|^(?P<o2>.+?)\s+(?:is|are)\s+(?:fine|ok|okay|allowed|acceptable)"
    r"(?:\s+(?:now|again|after all))?$"
)(_lift)
_rule(
    r"^(?:你)?(?:可以|能)(?:用|使用|加)(?P<o>.+?)了$|^(?P<o2>.+?)(?:也可以用了|可以用了|现在可以用)$",
    0,
)(_lift)

# --- constraints (instructions about the assistant's behaviour) -------------------------
_rule(r"^(?:please\s+)?(?:don't|do not|never|avoid|stop|no longer)\s+(?P<o>.+)$")(
    lambda m, e: _constraint(m, "must_not")
)
_rule(r"^no\s+(?P<o>emojis?|markdown|jargon|tables|code blocks)\b")(
    lambda m, e: _constraint(m, "must_not")
)
_rule(
    r"^(?:please\s+)?(?:make sure (?:to|you)|you must(?! be\b)|you should always|be sure to"
    r"|always)\s+(?P<o>.+)$"
)(lambda m, e: _constraint(m, "must"))
_rule(
    r"^(?:请|你)?(?:都|也)?(?:绝对|千万|永远|一定)?(?:不要|别|不许|禁止|千万别|千万不要|请勿|不准|不能再?|不用再"
    r"|不得|严禁|切勿)(?P<o>.+)$",
    0,
)(lambda m, e: _constraint(m, "must_not"))
_rule(
    r"^(?P<o>[^，,。\s]{1,16}?)(?:就|也|都)?(?:别|不要|不许|不准|千万别)(?:再)?(?:加|用|发|放|带|出现)"
    r"(?:了|啦)?$",
    0,
)(lambda m, e: _constraint(m, "must_not"))  # object first: "emoji别加了", "表情包不要发"
_rule(r"^(?:请|你)?(?:必须|一定要|务必|总是|始终|每次都要?|都要)(?P<o>.+)$", 0)(
    lambda m, e: _constraint(m, "must")
)


def _dislike(obj: str) -> _Hit | None:
    hit = _pref(obj, explicit=True)
    if hit is None:
        return None
    if hit.predicate == "response_length":
        flip = {"concise": "detailed", "detailed": "concise"}
        return _Hit("user", "response_length", flip[hit.object], "preference", explicit=True)
    return _Hit(
        "user",
        "dislikes",
        bound_liking(_clean(obj)).lower(),
        "preference",
        explicit=True,
        multi_valued=True,
    )


# --- corrections ------------------------------------------------------------------------------
_CORR_ZH = re.compile(
    r"^(?P<pre>.*?)不是(?P<x>[^，,。]+?)[，,]\s*(?:而|而且|应该|其实)?是(?P<y>.+)$"
)
_CORR_ZH2 = re.compile(r"^(?P<pre>.*?)是(?P<y>[^，,。]+?)[，,]\s*(?:而)?不是(?P<x>.+)$")
_CORR_EN = (
    re.compile(
        r"(?i)^(?:(?:no|sorry|actually|correction)[,:]?\s*)*(?:it'?s|it is|that'?s"
        r"|that is)\s+(?P<y>[^,]+?),?\s+not\s+(?P<x>.+)$"
    ),
    re.compile(
        r"(?i)^(?:(?:no|sorry"
        r"|actually)[,:]?\s*)*not\s+(?P<x>[^,]+?),\s*(?:but\s+)?(?:it'?s\s+)?(?P<y>.+)$"
    ),
    re.compile(
        r"(?i)^(?:(?:no|sorry|actually)[,:]?\s*)*my\s+(?P<pre>[\w\s]+?)\s+(?:is(?:n't| not)"
        r"|was(?:n't| not))\s+(?P<x>[^,]+?),?\s*(?:it'?s|it is|but|,)\s*(?P<y>.+)$"
    ),
)
_CORR_TAIL_EN = re.compile(
    r"(?i)^(?:it'?s|it is|that'?s|that is|i meant|i mean|he'?s|he is|she'?s|she is|they'?re"
    r"|they are)\s+(?P<y>.+)$"
)
_CORR_TAIL_ZH = re.compile(r"^(?:应该是|是|我是说|我的意思是)(?P<y>.+)$")


def _strip_shared(x: str, y: str) -> tuple[str, str, str]:
    """Drop the framing two values share ("对花生过敏" / "对芒果过敏" → "花生", "芒果") and
    return it too (it names the predicate)."""
    i = 0
    while i < min(len(x), len(y)) - 1 and x[i] == y[i]:
        i += 1
    j = 0
    while j < min(len(x), len(y)) - i - 1 and x[-1 - j] == y[-1 - j]:
        j += 1
    if (i == 0 and j == 0) or not x[i : len(x) - j].strip() or not y[i : len(y) - j].strip():
        return x, y, ""
    if i and x[:i].isascii() and not x[:i].endswith(" "):
        i = 0  # never cut inside a Latin word
    if j and x[len(x) - j :].isascii() and not x[len(x) - j :].startswith(" "):
        j = 0
    return x[i : len(x) - j].strip(), y[i : len(y) - j].strip(), x[:i] + " " + x[len(x) - j :]


def _correction_hit(pre: str, x: str | None, y: str) -> _Hit | None:
    y_clean, x_clean = _clean(y), _clean(x) if x else None
    if not y_clean or len(y_clean) > _MAX_OBJECT:
        return None
    if x_clean:
        # strip shared framing only when it names the predicate ("对…过敏"), never inside
        # values that merely look alike ("王小明"/"王晓明", "东八区"/"东九区")
        sx, sy, frame = _strip_shared(x_clean, y_clean)
        if frame.strip() and predicate_hint(frame) and not (pre.strip() and predicate_hint(pre)):
            x_clean, y_clean, pre = sx, sy, f"{pre} {frame}"
    predicate = predicate_hint(pre) if pre.strip() else None
    if predicate == "timezone":
        y_clean = _said_timezone(y_clean)
    elif predicate == "answer_language":
        y_clean = language_of(y_clean) or y_clean
    if predicate is None:
        lang = language_of(y_clean)
        topic = topic_of(y_clean)
        if lang and len(y_clean) <= 8:
            predicate, y_clean = "answer_language", lang
        elif topic:
            predicate, y_clean = topic[0], topic_surface(y_clean, *topic)[0]
            if x_clean and topic_of(x_clean):
                x_clean = topic_of(x_clean)[1]  # type: ignore[index]
        elif timezone_of(y_clean):
            predicate, y_clean = "timezone", _said_timezone(y_clean)
    if re.match(r"[是在叫用]\S", y_clean) and re.search(r"[\u4e00-\u9fff]", y_clean[1:2]):
        y_clean = re.sub(r"^(?:我?是在|是|在|叫|用)", "", y_clean)  # "是天津 not 北京": 天津
    return _Hit(
        "user" if predicate else "",
        predicate or "",
        y_clean,
        "correction",
        explicit=True,
        corrects=x_clean,
        multi_valued=predicate in MULTI_VALUED_PREDICATES,
    )


# ---------------------------------------------------------------------- extractors
class RuleExtractor:
    """Pattern-based extractor for Chinese and English (see module docstring).

    ``extract`` is deterministic and side-effect free; it expects text that has already been
    through :class:`~langgraph_memory.write.redact.Redactor`.
    """

    def extract(
        self,
        text: str,
        *,
        evidence: Evidence,
        source: Source = Source.USER,
        pii: Iterable[str] = (),
        refused_pii: Iterable[str] = (),
    ) -> list[Candidate]:
        """Structured candidates found in ``text``. An injection attempt yields at least one
        candidate flagged with ``injection`` so the rejection is visible to the caller."""
        injection = detect_injection(text)
        pii_list, refused_list = list(pii), list(refused_pii)
        out: list[Candidate] = []
        for clause in split_clauses(text):
            out.extend(self._clause(clause, evidence, source, pii_list, refused_list, injection))
        if injection and not out:
            out.append(
                Candidate(
                    subject="assistant",
                    predicate="instruction",
                    object=_clean(text)[:200] or "instruction",
                    text=text.strip()[:500],
                    kind="instruction",
                    confidence=0.9,
                    evidence=evidence,
                    language=detect_language(text),
                    source=source,
                    injection=injection,
                )
            )
        return out

    def _clause(
        self,
        clause: str,
        evidence: Evidence,
        source: Source,
        pii: list[str],
        refused: list[str],
        injection: str | None,
    ) -> list[Candidate]:
        hedged = is_hedged(clause)
        one_off = bool(_ONE_OFF.search(clause))
        language = detect_language(clause)
        body, explicit, correction = _strip_markers(clause)
        clause_pii = [t for t in pii if _clause_has(clause, t)]
        clause_refused = [t for t in refused if _clause_has(clause, t)]

        def make(hit: _Hit, raw: str, retract: bool = False) -> Candidate:
            conf = hit.confidence + (0.05 if explicit else 0.0)
            # a refused value elsewhere in the clause ("我喜欢喝茶，密码是[PASSWORD]") only
            # blocks the part that holds it; the stored text is then that part alone
            part_refused = [t for t in clause_refused if _clause_has(raw, t)]
            text = clause if part_refused or not clause_refused else raw
            return Candidate(
                subject=hit.subject,
                predicate=hit.predicate,
                object=hit.object,
                text=text,
                kind=hit.kind,
                confidence=min(conf, 0.99) * (0.6 if hedged else 1.0),
                evidence=evidence,
                scope_level="project" if hit.scope_level == "project" else "user",
                hedged=hedged,
                one_off=one_off,
                explicit=explicit or hit.explicit,
                language=language,
                source=source,
                multi_valued=hit.multi_valued,
                correction=correction or hit.kind == "correction",
                corrects=hit.corrects,
                retract=retract or hit.retract,
                pii=[t for t in clause_pii if _clause_has(text, t)],
                refused_pii=part_refused,
                injection=injection,
            )

        # explicit corrections spanning a comma
        for pattern in (_CORR_ZH, _CORR_ZH2, *_CORR_EN):
            m = pattern.match(body)
            if m and (pattern is not _CORR_ZH2 or correction):
                pre = m.groupdict().get("pre") or ""
                hit = _correction_hit(pre, m.group("x"), m.group("y"))
                if hit is not None:
                    # "我的名字不是X，是Y" with a known predicate keeps the fact's kind
                    return [make(hit, body)]
        if _RETRACT.search(clause):
            rest = _RETRACT.split(clause)[-1]
            rest_body, _, _ = _strip_markers(rest.strip(" ,，.。!！:：;；-—"))
            tail = [
                c.model_copy(update={"scratch": True, "correction": True})
                for part in _PART_SPLIT.split(rest_body)
                if part.strip()
                for c in self._part(part.strip(), make, explicit=explicit)
            ]
            retract = Candidate(
                subject="",
                predicate="",
                object="",
                text=clause,
                kind="correction",
                confidence=0.95,
                evidence=evidence,
                language=language,
                source=source,
                correction=True,
                retract=True,
                explicit=True,
                hedged=hedged,
                pii=clause_pii,
                refused_pii=clause_refused,
                injection=injection,
            )
            return tail if tail else [retract]
        found = self._contrast(body, make, correction=correction, explicit=explicit)
        if not found:
            for part in _PART_SPLIT.split(body):
                part = part.strip()
                if part:
                    found.extend(self._part(part, make, explicit=explicit))
        if not found and correction:
            m2 = _CORR_TAIL_EN.match(body) or _CORR_TAIL_ZH.match(body)
            value = m2.group("y") if m2 else body
            switched = SWITCHED.search(value)
            if switched:  # "红茶喝多了睡不着，已经换成普洱了": the value switched to
                value = value[switched.end() :]
            value = re.split(r"[，,;；]", value)[0].strip()  # "是小宇，宇宙的宇": the value
            # "Sorry, I meant Rust": a short bare value after a correction marker
            if value and (m2 or _short_value(value)) and not _PRONOUNS.match(_clean(value)):
                hit = _correction_hit("", None, value)
                if hit is not None:
                    found.append(make(hit, body))
        if not found and explicit and body and not hedged and not _QUESTION.search(body):
            note = _clean(body)
            # a long pasted text is a document, not a fact: it belongs in external storage
            words = len(note.split()) if not re.search(r"[\u4e00-\u9fff]", note) else len(note) // 2
            if note and not _PRONOUNS.match(note) and words >= 2 and len(note) <= 300:
                standing = _FROM_NOW_ON.search(clause) and not _REMEMBER.search(clause)
                if standing and _SPEAKER_STATEMENT.match(note):
                    # "I hope to work on it in the future": the speaker's plan, not a rule
                    return found
                if standing:
                    # "from now on, start every answer with a summary": a standing
                    # instruction no rule names is a constraint on the assistant
                    hit = _Hit(
                        "assistant",
                        "must",
                        note.lower(),
                        "constraint",
                        explicit=True,
                        multi_valued=True,
                        confidence=0.85,
                    )
                else:
                    # "remember that my flight is on Friday": an explicit memory request no
                    # rule understands is kept as the user's own words under "note"
                    hit = _Hit(
                        "user",
                        "note",
                        note,
                        "stable_fact",
                        explicit=True,
                        multi_valued=True,
                        confidence=0.85,
                    )
                found.append(make(hit, body))
        return found

    def _part(
        self, part: str, make: Callable[..., Candidate], *, explicit: bool = False
    ) -> list[Candidate]:
        """Candidates of one clause part: the first rule that matches, with the facts it
        states alongside; in an explicit note ("记住：…") a rule for the assistant that no
        pattern names ("所有通知只发内部组")."""
        body, _, _ = _strip_markers(part)
        if _QUESTION.search(body):
            return []  # a question asserts nothing ("Do I like tea?", "你喜欢什么颜色？")
        item = _LIST_LEAD.sub("", body, count=1)
        if item != body and _RULE_ITEM.search(item):
            body = item  # "…, and no emojis please": a rule as the list's last item
        hit = _first_hit(body)
        if hit is None and explicit:
            hit = _note_rule(body)
        if hit is None:
            return []
        return [make(h, body) for h in (hit, *hit.also) if h.object]

    def _contrast(
        self, body: str, make: Callable[..., Candidate], *, correction: bool, explicit: bool
    ) -> list[Candidate]:
        """ "I use vim, not emacs", "数据库换成 Postgres 了，不是 MySQL", "I meant Lille, not
        Lyon": the facts of the statement before "not", each naming the value it replaces
        (earlier parts of the clause are read as usual)."""
        m = _CONTRAST_EN.match(body) or _CONTRAST_ZH.match(body)
        if m is None:
            return []
        *head, stmt = [p.strip() for p in _PART_SPLIT.split(m.group("stmt")) if p.strip()] or [""]
        old = _clean(m.group("x"))
        if not stmt or not old or _PRONOUNS.match(old) or _NOT_A_VALUE.match(old):
            return []
        hit = _first_hit(stmt) or _used_tool(stmt)
        if hit is None and correction and _short_value(_clean(stmt)):
            hit = _correction_hit("", old, stmt)
        if hit is None:
            return []
        old_topic = topic_of(old)
        named = old_topic[1] if old_topic and old_topic[0] == hit.predicate else old
        found = [c for part in head for c in self._part(part, make, explicit=explicit)]
        hits = (replace(hit, corrects=hit.corrects or named), *hit.also)
        return found + [make(h, stmt) for h in hits if h.object]


def _clause_has(clause: str, pii_type: str) -> bool:
    from .redact import PLACEHOLDERS

    label = PLACEHOLDERS.get(pii_type, "")
    return bool(label) and f"[{label}" in clause


def _strip_markers(text: str) -> tuple[str, bool, bool]:
    """Remove leading "remember"/"from now on"/"actually"… markers; report which were there."""
    explicit = correction = False
    body = text.strip()
    for _ in range(4):
        before = body
        m = _EXPLICIT_EN.match(body) or _EXPLICIT_ZH.match(body)
        if m and m.end() > 0:
            explicit = True
            # keep "always"/"一直" in the body: constraint rules read it
            if not re.match(r"(?i)always|一直|永远", m.group(0)):
                body = body[m.end() :].strip()
        m = _CORRECTION_EN.match(body) or _CORRECTION_ZH.match(body)
        if m and m.end() > 0:
            correction = True
            body = body[m.end() :].strip()
        if body == before:
            break
    if re.search(
        r"(?i)\b(?:from now on|going forward|in the future|every time|always)\b"
        r"|以后|今后|从现在(?:开始|起)"
        r"|每次|一直|永远|始终",
        text,
    ):
        explicit = True
    return body, explicit, correction


# ---------------------------------------------------------------------- LLM extractor
@runtime_checkable
class StructuredChatModel(Protocol):
    """A chat model that can answer in a given schema: any LangChain ``BaseChatModel`` with
    ``with_structured_output`` (``init_chat_model("openai:gpt-4o-mini")``, Anthropic, Ollama,
    ``ChatLlamaCpp``, ...). Only this one method is used."""

    def with_structured_output(
        self, schema: type[BaseModel], **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """A runnable that answers a prompt with an instance of ``schema`` (or its dict)."""
        ...


LLM_KINDS = ("preference", "constraint", "stable_fact", "correction", "event", "other")
"""The kinds the LLM extractor may report (an enum in the schema, so constrained decoding
cannot invent one); anything else a model writes becomes ``other`` (and is rejected by the
kind gate), so one odd value never discards the whole answer."""

LLMKind = Literal["preference", "constraint", "stable_fact", "correction", "event", "other"]

ODD_KIND = (
    "LLM fact kind {value!r} is not one of {kinds}: read as 'other' (the kind gate rejects it)"
)
ODD_CONFIDENCE = "LLM fact confidence {value!r} is {why}: read as {result:g}"
DROPPED_FACT = "dropped LLM fact #{index}: {reason} (the other facts of the answer are kept)"
NOT_A_FACT_LIST = "LLM answer 'facts' is a {type}, not a list: no LLM facts from this answer"


def _llm_kind(value: object) -> str:
    text = re.sub(r"[\s-]+", "_", str(value or "").strip().lower())
    if text in LLM_KINDS:
        return text
    log.info(
        ODD_KIND.format(value=str(value)[:40], kinds=", ".join(LLM_KINDS)),
        extra={"event": "llm_fact_odd_kind"},
    )
    return "other"


def _llm_confidence(value: object) -> float:
    """A model's confidence as a probability, per fact: 0..1 as is, 1..10 read as tenths,
    10..100 as a percentage, above 100 clamped to 1; anything unreadable or negative is 0 (so
    the confidence gate rejects that fact). Every rescale or clamp is logged."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = float("nan")
    if number != number or number < 0:  # NaN, unreadable or negative
        result, why = 0.0, "unreadable or negative"
    elif number <= 1.0:
        return number
    elif number <= 10.0:
        result, why = number / 10.0, "above 1 (a 0-10 scale)"
    elif number <= 100.0:
        result, why = number / 100.0, "above 10 (a percentage)"
    else:
        result, why = 1.0, "above 100 (clamped)"
    log.info(
        ODD_CONFIDENCE.format(value=str(value)[:20], why=why, result=result),
        extra={"event": "llm_fact_odd_confidence"},
    )
    return result


SCHEMA_REQUIRED = ("subject", "predicate", "object", "kind", "quote", "confidence")
"""The fields a structured-output schema asks every fact for."""


def _schema_requires(schema: dict[str, Any]) -> None:
    schema["required"] = list(SCHEMA_REQUIRED)


class ExtractedFact(BaseModel):
    """One fact as the LLM extractor reports it (the structured-output schema).

    ``kind`` is an enum of :data:`LLM_KINDS`; a value outside it (a model not constrained by
    the schema) is read as ``other``. ``confidence`` on a 0–10 or 0–100 scale is rescaled to
    0–1 and clamped (:func:`_llm_confidence`): a small model's odd value costs that fact,
    never the whole answer.

    The JSON schema requires ``subject``, ``quote`` and ``confidence`` besides the fact (a
    grammar built from it makes a constrained model write them; with them optional, small
    models skip them), but validation does not: a model that omits them still yields the
    fact (``subject`` ``user``, an empty quote — grounding checks the turn itself — and
    confidence 0, which the confidence gate rejects with its reason)."""

    model_config = ConfigDict(json_schema_extra=_schema_requires)

    subject: str = Field("user", description="'user', 'assistant' or 'project'")
    predicate: str = Field(description="snake_case attribute, e.g. answer_language, diet, name")
    object: str = Field(description="the value, as short as possible, in the user's words")
    kind: LLMKind = Field(
        description="preference | constraint | stable_fact | correction | event | other"
    )
    quote: str = Field("", description="the exact words of the user this fact comes from")
    confidence: float = Field(0.0, description="between 0 and 1")
    stated_by_user: bool = Field(
        True, description="false when the fact is inferred rather than stated by the user"
    )
    hedged: bool = Field(False, description="true when the user was tentative")
    explicit: bool = Field(False, description="true when the user asked to remember it / always")
    project_level: bool = Field(False, description="true when the fact is about the project")

    @field_validator("kind", mode="before")
    @classmethod
    def _known_kind(cls, value: Any) -> str:  # raw model output: anything
        return _llm_kind(value)

    @field_validator("confidence", mode="before")
    @classmethod
    def _probability(cls, value: Any) -> float:  # raw model output: anything
        return _llm_confidence(value)

    @field_validator("subject", "predicate", "object", "quote", mode="before")
    @classmethod
    def _scalar_text(cls, value: Any) -> Any:  # a number or bool as a value is still a value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return "" if value is None else value


def _validation_reason(exc: ValidationError) -> str:
    """What was wrong, without the model's values (they may quote the turn)."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'fact'}: {err['msg']}" for err in exc.errors()
    )


class ExtractionResult(BaseModel):
    """Structured output of the LLM extractor: a list of facts (possibly empty).

    Facts are validated one by one: a malformed fact (no predicate, a value that is not
    text, not an object at all) is dropped and logged with the reason, the others are kept;
    ``facts: null`` or a missing list is an empty answer."""

    facts: list[ExtractedFact] = Field(default_factory=list)

    @field_validator("facts", mode="before")
    @classmethod
    def _each_fact(cls, value: Any) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, dict):  # one fact instead of a list of one
            value = [value]
        if not isinstance(value, list | tuple):
            log.warning(
                NOT_A_FACT_LIST.format(type=type(value).__name__),
                extra={"event": "llm_fact_dropped"},
            )
            return []
        kept: list[ExtractedFact] = []
        for index, item in enumerate(value):
            if isinstance(item, ExtractedFact):
                kept.append(item)
                continue
            try:
                kept.append(ExtractedFact.model_validate(item))
            except ValidationError as exc:
                reason = _validation_reason(exc)
                log.warning(
                    DROPPED_FACT.format(index=index, reason=reason),
                    extra={"event": "llm_fact_dropped", "index": index, "reason": reason},
                )
        return kept


LLM_SYSTEM_PROMPT = (
    "Extract durable facts about the user from the user's message: preferences, constraints, "
    "stable facts, corrections. Return only what the user stated; quote their exact words. "
    "Do not summarise. Do not extract requests that concern only the current task. "
    "Placeholders like [EMAIL] are redacted values: never guess them. Return an empty list "
    "when there is nothing durable."
)

LLM_TURNS_PROMPT = (
    "Extract durable facts about the user from the user's messages below (several turns of "
    "one conversation, oldest first, separated by lines of ---): preferences, constraints, "
    "stable facts, corrections. A later message may change an earlier one: report the value "
    "the user settled on. Return only what the user stated; quote their exact words from one "
    "message. Do not summarise. Do not extract requests that concern only the current task. "
    "Placeholders like [EMAIL] are redacted values: never guess them. Return an empty list "
    "when there is nothing durable."
)
"""System prompt of :meth:`LLMExtractor.extract_turns` (one call over a burst of turns)."""

TURN_SEPARATOR = "\n---\n"
"""Between the turns of one :meth:`LLMExtractor.extract_turns` prompt."""

NOT_A_CHAT_MODEL = (
    "llm_extractor must be an LLMExtractor or a chat model with with_structured_output "
    "(e.g. init_chat_model('openai:gpt-4o-mini')), got {type}"
)


NO_STRUCTURED_OUTPUT = "{type} does not support with_structured_output (it needs tool calling)"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*|\n+")


def _words(text: str) -> list[str]:
    return _WORD.findall(normalize_for_matching(text))


def _same_word(a: str, b: str) -> bool:
    """Equal, or one the simple plural of the other (``s``, ``es``, ``y``→``ies``)."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return long in (short + "s", short + "es") or (
        short.endswith("y") and long == short[:-1] + "ies"
    )


def value_in_text(value: str, text: str) -> bool:
    """True when ``value`` occurs in ``text`` up to normalisation: Unicode NFKC (full- and
    half-width forms alike), case, whitespace and punctuation between words, and simple
    plurals ("tulip" in "I love tulips"). A value with CJK characters must occur as a
    contiguous run (spaces and punctuation ignored); other values as a run of whole words.
    An empty value never occurs."""
    wanted = _words(value)
    if not wanted:
        return False
    if any(is_cjk(ch) for word in wanted for ch in word):
        return "".join(wanted) in "".join(_words(text))
    have = _words(text)
    size = len(wanted)
    return any(
        all(_same_word(w, h) for w, h in zip(wanted, have[start : start + size], strict=True))
        for start in range(len(have) - size + 1)
    )


def _sentence_with(value: str, text: str) -> str:
    """The first sentence (or line) of ``text`` in which ``value`` occurs, else ``text``."""
    for sentence in _SENTENCE_END.split(text):
        if sentence.strip() and value_in_text(value, sentence):
            return sentence.strip()
    return text.strip()


class LLMExtractor:
    """Extractor backed by any LangChain chat model supporting ``with_structured_output``.

    The model receives the already-redacted turn. Each returned fact is grounded against
    that redacted turn by the extractor itself, not by trusting the model: the fact is the
    user's when its ``quote`` occurs in the turn (whitespace-normalised; the candidate's text
    is then the quote) or, failing that, when its value (``object``) occurs in the turn up to
    case, width, whitespace and simple plurals (:func:`value_in_text`; the candidate's text is
    then the turn's sentence holding it), and ``stated_by_user`` is true. Otherwise the
    candidate is marked ``source=model`` (model inference, never stored as a user fact).
    Gates (PII, injection, kind, confidence, confirmation...) run after it in the write
    pipeline exactly as for rule candidates.

    ::

        from langchain.chat_models import init_chat_model
        from langgraph_memory.write import LLMExtractor, WritePipeline

        extractor = LLMExtractor(init_chat_model("openai:gpt-4o-mini"))
        pipeline = WritePipeline(store, llm_extractor=extractor)   # or pass the model itself

    A model without ``with_structured_output`` raises :class:`ConfigError` here, not at the
    first turn.
    """

    def __init__(
        self, model: StructuredChatModel, *, system_prompt: str = LLM_SYSTEM_PROMPT
    ) -> None:
        if not isinstance(model, StructuredChatModel) or not callable(
            getattr(model, "with_structured_output", None)
        ):
            raise ConfigError(NOT_A_CHAT_MODEL.format(type=type(model).__name__))
        self.model = model
        try:
            self._structured = model.with_structured_output(ExtractionResult)
        except NotImplementedError as exc:  # e.g. a chat model without tool calling
            raise ConfigError(NO_STRUCTURED_OUTPUT.format(type=type(model).__name__)) from exc
        self.system_prompt = system_prompt
        self.turns_prompt = LLM_TURNS_PROMPT

    def _messages(self, text: str) -> list[tuple[str, str]]:
        return [("system", self.system_prompt), ("human", text)]

    def _turn_messages(self, texts: Sequence[str]) -> list[tuple[str, str]]:
        return [("system", self.turns_prompt), ("human", TURN_SEPARATOR.join(texts))]

    def extract(
        self, text: str, *, evidence: Evidence, source: Source = Source.USER
    ) -> list[Candidate]:
        """Candidates the model found in ``text`` (sync)."""
        return self._convert(self._structured.invoke(self._messages(text)), text, evidence, source)

    async def aextract(
        self, text: str, *, evidence: Evidence, source: Source = Source.USER
    ) -> list[Candidate]:
        """Candidates the model found in ``text`` (async)."""
        result = await self._structured.ainvoke(self._messages(text))
        return self._convert(result, text, evidence, source)

    def extract_turns(
        self,
        texts: Sequence[str],
        *,
        evidence: Sequence[Evidence],
        source: Source = Source.USER,
    ) -> list[tuple[int, Candidate]]:
        """One model call over several (redacted) turns of a conversation, oldest first.

        Returns ``(turn index, candidate)`` pairs: each fact belongs to the turn its quote
        comes from and carries that turn's evidence and injection flag. A fact whose quote is
        in no single turn (or that the model marks inferred) is ``source=model`` and is
        attributed to the last turn, so the gate's rejection stays visible. Model errors
        propagate (the caller decides about retries; rule results are never involved)."""
        if len(texts) != len(evidence):
            raise ConfigError("extract_turns needs one evidence per turn")
        if not texts:
            return []
        result = self._structured.invoke(self._turn_messages(texts))
        return self._convert_turns(result, texts, evidence, source)

    async def aextract_turns(
        self,
        texts: Sequence[str],
        *,
        evidence: Sequence[Evidence],
        source: Source = Source.USER,
    ) -> list[tuple[int, Candidate]]:
        """Async :meth:`extract_turns`."""
        if len(texts) != len(evidence):
            raise ConfigError("extract_turns needs one evidence per turn")
        if not texts:
            return []
        result = await self._structured.ainvoke(self._turn_messages(texts))
        return self._convert_turns(result, texts, evidence, source)

    def _convert_turns(
        self,
        result: object,
        texts: Sequence[str],
        evidence: Sequence[Evidence],
        source: Source,
    ) -> list[tuple[int, Candidate]]:
        joined = TURN_SEPARATOR.join(texts)
        normalized = [_norm(t) for t in texts]
        out: list[tuple[int, Candidate]] = []
        for cand in self._convert(result, joined, evidence[-1], source):
            quote = _norm(cand.text)
            owner = next(
                (i for i in range(len(texts) - 1, -1, -1) if quote and quote in normalized[i]),
                None,
            )
            if owner is None:  # in no single turn: the model's words, not the user's
                update: dict[str, Any] = {"source": Source.MODEL, "injection": cand.injection}
                out.append((len(texts) - 1, cand.model_copy(update=update)))
                continue
            update = {"evidence": evidence[owner], "injection": detect_injection(texts[owner])}
            out.append((owner, cand.model_copy(update=update)))
        return out

    def _convert(
        self, result: object, text: str, evidence: Evidence, source: Source
    ) -> list[Candidate]:
        if isinstance(result, dict):
            result = ExtractionResult.model_validate(result)
        if not isinstance(result, ExtractionResult):
            log.warning(
                "LLM extractor returned an unexpected type (%s); no LLM candidates",
                type(result).__name__,
                extra={"event": "llm_extract_bad_output", "type": type(result).__name__},
            )
            return []
        out: list[Candidate] = []
        norm_text = re.sub(r"\s+", " ", text)
        injection = detect_injection(text)
        for fact in result.facts:
            quote = re.sub(r"\s+", " ", fact.quote.strip())
            grounded_text = quote if quote and quote in norm_text else None
            if grounded_text is None and value_in_text(fact.object, text):
                grounded_text = _sentence_with(fact.object, text)[:500]
            grounded = grounded_text is not None
            fact_source = source if (grounded and fact.stated_by_user) else Source.MODEL
            predicate = re.sub(r"[^\w]+", "_", fact.predicate.strip().lower()).strip("_") or "note"
            obj = fact.object.strip()
            if predicate == "answer_language":
                obj = language_of(obj) or obj
            elif predicate == "timezone":
                obj = timezone_of(obj) or obj
            else:
                topic = topic_of(obj)
                if topic and topic[0] == predicate:
                    obj = topic[1]
            if PLACEHOLDER_RE.search(obj) and not PLACEHOLDER_RE.search(text):
                fact_source = Source.MODEL  # a placeholder the user never wrote
            out.append(
                Candidate(
                    subject=fact.subject.strip().lower() or "user",
                    predicate=predicate,
                    object=obj or "?",
                    text=grounded_text if grounded_text is not None else (quote or text)[:500],
                    kind=fact.kind.strip().lower(),
                    confidence=fact.confidence,
                    evidence=evidence,
                    scope_level="project"
                    if fact.project_level or fact.subject.strip().lower() == "project"
                    else "user",
                    hedged=fact.hedged or is_hedged(grounded_text or quote),
                    explicit=fact.explicit,
                    language=detect_language(grounded_text or quote or text),
                    source=fact_source,
                    extractor="llm",
                    injection=injection,
                )
            )
        return out


__all__ = [
    "LLM_KINDS",
    "LLM_SYSTEM_PROMPT",
    "LLM_TURNS_PROMPT",
    "ExtractedFact",
    "ExtractionResult",
    "LLMExtractor",
    "RuleExtractor",
    "StructuredChatModel",
    "detect_injection",
    "is_hedged",
    "split_clauses",
    "value_in_text",
]
