"""Candidates the clause classifier builds from slots (:mod:`~langgraph_memory.write.slots`).

For :func:`~langgraph_memory.write.decide.apply_classifier`: :func:`extract_clause` for a
clause no rule understood, :func:`missed_facts` for the typed values a rule's clause names
beyond the rule's, :func:`typed_instead` / :func:`sharpened` / :func:`allergens` to retype a
rule's catch-all, and :func:`pii_free_parts` to retry a clause whose only value was redacted.
New candidates have ``extractor="classifier"``; a retyped one keeps its own. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..core.records import Evidence, Source
from ..core.redact import PLACEHOLDER_RE
from ..core.text import detect_language
from .classify import WRITE_KINDS, ClauseClassifier, KindPrediction
from .extract.markers import QUESTION, RETRACT, clause_has, hedges_value, is_hedged, strip_markers
from .extract.one_off import says_this_turn_only
from .extract.orders import not_an_order
from .gate import PII_PREDICATES
from .lexicon import ADDABLE_PREDICATES, adds_value, language_of
from .premises import stated_parts
from .slots.diet import allergy_slots, described_diet, diet_or_allergy_slot
from .slots.dispatch import RULE_TOOLS, TOOLS, TYPED_FACTS, fact_slots, other_tools, slot_for
from .slots.model import Slot, strip_lead
from .slots.preference import NOT_FACT_TOPICS, language_preference, speaks_slots, split_parts
from .slots.triggers import trigger_slots
from .slots.typed import quantity_slot, typed_slot
from .types import Candidate

TYPED_PREFERENCES = frozenset(
    {"answer_language", "response_length", "ui_theme", "indentation", "editor", "units"}
)
"""Typed predicates a clause states as the user's preference, not a fact about them."""

TYPED_SLOTS = TYPED_FACTS | {"answer_language", "response_length", "ui_theme", "indentation"}
"""The typed predicates of the labelling guide: their values come from detectors that name a
value of a known type (a lexicon tool, a place after a verb of living, a money amount in a
spending clause…), not from the clause's words kept whole."""
TYPED_WRITE_PROBABILITY = 0.5
"""Write probability at which a clause no rule understood still gets its *typed* slots: the
model leans towards "worth remembering" and a typed detector names the value, two pieces of
evidence, where a free-text note (the clause kept whole) needs ``thresholds.extract``. Below
it, or for a question or a hedged clause, nothing is extracted."""


_IMPERATIVE = re.compile(
    r"(?i)^(?:please\s+|pls\s+|kindly\s+)?(?:never|don't|do not|dont|only|always|avoid|stop"
    r"|make sure|ensure|no\s+\w+|must|keep|use|write|reply|answer|respond|include|add|put"
    r"|limit|cap)\b"
    r"|^(?:请|麻烦)?(?:不要|别|绝对不|不得|禁止|不准|不许|千万别|严禁|只|必须|务必|一律|始终|一定要|永远不要)"
)
"""A clause worded as an order to the assistant."""


def part_slots(clause: str) -> list[Slot]:
    """The typed values of the guide each comma/dash part of a long clause states on its own
    ("我写前端的，主要用TypeScript，编辑器是WebStorm": the editor too; "I'm an accountant at a
    small firm, and I'm on Atlantic time": the timezone too) — one fact per part, whatever
    kind the whole clause was read as. Empty for a clause of one part; a drink or cuisine is
    a liking and is left to the clause's own reading."""
    parts = split_parts(clause)
    if len(parts) < 2:
        return []
    return [
        slot
        for part in parts
        for slot in fact_slots(strip_lead(part))
        if slot.predicate in TYPED_SLOTS and slot.predicate not in {"drink", "cuisine"}
    ]


def added_slots(clause: str) -> list[Slot]:
    """The typed values each comma/dash part of ``clause`` adds with an additive marker, of a
    predicate one can hold several of ("Honestly I live on coffee, and I also like green tea"
    → green tea; "我喜欢喝咖啡，还有奶茶也爱喝" → 奶茶): a second value of the same predicate
    that a clause's one reading would leave out."""
    out: list[Slot] = []
    for part in split_parts(clause):
        if not adds_value(part):
            continue
        typed = typed_slot(strip_lead(part))
        if typed is not None and typed.predicate in ADDABLE_PREDICATES:
            out.append(typed)
    return out


def mark_additions(candidates: Sequence[Candidate]) -> list[Candidate]:
    """``candidates`` with those said as an addition marked ``adds`` (and ``multi_valued``): a
    value of a predicate one can hold several of (:data:`~.lexicon.ADDABLE_PREDICATES`) whose
    clause has an additive marker and no switch (:func:`~.lexicon.adds_value`: "I also drink
    coffee now", "我还喜欢喝奶茶", "也养了一只猫"; not "I switched from tea to coffee",
    "还是喝茶吧"). Such a value is added next to the stored ones instead of superseding them;
    it is no correction unless it names the value it replaces (then it is left as it is), nor
    is a withdrawal or a "scratch that"."""
    out: list[Candidate] = []
    for c in candidates:
        if (
            c.predicate in ADDABLE_PREDICATES
            and not (c.retract or c.scratch or c.corrects or c.kind == "correction")
            and adds_value(c.text)
        ):
            c = c.model_copy(update={"adds": True, "multi_valued": True, "correction": False})
        out.append(c)
    return out


def pii_valued(candidate: Candidate) -> bool:
    """True when the candidate's value is a redacted identifier (the gate will refuse it)."""
    return bool(PLACEHOLDER_RE.search(candidate.object)) or candidate.predicate in PII_PREDICATES


_SECRET_PARTS = re.compile(r"[,，;；—–]|\s-\s|、")
"""Where a clause is cut to keep a redacted secret's part apart from the others."""


def pii_free_parts(clause: str) -> list[str]:
    """The comma/dash-separated parts of ``clause`` that hold no redacted value ("call me at
    [PHONE], I'm a freelance translator" → "I'm a freelance translator")."""
    parts = [p.strip() for p in _SECRET_PARTS.split(clause)]
    return [p for p in parts if p and not PLACEHOLDER_RE.search(p) and len(p) >= 3]


def _from_slot(
    slot: Slot,
    kind: str,
    clause: str,
    prediction: KindPrediction,
    *,
    evidence: Evidence,
    source: Source,
    pii: Sequence[str],
    refused: Sequence[str],
    injection: str | None,
) -> Candidate:
    _, explicit, correction = strip_markers(clause)
    if any(clause_has(clause, t) for t in refused):
        # "My key is [API_KEY], and the project is on Python 3.12": a refused secret blocks only
        # the part that holds it; the value's own part is stored alone (as the rules do)
        value = slot.object.casefold()
        own = next((p for p in pii_free_parts(clause) if value in p.casefold()), None)
        secret_parts = [p for p in _SECRET_PARTS.split(clause) if PLACEHOLDER_RE.search(p)]
        if own is not None and not any(value in p.casefold() for p in secret_parts):
            clause = own  # (a value also read in the secret's part, "mysql://…", stays refused)
    return Candidate(
        subject=slot.subject,
        predicate=slot.predicate,
        object=slot.object,
        text=clause,
        kind=kind,
        confidence=min(0.99, 0.8 + 0.19 * prediction.write_probability),
        evidence=evidence,
        scope_level="project" if slot.subject == "project" else "user",
        hedged=hedges_value(clause, slot.object),
        one_off=says_this_turn_only(clause),
        # the user stated it: a stated preference needs no repetition; a constraint worded as
        # an order ("Only suggest…", "不要…") is explicit, a rule read into a remark is not
        explicit=True
        if kind == "preference"
        else explicit
        or (
            kind == "constraint"
            and bool(_IMPERATIVE.match(strip_lead(clause)))
            and not not_an_order(clause)
        ),
        language=detect_language(clause),
        source=source,
        extractor="classifier",
        multi_valued=slot.multi_valued,
        correction=correction or kind == "correction",
        corrects=slot.corrects,
        pii=[t for t in pii if clause_has(clause, t)],
        refused_pii=[t for t in refused if clause_has(clause, t)],
        injection=injection,
    )


def missed_facts(
    clause: str,
    kept: Sequence[Candidate],
    pred: KindPrediction,
    classifier: ClauseClassifier,
    evidence: Evidence,
    source: Source,
    pii: Sequence[str],
    refused: Sequence[str],
) -> list[Candidate]:
    """Typed values a clause names beyond the rules' — one clause, several slots: the
    attributes a fact clause names ("我是护士，在市一院上班": a rule took the occupation, the
    employer is added), the typed value each part names ("我用 neovim，缩进习惯两个空格": the
    indentation next to the editor; "From now on: Spanish, short answers": the length next to
    the language) and every language of "I speak 普通话, 粤语 and English". Only when the
    model leans towards a clause worth remembering (:data:`TYPED_WRITE_PROBABILITY`)."""
    scratched = [c for c in kept if c.retract and not c.predicate]
    if scratched and RETRACT.search(clause):
        # "Scratch that, I'm on CET now — moved to Vienna": what follows the withdrawal is new
        rest = RETRACT.split(clause)[-1].strip(" ,，.。!！:：;；-—")
        if not rest or len(scratched) < len(kept):
            return []
        reading = classifier.predict([rest])[0]
        new = missed_facts(rest, [], reading, classifier, evidence, source, pii, refused) or [
            c
            for c in extract_clause(
                rest, reading, classifier, True, evidence, source, pii, refused, None,
                free_text=False,
            )
            if c.predicate != "note"
        ]  # fmt: skip
        return [c.model_copy(update={"correction": True}) for c in new]
    if (
        pred.kind not in {"stable_fact", "preference", "constraint"}
        or pred.write_probability < TYPED_WRITE_PROBABILITY
        or any(c.correction or c.retract for c in kept)
    ):
        return []  # a correction names one new value; the others it names are the old ones
    have = {c.predicate for c in kept}
    said = {(c.predicate, c.object.casefold()) for c in kept}
    found = trigger_slots(strip_lead(clause)) if pred.kind != "preference" else []
    for part in split_parts(clause):
        body = strip_lead(part)
        typed = typed_slot(body) or language_preference(body)
        if typed is not None and typed.predicate not in NOT_FACT_TOPICS:
            found.append(typed)  # "我用 neovim，缩进习惯两个空格": the indentation
            if typed.predicate in TOOLS:  # "uses PostgreSQL 15 and pytest": the other tool
                owner = "project" if any(c.subject == "project" for c in kept) else "user"
                found += [replace(t, subject=owner) for t in other_tools(body, {typed.predicate})]
    added = added_slots(clause)  # "I live on coffee, and I also like green tea": a 2nd drink
    found += [a for a in added if a not in found]
    found += part_slots(clause)
    health = diet_or_allergy_slot(clause)
    if health is not None and health.predicate in {"diet", "allergy"}:
        found += allergy_slots(clause) or [health]  # "I'm vegan and also allergic to soy"
    spoken = speaks_slots(strip_lead(clause))
    found = [f for f in found if not (spoken and f.predicate == "answer_language")]
    found += [s for s in spoken if "speaks" in have]  # "I speak 普通话, 粤语 and English"
    out: list[Candidate] = []
    for slot in found:
        if (slot.predicate, slot.object.casefold()) in said or (
            slot.predicate in have
            and not (slot.multi_valued and slot.predicate in {"speaks", "allergy"})
            and slot not in added
        ):
            continue
        have.add(slot.predicate)
        said.add((slot.predicate, slot.object.casefold()))
        # a value added next to the rule's ("coffee, and I also like green tea") is of its kind
        kin = [c.kind for c in kept if c.predicate == slot.predicate and slot in added]
        out.append(
            _from_slot(
                slot,
                kin[0] if kin else _typed_kind(slot.predicate),
                clause,
                pred,
                evidence=evidence,
                source=source,
                pii=pii,
                refused=refused,
                injection=kept[0].injection if kept else None,
            )
        )
    return out


def extract_clause(
    clause: str,
    pred: KindPrediction,
    classifier: ClauseClassifier,
    extract: bool,
    evidence: Evidence,
    source: Source,
    pii: Sequence[str],
    refused: Sequence[str],
    injection: str | None,
    shown: str | None = None,
    free_text: bool = True,
) -> list[Candidate]:
    """Generic-slot candidates for a clause no rule understood, when the model reads it as
    worth remembering (else none); a typed value of the guide (:data:`TYPED_SLOTS`) needs
    only :data:`TYPED_WRITE_PROBABILITY` (see there). ``shown``: the clause with its end
    punctuation. ``free_text=False``: typed values only, never the clause kept whole as a
    note (the caller has less evidence than a clause read on its own)."""
    if not extract or pred.write_probability < TYPED_WRITE_PROBABILITY:
        return []
    if QUESTION.search(shown or clause):
        # "我在上海，有没有适合 solo 的 trip idea？" read as a fact: the typed values of the
        # parts that state something (never a note), each read with the sentence's reading
        return [
            c
            for part in stated_parts(clause)
            for c in extract_clause(
                part, pred, classifier, extract, evidence, source, pii, refused, injection,
                shown=part, free_text=False,
            )
        ]  # fmt: skip
    sure = free_text and pred.write_probability >= classifier.thresholds.extract
    hedged = not sure and is_hedged(clause)
    kind = max(
        (k for k in pred.probabilities if k in WRITE_KINDS), key=lambda k: pred.probabilities[k]
    )
    if kind != "correction" and strip_markers(clause)[2]:
        # "oops, …", "actually …": the words mark a correction, whatever the model leans to;
        # its new value is read as a correction's (the one value after the old)
        kind = "correction"
    slots = [
        (
            s,
            _typed_kind(s.predicate)
            if kind == "preference" and s.predicate in _FACT_ONLY
            else kind,
        )
        for s in slot_for(kind, clause)
    ]  # "坐标武汉，欢迎来玩" read as a preference: the place it states is a fact
    if kind != "correction":  # a correction names one new value; the others are old ones
        named = {s.predicate for s, _ in slots}
        for extra in part_slots(clause):
            if extra.predicate not in named:
                named.add(extra.predicate)
                slots.append((extra, _typed_kind(extra.predicate)))
        values = {(s.predicate, s.object.casefold()) for s, _ in slots}
        for extra in added_slots(clause):  # "I live on coffee, and I also like green tea"
            if (extra.predicate, extra.object.casefold()) not in values:
                values.add((extra.predicate, extra.object.casefold()))
                kin = [k for s, k in slots if s.predicate == extra.predicate]
                slots.append((extra, kin[0] if kin else _typed_kind(extra.predicate)))
    if hedged:  # only what a part with no hedge of its own states ("…, it's fine I guess")
        slots = [(s, k) for s, k in slots if not hedges_value(clause, s.object)]
        if not slots:
            return []
    if not sure:
        slots = [(s, k) for s, k in slots if s.predicate in TYPED_SLOTS]
        if not slots:  # the kind is unsure too: the typed value a fact reading names
            slots = [
                (s, _typed_kind(s.predicate))
                for s in slot_for("stable_fact", clause)
                if s.predicate in TYPED_SLOTS and not (hedged and hedges_value(clause, s.object))
            ]
    return [
        _from_slot(
            slot,
            slot_kind,
            clause,
            pred,
            evidence=evidence,
            source=source,
            pii=pii,
            refused=refused,
            injection=injection,
        )
        for slot, slot_kind in slots
    ]


_FACT_ONLY = frozenset(
    {"name", "location", "hometown", "occupation", "employer", "timezone", "birthday", "speaks",
     "budget", "deadline", "diet", "allergy", "dietary_restriction"}
)  # fmt: skip
"""Typed predicates that are never a preference of the user's, whatever kind the clause is read
as: their record takes the guide's kind (:func:`_typed_kind`). A pet is not one: named in a
preference ("I'm a cat person") it is what the user likes."""


def _typed_kind(predicate: str) -> str:
    """The kind the guide gives a typed predicate's record: a preference for how answers and
    tools look, a constraint for diets and allergies, else a stable fact."""
    if predicate in TYPED_PREFERENCES:
        return "preference"
    if predicate in {"diet", "allergy", "dietary_restriction"}:
        return "constraint"
    return "stable_fact"


GENERIC_PREDICATES = frozenset(
    {"note", "prefers", "likes", "has", "uses", "runs", "trait", "identity"}
)
"""Catch-all predicates of a rule or a generic slot: a typed value of the guide named in the
same clause ("后端我最喜欢 Go" → programming_language; "i run arch" → operating_system)
replaces them, so a later value of that predicate supersedes it."""


def typed_instead(candidate: Candidate, clause: str, heard: str | None = None) -> list[Candidate]:
    """A rule's free-text ``must``/``note`` that is really the answer-language or answer-length
    preference ("以后reply我都用English吧") becomes that preference, so a later one supersedes
    it; a catch-all (:data:`GENERIC_PREDICATES`) whose clause names a typed value becomes that
    value; an obligation naming a tool ("以后统一用 pytest") keeps the rule and gains the tool.
    ``heard``: the kind the classifier reads the clause as (a language named in a clause read
    as a preference is the answer language: "算了还是中文吧")."""
    if candidate.predicate == "dietary_restriction":
        diet = described_diet(clause)  # "I don't eat meat or fish": the diet it describes
        if diet is not None:
            # "fish is fine now, still no meat": a lifted restriction that leaves a described
            # diet is that diet, stated (it replaces the old one), not a withdrawal
            return [
                candidate.model_copy(
                    update={
                        "predicate": "diet",
                        "object": diet,
                        "retract": False,
                        "correction": candidate.correction or candidate.retract,
                    }
                )
            ]
    if (
        candidate.predicate == "diet"
        and candidate.object == "vegetarian"
        and not candidate.retract
        and described_diet(clause, meatless=True) == "vegan"
    ):  # "我吃素好多年了，全素，蛋奶都不碰": the rule read 吃素 alone; the clause says vegan
        return [candidate.model_copy(update={"object": "vegan"})]
    lang = language_of(candidate.object) if candidate.retract else None
    if candidate.subject == "assistant" and lang and len(candidate.object) <= 24:
        # "English is fine again", "英文也可以了": the answers' language the user goes back to
        return [
            candidate.model_copy(
                update={
                    "subject": "user",
                    "predicate": "answer_language",
                    "object": lang,
                    "kind": "preference",
                    "retract": False,
                    "correction": True,
                    "multi_valued": False,
                    "scope_level": "user",
                }
            )
        ]
    if candidate.subject == "assistant" and candidate.predicate in {"must", "must_not"}:
        # "不能吃辣": the user's limit, not a rule's words; "预算不能超过5000元": the budget
        health = diet_or_allergy_slot(clause) or quantity_slot(clause)
        if health is not None:
            # "fish is fine now, still no meat": lifting one food leaves the diet the clause
            # describes, which is stated (it replaces the old diet), not withdrawn
            stated = candidate.retract and health.predicate == "diet"
            return [
                candidate.model_copy(
                    update={
                        "subject": "user",
                        "predicate": health.predicate,
                        "object": health.object,
                        "kind": "constraint",
                        "multi_valued": health.multi_valued,
                        "retract": candidate.retract and not stated,
                        "correction": candidate.correction or stated,
                    }
                )
            ]
    if candidate.subject == "user" and candidate.predicate in GENERIC_PREDICATES:
        health = diet_or_allergy_slot(clause)  # "pescatarian here": the diet, a constraint
        if health is not None and health.predicate in {"diet", "allergy"}:
            return [
                candidate.model_copy(
                    update={
                        "predicate": health.predicate,
                        "object": health.object,
                        "kind": "constraint",
                        "multi_valued": health.multi_valued,
                    }
                )
            ]
    if candidate.subject == "project" or (
        candidate.predicate not in GENERIC_PREDICATES and candidate.predicate != "must"
    ):
        return [candidate]
    typed = typed_slot(strip_lead(clause))
    if typed is None and "preference" in {candidate.kind, heard}:
        typed = language_preference(strip_lead(clause))
    if typed is None:
        return [candidate]
    if candidate.predicate == "must" and typed.predicate not in {
        "answer_language",
        "response_length",
    }:
        if typed.predicate not in RULE_TOOLS:
            return [candidate]
        extra = candidate.model_copy(
            update={
                "subject": "user",
                "predicate": typed.predicate,
                "object": typed.object,
                "kind": "preference",
                "multi_valued": False,
            }
        )
        return [extra, candidate]
    if candidate.predicate == "note" and typed.predicate in NOT_FACT_TOPICS:
        return [candidate]
    preference = typed.predicate in TYPED_PREFERENCES or candidate.predicate == "must"
    return [
        candidate.model_copy(
            update={
                "subject": "user",
                "predicate": typed.predicate,
                "object": typed.object,
                "kind": "preference" if preference else candidate.kind,
                "multi_valued": typed.multi_valued,
                "explicit": True if preference else candidate.explicit,
            }
        )
    ]


def allergens(candidate: Candidate, clause: str) -> list[Candidate]:
    """An allergy value that holds several allergens or the words around one ("shellfish and
    sesame", "过敏的是核桃") as one candidate per allergen the clause names; unchanged when
    the clause names none inside the value."""
    if candidate.predicate != "allergy":
        return [candidate]
    found = [s for s in allergy_slots(clause) if s.object in candidate.object.casefold()]
    if not found or [s.object for s in found] == [candidate.object]:
        return [candidate]
    return [candidate.model_copy(update={"object": s.object, "multi_valued": True}) for s in found]


def _narrower(old: str | None, than: str | None) -> bool:
    """True when ``old`` is a shorter span inside ``than`` (both set)."""
    return bool(old and than and old != than and old in than)


def sharpened(candidate: Candidate, clause: str) -> list[Candidate]:
    """A rule's catch-all ``note`` (the clause kept whole because no rule named its value), or
    a correction's bare value taken as all the words after its marker, replaced by the
    attribute/value slots the clause has ("其实我早换成 neovim 了" → editor
    Neovim; "打错了，叫旺旺不是旺财" → the value 旺旺 correcting 旺财); unchanged when the
    clause has none. The candidate's flags (explicit, correction, scratch...) are kept."""
    bare = candidate.predicate == "" and candidate.correction
    if (
        (candidate.predicate != "note" and not bare)
        or candidate.retract
        or candidate.refused_pii
        or PLACEHOLDER_RE.search(candidate.object)
    ):
        return [candidate]
    kind = "correction" if candidate.correction else "stable_fact"
    slots = [s for s in slot_for(kind, clause) if s.predicate != "note"]
    if bare:  # keep the rule's bare value unless the clause names one (or its old one) more
        # precisely ("it's tree nuts, not peanuts — peanuts are fine": the old value "peanuts")
        slots = [
            s
            for s in slots
            if s.predicate
            or s.object != candidate.object
            or _narrower(s.corrects, candidate.corrects)
        ]
    if not slots:
        return [candidate]
    return [
        candidate.model_copy(
            update={
                "subject": slot.subject,
                "predicate": slot.predicate,
                "object": slot.object,
                "multi_valued": slot.multi_valued,
                "corrects": slot.corrects or candidate.corrects,
                "scope_level": "project" if slot.subject == "project" else "user",
            }
        )
        for slot in slots
    ]


__all__ = [
    "GENERIC_PREDICATES",
    "TYPED_PREFERENCES",
    "TYPED_SLOTS",
    "TYPED_WRITE_PROBABILITY",
    "added_slots",
    "allergens",
    "extract_clause",
    "mark_additions",
    "missed_facts",
    "part_slots",
    "pii_free_parts",
    "pii_valued",
    "sharpened",
    "typed_instead",
]
