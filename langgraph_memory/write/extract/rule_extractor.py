"""The rule extractor: :class:`RuleExtractor` reads a (redacted) turn clause by clause with
the three rule tables (first hit wins), corrections, retractions and explicit notes.
Deterministic and side-effect free."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from ...core.records import Evidence, Source
from ...core.text import detect_language
from ..lexicon import topic_of
from ..slots.typed import SWITCHED
from ..types import Candidate
from . import rules_answer, rules_facts, rules_preferences
from .builders import note_rule, used_tool
from .corrections import CORR_EN, CORR_TAIL_EN, CORR_TAIL_ZH, CORR_ZH, CORR_ZH2, correction_hit
from .injection import detect_injection
from .markers import (
    FIRST_PERSON_PREF,
    FROM_NOW_ON,
    LIST_LEAD,
    MAX_OBJECT,
    PART_SPLIT,
    POLITE_REQUEST,
    QUESTION,
    REMEMBER,
    RETRACT,
    RULE_ITEM,
    clause_has,
    hedges_value,
    is_hedged,
    split_clauses,
    strip_markers,
)
from .one_off import says_this_turn_only
from .orders import SPEAKER_STATEMENT
from .values import (
    CONTRAST_EN,
    CONTRAST_ZH,
    CONTRAST_ZH_BARE,
    NOT_A_VALUE,
    PRONOUNS,
    Hit,
    clean,
    short_value,
)

RULES = (*rules_answer.RULES, *rules_facts.RULES, *rules_preferences.RULES)
"""Every rule in the order the tables were written: project facts and answer style, facts
about the user, then preferences and constraints (the first hit wins)."""


CONTRAST_BARE_VALUE = re.compile(
    r"(?i)^(?:(?:it'?s|it is|that'?s|就是|应该是|其实是|是)\s*)?"
    r"(?!(?:i|i'm|my|we|you|he|she|they|use|make|write|give|keep|answer|reply)\b)"
    r"[\w\u4e00-\u9fff.'-]+(?:\s+[\w\u4e00-\u9fff.'-]+){0,2}$"
)
"""A statement that is only a value of at most three words ("cashews", "it's Friday",
"是周五"), no clause of its own (no subject, no request verb: "Use Python, not bash")."""


SOFT_WISH = re.compile(
    r"(?i)尽量|比较|就行|就好|最好|[吧呗][\s。.!！~～]*$|\b(?:if possible|ideally|plenty|better"
    r"|i'?d (?:rather|prefer|like))\b"
)
"""Words that make a standing instruction a wish ("以后尽量这样", "…就行", "…吧"), not a rule
("must", "必须", "always")."""
_RULE_WORDS = re.compile(
    r"(?i)\b(?:must|always|never|don't|do not|no)\b|必须|一定|千万|务必|不要|别|不准|禁止"
)


def _first_hit(body: str) -> Hit | None:
    """The hit of the first rule that matches ``body`` with a usable object."""
    stated = bool(FIRST_PERSON_PREF.search(body))
    for pattern, builder in RULES:
        m = pattern.search(body)
        if m is None:
            continue
        hit = builder(m, stated)
        if hit is not None and hit.object and len(hit.object) <= MAX_OBJECT:
            return hit
    return None


_SPEAKER_CLAUSE = re.compile(r"(?i)^(?:i|we)(?:'[a-z]+|’[a-z]+)?\s+\w")
"""A clause the speaker says of themselves: a sentence, never the bare new value of a
correction."""


class RuleExtractor:
    """Pattern-based extractor for Chinese and English (see :mod:`langgraph_memory.write.extract`).

    ``extract`` is deterministic and side-effect free; it expects text that has already been
    through :class:`~langgraph_memory.core.redact.Redactor`.
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
                    object=clean(text)[:200] or "instruction",
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
        one_off = says_this_turn_only(clause)
        language = detect_language(clause)
        body, explicit, correction = strip_markers(clause)
        clause_pii = [t for t in pii if clause_has(clause, t)]
        clause_refused = [t for t in refused if clause_has(clause, t)]

        def make(hit: Hit, raw: str, retract: bool = False) -> Candidate:
            conf = hit.confidence + (0.05 if explicit else 0.0)
            tentative = hedged and hedges_value(clause, hit.object)
            # a refused value elsewhere in the clause ("我喜欢喝茶，密码是[PASSWORD]") only
            # blocks the part that holds it; the stored text is then that part alone
            part_refused = [t for t in clause_refused if clause_has(raw, t)]
            text = clause if part_refused or not clause_refused else raw
            return Candidate(
                subject=hit.subject,
                predicate=hit.predicate,
                object=hit.object,
                text=text,
                kind=hit.kind,
                confidence=min(conf, 0.99) * (0.6 if tentative else 1.0),
                evidence=evidence,
                scope_level="project" if hit.scope_level == "project" else "user",
                hedged=tentative,
                one_off=one_off,
                explicit=explicit or hit.explicit,
                language=language,
                source=source,
                multi_valued=hit.multi_valued,
                correction=correction or hit.kind == "correction",
                corrects=hit.corrects,
                retract=retract or hit.retract,
                pii=[t for t in clause_pii if clause_has(text, t)],
                refused_pii=part_refused,
                injection=injection,
            )

        # explicit corrections spanning a comma
        for pattern in (CORR_ZH, CORR_ZH2, *CORR_EN):
            m = pattern.match(body)
            if m and (pattern is not CORR_ZH2 or correction):
                pre = m.groupdict().get("pre") or ""
                hit = correction_hit(pre, m.group("x"), m.group("y"))
                if hit is not None:
                    # "我的名字不是X，是Y" with a known predicate keeps the fact's kind
                    return [make(hit, body)]
        if RETRACT.search(clause):
            rest = RETRACT.split(clause)[-1]
            rest_body, _, _ = strip_markers(rest.strip(" ,，.。!！:：;；-—"))
            # "scratch that, the budget is 25k now, not 20k": a contrast names what it replaces
            said = self._contrast(rest_body, make, correction=True, explicit=explicit) or [
                c
                for part in PART_SPLIT.split(rest_body)
                if part.strip()
                for c in self._part(part.strip(), make, explicit=explicit)
            ]
            tail = [c.model_copy(update={"scratch": True, "correction": True}) for c in said]
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
            for part in PART_SPLIT.split(body):
                part = part.strip()
                if part:
                    found.extend(self._part(part, make, explicit=explicit))
        if not found and correction:
            m2 = CORR_TAIL_EN.match(body) or CORR_TAIL_ZH.match(body)
            value = m2.group("y") if m2 else body
            switched = SWITCHED.search(value)
            if switched:  # "红茶喝多了睡不着，已经换成普洱了": the value switched to
                value = value[switched.end() :]
            value = re.split(r"[，,;；]", value)[0].strip()  # "是小宇，宇宙的宇": the value
            # "Sorry, I meant Rust": a short bare value after a correction marker
            if (
                value
                and (m2 or short_value(value))
                and not PRONOUNS.match(clean(value))
                and not _SPEAKER_CLAUSE.match(value)  # "Actually I've changed my mind."
            ):
                hit = correction_hit("", None, value)
                if hit is not None:
                    found.append(make(hit, body))
        if not found and explicit and body and not hedged and not QUESTION.search(body):
            note = clean(body)
            # a long pasted text is a document, not a fact: it belongs in external storage
            words = len(note.split()) if not re.search(r"[\u4e00-\u9fff]", note) else len(note) // 2
            if note and not PRONOUNS.match(note) and words >= 2 and len(note) <= 300:
                standing = FROM_NOW_ON.search(clause) and not REMEMBER.search(clause)
                if standing and SPEAKER_STATEMENT.match(note):
                    # "I hope to work on it in the future": the speaker's plan, not a rule
                    return found
                if standing and SOFT_WISH.search(clause) and not _RULE_WORDS.search(clause):
                    # "以后回答尽量分点列出来吧", "bullet points 比较好读, 以后都这样 format 吧":
                    # a wish for how answers look, said softly, is the user's preference
                    hit = Hit(
                        "user",
                        "prefers",
                        note,
                        "preference",
                        explicit=True,
                        multi_valued=True,
                        confidence=0.85,
                    )
                elif standing:
                    # "from now on, start every answer with a summary": a standing
                    # instruction no rule names is a constraint on the assistant
                    hit = Hit(
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
                    hit = Hit(
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
        body, _, _ = strip_markers(part)
        request = POLITE_REQUEST.match(body)
        if request is not None:  # "Can you reply in Spanish from now on?": an instruction
            body = body[request.end() :].rstrip(" ?？")
        elif QUESTION.search(body):
            return []  # a question asserts nothing ("Do I like tea?", "你喜欢什么颜色？")
        item = LIST_LEAD.sub("", body, count=1)
        if item != body and RULE_ITEM.search(item):
            body = item  # "…, and no emojis please": a rule as the list's last item
        hit = _first_hit(body)
        if hit is None and explicit:
            hit = note_rule(body)
        if hit is None:
            return []
        return [make(h, body) for h in (hit, *hit.also) if h.object]

    def _contrast(
        self, body: str, make: Callable[..., Candidate], *, correction: bool, explicit: bool
    ) -> list[Candidate]:
        """ "I use vim, not emacs", "数据库换成 Postgres 了，不是 MySQL", "I meant Lille, not
        Lyon": the facts of the statement before "not", each naming the value it replaces
        (earlier parts of the clause are read as usual)."""
        m = CONTRAST_EN.match(body) or CONTRAST_ZH.match(body) or CONTRAST_ZH_BARE.match(body)
        if m is None:
            return []
        *head, stmt = [p.strip() for p in PART_SPLIT.split(m.group("stmt")) if p.strip()] or [""]
        old = clean(m.group("x"))
        if not stmt or not old or PRONOUNS.match(old) or NOT_A_VALUE.match(old):
            return []
        hit = _first_hit(stmt) or used_tool(stmt)
        # "cashews, not peanuts", "是周五不是周四": two bare values and nothing else say a
        # correction without its marker (it hits the record holding the old value, else
        # is kept in the user's words)
        bare = (
            not head
            and short_value(old)
            and bool(re.search(r",\s*not\s", body) or CONTRAST_ZH_BARE.match(body))
            and bool(CONTRAST_BARE_VALUE.match(clean(stmt)))
            and not says_this_turn_only(body)  # "Use Python for this script, not bash"
        )
        if hit is None and (correction or bare) and short_value(clean(stmt)):
            hit = correction_hit("", old, stmt)
        if hit is None:
            return []
        old_topic = topic_of(old)
        named = old_topic[1] if old_topic and old_topic[0] == hit.predicate else old
        found = [c for part in head for c in self._part(part, make, explicit=explicit)]
        hits = (replace(hit, corrects=hit.corrects or named), *hit.also)
        return found + [make(h, stmt) for h in hits if h.object]


__all__ = [
    "RULES",
    "RuleExtractor",
]
