"""Prompt-injection detection: :func:`detect_injection` names the pattern a turn matches
when it tries to widen what the assistant may do, who the user is, or whose data is
visible. Pure."""

from __future__ import annotations

import re

from ...core.text import INVISIBLE_CHARS, normalize_for_matching

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


__all__ = [
    "detect_injection",
]
