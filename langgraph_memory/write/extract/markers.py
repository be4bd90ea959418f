"""Cue words of a clause: hedges, "remember"/"from now on" markers, correction and
retraction markers, questions, and the clause/part splitters every extractor shares. Pure."""

from __future__ import annotations

import re

from ...core.redact import PLACEHOLDERS

_HEDGE_EN = re.compile(
    r"(?i)\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|"
    r"i'm not sure|i am not sure|let me think|i'll think about it|considering|"
    r"thinking about|for now|tentatively|(?<!the )(?<!a )(?<!what )(?<!this )(?<!that )(?<!any )"
    r"(?:kind|sort) of|not certain|undecided|"
    r"i believe|i reckon|i suspect|likely|unsure|we'll see|not decided yet|if i ever|toying with"
    r"|debating|may or may not|up in the air|on the fence|(?:haven't|have not) decided"
    r"|still deciding|nothing's final|not final|tempted to|someday"
    r"|if (?:i|we) (?:were to|moved|move|switched|went|decide|decided)"
    r"|(?:i'm|we're|i am|we are) thinking(?! of you)|torn between|can't decide|cannot decide"
    r"|deciding between|choosing between|let'?s say|say (?:i|we)(?:'m| am| are| were| had| have)"
    r"|suppose|supposing|assuming (?:i|we)|what if (?:i|we)|hypothetically|imagine (?:i|we))\b"
)
_HEDGE_ZH = re.compile(
    r"(?<![尽不])可能|也许|或许|大概(?!\s*(?:在|是|有|要花|会花|要|花|需要)?\s*[一二三四五六七八九十两百千万\d$¥€£￥])"
    r"|我再想想|再想想|先这样|不确定|说不定|好像|应该吧|我觉得|我猜|"
    r"暂时|考虑一下|还没想好|看情况|不一定|估计|八成|没准|要不要|犹豫|纠结|还在考虑|再看看|有点想"
    r"|(?:如果|要是|假如|万一)(?:我们?)?(?:以后|将来|有一天|哪天)|想试试"
    r"|(?:如果|要是|假如|万一)(?!(?:你)?(?:可以|方便|可能|行|需要|有必要|有空|不麻烦|允许)的话)"
    r"[^，。,.!?！？]{1,14}的话"
    r"|^(?:如果|要是|假如|假设|假定|万一)我们?(?!.{0,3}(?:不在|没空|忘了))"
    r"(?=[^，。,.!?！？]{1,14}(?:[，,]|$))"
)
_EXPLICIT_EN = re.compile(
    r"(?i)^(?:(?:please\s+)?(?:remember|note|keep in mind|don't forget(?!\s+to\b))(?:\s+that)?|"
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
RETRACT = re.compile(
    r"(?i)\bscratch that\b|\bforget (?:what i (?:just )?said|that)\b"
    r"|忘掉刚才|刚才的不算|当我没说|收回刚才"
)

_CLAUSE_SPLIT = re.compile(
    r"(?<=[.!?])\s+|[。！？；;\n]+|[，,]\s*(?=(?:而且|另外|还有|并且|同时|also|and also|plus)\b)"
    r"|(?<=[A-Z_]\])\s+(?=(?:I'm|I am|I've|My|Also|Btw|BTW)\b)"
)
"""Sentence ends, and a redacted secret the user typed no full stop after ("password [PASSWORD]
I'm the DevOps lead…": the secret's sentence ends at the placeholder)."""
PART_COMMA = r",(?!(?<=\d,)\d{3}(?!\d))"
"""An ASCII comma that splits a clause into parts: not a thousands separator ("$6,000")."""
PART_SPLIT = re.compile(
    rf"(?i)(?:，|{PART_COMMA})\s*|\s+[—–]+\s*|\s-\s|\s+and\s+(?=i\b|i'm\b|my\b)"
    r"|(?<=\w)\s+but\s+|\s*[(（](?=(?:i|i'm|i've|my|我)\b)|(?<=\w)[)）]\s*"
)
"""A clause cut into parts: commas, dashes, "and I…", "but", a parenthesis that tells about the
user ("I'm on GMT+5:30 (I'm based in Pune), so…")."""
LIST_LEAD = re.compile(
    r"(?i)^(?:and also|and|also|plus)\s+(?=\S)"
    r"|^(?:还有|另外|而且|并且|以及|再就是)(?:那些|这些|那个|这个)?"
)
"""The conjunction that opens the last item of a list ("Spanish, short answers, and no
emojis"; "…，还有那些emoji别加了"): the item's own rule reads what follows it."""
RULE_ITEM = re.compile(
    r"(?i)^(?:please\s+)?(?:no|never|don't|do not|avoid|stop|always|make sure)\b"
    r"|^(?:you|u)\s+(?:must|should always|need to always|have to|always|never)\b"
    r"|别|不要|不许|不准|禁止|必须|一定要|务必|^你\s*(?i:must|always|never)"
)
"""A list item after :data:`LIST_LEAD` is read on its own only when it is an instruction:
"and also coffee" stays part of the preference before it."""


def is_hedged(text: str) -> bool:
    """True when ``text`` is tentative ("maybe", "I think", "可能", "我再想想", "先这样"...)."""
    return bool(_HEDGE_EN.search(text) or _HEDGE_ZH.search(text))


_HEDGE_PARTS = re.compile(
    rf"\s*(?:{PART_COMMA}|[，;；]|\s[—–-]\s|[—–])\s*"
    r"|(?i:\s+(?:and|but|so|because|though|while)\s+)"
    r"|(?:但是|不过|所以|因为)"
)
"""Where a clause splits into parts that a hedge judges apart: commas and dashes, and the
conjunctions that join two statements ("due next Friday and I've written maybe a third of
it": the hedge is about the draft, not the deadline)."""
_LEFT_WORDS = re.compile(r"[A-Za-z']+|[\u4e00-\u9fff]")


def hedges_value(clause: str, value: str) -> bool:
    """True when ``value`` is said tentatively in ``clause``: the clause is hedged
    (:func:`is_hedged`) and the hedge is in the part holding the value, or is a part of its
    own that says nothing else ("I'm a nurse, I think", "在上海吧，应该是"), or the value is
    found in no part. A hedge inside another part with its own content ("Working at Initech as
    a QA lead, it's fine I guess": the hedge judges the job, not whether it is the job) leaves
    the value stated."""
    if not is_hedged(clause):
        return False
    parts = [p for p in _HEDGE_PARTS.split(clause) if p.strip()]
    holding = [p for p in parts if value and value.casefold() in p.casefold()]
    if len(parts) < 2 or not holding:
        return True
    if any(is_hedged(p) and not _concluded(p, parts) for p in holding):
        return True
    for part in parts:
        if is_hedged(part):
            rest = _HEDGE_ZH.sub(" ", _HEDGE_EN.sub(" ", part))
            if len(_LEFT_WORDS.findall(rest)) <= 1:
                return True  # a bare "I think" / "maybe" hedges what it is said next to
    return False


_CONCLUSION = re.compile(
    r"(?i)^(?:and\s+)?(?:so|which\s+means|that\s+means|meaning)\s*,?\s+i\s+(?:guess|suppose"
    r"|reckon)\s+(?:that\s+)?(?:i'm|i\s+am|im|that\s+makes\s+me|that's|it's)\s+(?:(?:just|now"
    r"|technically|basically|officially|a|an)\s+)*[\w-]+(?:\s+(?:now|these\s+days|then|again"
    r"|anyway))?\s*[.!]*$"
    r"|^(?:所以|那)?(?:我)?(?:也)?算是(?:个|一个|一名)?[\u4e00-\u9fffA-Za-z]{1,8}(?:了)?吧[。!！]*$"
)
"""A part that only names what the facts said before it make the user ("…, so I guess I'm
pescatarian these days", "…，算是鱼素吧"): its "I guess" / "吧" weighs the name, not the facts."""


def _concluded(part: str, parts: list[str]) -> bool:
    """True when ``part`` is a conclusion (:data:`_CONCLUSION`) drawn from another part of the
    clause that states something without a hedge of its own."""
    return bool(_CONCLUSION.match(part.strip())) and any(
        p is not part and not is_hedged(p) and len(_LEFT_WORDS.findall(p)) >= 2 for p in parts
    )


_ABBREVIATION = re.compile(r"(?i)\b(Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|No|approx)\.\s+")


_SHORT_QUOTE = re.compile(
    r"(?:(?:(?<=\s)|(?<=^)|(?<=[(\[]))'[^'\s][^'\n]{0,40}'(?![A-Za-z])"
    r"|\"[^\"\n]{1,42}\"|“[^”\n]{1,42}”|「[^」\n]{1,42}」|『[^』\n]{1,42}』)"
    r"(?!\s+[A-Z]|[我你他她它])"
)
"""A short quotation ("the 'Great question!' openers", 别说“好问题！”): its own sentence marks
end the quotation, not the user's sentence (unless a new sentence starts right after it: 'He said
"Stop." She left.' is two). An apostrophe opens one only after a space or a
bracket and closes it only before a non-letter, so "I'm a nurse. Don't…" is no quotation."""
_MARK_CODES = {".": "\x01", "!": "\x02", "?": "\x03", "。": "\x04", "！": "\x05", "？": "\x06"}
_QUOTED_MARKS = str.maketrans(_MARK_CODES)
_UNQUOTED_MARKS = str.maketrans({code: mark for mark, code in _MARK_CODES.items()})


def split_clauses(text: str) -> list[str]:
    """Sentence-level clauses (keeps commas, so "不是X，是Y" stays together; "Dr. Lee" is
    not a sentence end, nor is the "!" of a short quotation: "quit it with the 'Great
    question!' openers" is one clause)."""
    protected = _ABBREVIATION.sub(lambda m: m.group(1) + ".\x00", text)
    protected = _SHORT_QUOTE.sub(lambda m: m.group(0).translate(_QUOTED_MARKS), protected)
    return [
        c.strip().replace("\x00", " ").translate(_UNQUOTED_MARKS)
        for c in _CLAUSE_SPLIT.split(protected)
        if c and c.strip()
    ]


MAX_OBJECT = 120
"""Longest object a rule accepts: a fact's value is short; longer text is not a fact."""
QUESTION = re.compile(
    r"(?i)^(?:do|does|did|am|is|are|was|were|what|which|who|whom|whose|why|how|where|when"
    r"|should|can|could|would|will)\b.*[?？]\s*$"
    r"|^(?:do|does|did|am|is|are|was|were|can|could|should|would|will)\s+"
    r"(?:i|you|we|they|he|she|it|my|your)\b(?!\s+not\b)"
    r"|^(?:what|which|who|whose|why|how|where|when)\b.*\b(?:do|does|did|is|are|am|was|should)\s+"
    r"(?:i|you|we|my|your)\b"
    r"|吗[?？]?\s*$|呢[?？]\s*$|^(?:那|还有)?(?:你|您|你们|他|她)呢\s*$"
    r"|(?:什么|哪个|哪种|哪里|为什么|怎么|如何|谁).*[?？]\s*$"
    # casual Chinese questions: 啥/咋 (not 没啥, 啥都, "虾蟹啥的" (and such), 不咋 "not
    # very"), 是不是, 有没有, 来着 (recalling), 吗 before a closing particle ("…北京吗啊")
    r"|(?<![没不])(?:啥(?![都也的])|咋(?![都也]))|是不是|有没有|来着[?？]?\s*$"
    r"|吗[啊呀哈][?？]?\s*$"
)
"""A question. A final 呢 asks only with a question mark or after a bare person ("你呢"): "我们异地
呢", "还没吃呢" state something."""
POLITE_REQUEST = re.compile(
    r"(?i)^(?:so\s+)?(?:can|could|would|will)\s+(?:you\s+(?:please\s+|pls\s+|just\s+|kindly\s+)*"
    r"(?=\w+\b.*\b(?:from now on|going forward|from here on|in (?:the )?future|by default"
    r"|always|every time)\b)"
    r"|(?=all\s+(?:your|the)\s+(?:answers|replies|responses)\b.*\b(?:from now on|going forward"
    r"|from here on)\b))"
)
"""A standing request worded as a question ("Can you reply in Spanish from now on?", "Could
you answer in German going forward?", "Can all your replies be in French from here on?"):
the words after the lead are an instruction, not a question (the lead is what it matches)."""


ABOUT_A_THING = re.compile(
    r"(?i)^(?:(?:oh|ah|no|nope|wait|actually|sorry|hmm|so|well|btw|不对|哦|噢|对了|其实)[,，!！.。]?\s*)*"
    r"(?:(?:the|this|that|these|those|our|their)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:needs?|is|are|was|were|has|have|got|went|broke|looks?|seems?|keeps?|won't|doesn't"
    r"|isn't|aren't)\b"
    r"|(?:办公室|公司|楼下|楼上|家里|隔壁|会议室|厨房|阳台)的[\u4e00-\u9fff]{1,8}?"
    r"(?:该|要|得|需要|又|已经|还|坏|没)"
    r")"
)
"""A clause whose subject is a thing ("the office plant needs water", "办公室的绿萝该浇水了"):
it says how that thing is, never a correction of the user's facts."""
_SPEAKER = re.compile(r"(?i)\b(?:i|i'm|my|me|mine|we|our)\b|我|咱")


CORRECTION_ANNOUNCEMENT = re.compile(
    r"(?i)^(?:(?:oops|sorry|hmm+|ah|oh|wait|ok|okay|actually|no|ugh|so)[,!.\s]+)*"
    r"(?:i\s+(?:was|am|'m)\s+(?:wrong|sloppy|mistaken|confused|off)"
    r"|i\s+(?:misspoke|misspoke|messed (?:that|it|this) up|messed up|got (?:that|it|this) wrong"
    r"|made a mistake|said (?:that|it) wrong|was wrong about (?:that|something))"
    r"|(?:i\s+)?(?:need|have|want)\s+to\s+correct\s+(?:myself|that|something|what i said)"
    r"|let me correct (?:myself|that)|(?:quick |small )?correction"
    r"|(?:i\s+)?mixed (?:up (?:my own \w+|things|that)|(?:that|it|things|my \w+) up)"
    r"|my (?:bad|mistake))"
    r"(?:\s+(?:earlier|before|there|above|from earlier|on that|a bit|again))*\s*[.!。！:：]*$"
    r"|^(?:不好意思|抱歉|对不起|哎呀|哎|啊|哦|噢)?[，,\s]*我?(?:前面|刚才|之前|上面|刚刚)?"
    r"(?:说错了|说错|搞错了|弄错了|记错了|讲错了|写错了)[，,。！!\s]*$"
    r"|^(?:更正一下|纠正一下|我更正一下|我纠正一下)[，,。！!\s]*$"
)
"""A sentence that only announces a correction ("Oops, I was sloppy earlier.", "I need to
correct myself from earlier", "不好意思，我前面说错了"): it names no value; the correction is
the next sentence."""


def announces_correction(clause: str) -> bool:
    """Whether ``clause`` only announces a correction (see :data:`CORRECTION_ANNOUNCEMENT`)."""
    return bool(CORRECTION_ANNOUNCEMENT.match(clause.strip()))


def about_a_thing(clause: str) -> bool:
    """True when ``clause`` is about a thing, not the speaker (:data:`ABOUT_A_THING`, no
    first person: "the office plant needs water"; not "the plant I gave you")."""
    return bool(ABOUT_A_THING.match(clause.strip())) and not _SPEAKER.search(clause)


_ZH_FROM_NOW = (
    r"(?:(?<![\u4e00-\u9fff])|(?<=[我你您们咱请那以就也]))以后"
    r"|(?<![点时钟分号日天月年岁\d])以后(?=[都请别再一每]|不要|不许|回答|回复|记得|尽量)"
    r"|今后|从现在(?:开始|起)"
)
"""'以后' as "from now on" ("以后回答用中文", "我以后不吃辣了", "…，以后都这样"), not as "after"
("出来以后大家去吃了火锅", "下班以后"): at the start of a clause, after a person, "请", "那",
"所以", "就" or "也", or before what a standing rule says next ("都", "请", "别", "不要",
"回答"…) unless a time comes first ("晚上十点以后不许装修": after ten)."""
FROM_NOW_ON = re.compile(
    r"(?i)\b(?:from now on|from here on|from this point on|henceforth|going forward"
    r"|in (?:the )?future)\b|" + _ZH_FROM_NOW + r"|往后"
)
REMEMBER = re.compile(
    r"(?i)\b(?:remember|note|keep in mind|don't forget(?!\s+to\b))\b|记住|记一下|记得"
)
"""A turn that asks to be remembered ("don't forget that…"; "don't forget to…" is an order)."""
FIRST_PERSON_PREF = re.compile(
    r"(?i)\bi\s+(?:\w+\s+)?(?:prefer|like|love|enjoy|want you to)\b"
    r"|我.{0,4}(?:喜欢|偏好|偏爱|习惯|希望)"
)


def clause_has(clause: str, pii_type: str) -> bool:

    label = PLACEHOLDERS.get(pii_type, "")
    return bool(label) and f"[{label}" in clause


_TEXTED_PLEASE = re.compile(r"(?i)^(?:pls|plz|pleeease|pleaseee)\b[\s,，]*(?=\S)")
""""pls" / "plz" opening a request: the rule follows ("pls stop with the bullet points")."""


def strip_markers(text: str) -> tuple[str, bool, bool]:
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
        body = _TEXTED_PLEASE.sub("", body, count=1)  # "pls 别再用 bullet points 了"
        if body == before:
            break
    if re.search(
        r"(?i)\b(?:from now on|from here on|from this point on|henceforth|going forward"
        r"|in the future|every time|always)\b|" + _ZH_FROM_NOW + r"|每次|一直|永远|始终",
        text,
    ):
        explicit = True
    return body, explicit, correction


__all__ = [
    "ABOUT_A_THING",
    "CORRECTION_ANNOUNCEMENT",
    "FIRST_PERSON_PREF",
    "FROM_NOW_ON",
    "LIST_LEAD",
    "MAX_OBJECT",
    "PART_COMMA",
    "PART_SPLIT",
    "POLITE_REQUEST",
    "QUESTION",
    "REMEMBER",
    "RETRACT",
    "RULE_ITEM",
    "about_a_thing",
    "announces_correction",
    "clause_has",
    "hedges_value",
    "is_hedged",
    "split_clauses",
    "strip_markers",
]
