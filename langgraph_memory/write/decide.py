"""Decide with a model, extract with rules: the clause classifier applied to a turn's candidates.

:func:`apply_classifier` takes the (redacted) turn and the candidates the rules (and the LLM
extractor, when one ran) produced, classifies each clause with
:class:`~langgraph_memory.write.classify.ClauseClassifier`, and returns the candidates to gate:

* **veto** — rule candidates of a clause the model reads as chit-chat, an event, a question
  or a one-off request (probability ≥ ``thresholds.veto``) are kept but marked
  ``Candidate.vetoed`` with the reason; the gate rejects them, so the decision is visible.
  Candidates the user made explicit ("remember …", "from now on …"), corrections and
  retractions are never vetoed;
* **hedge** — a clause the model reads as tentative marks its candidates ``hedged`` (working
  memory only);
* **retype** — a rule's free-text ``note`` in a clause the model reads as a constraint
  becomes ``must`` / ``must_not`` on the assistant (so it is always injected and checked);
* **extract** — a clause no rule understood, that the model reads as worth remembering
  (``write_probability`` ≥ ``thresholds.extract``), gets a candidate from
  :mod:`~langgraph_memory.write.slots` with the predicted kind (``extractor="classifier"``).

Pure: no store access; the verdict per clause is returned for logging.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.records import Evidence, Source
from ..core.text import detect_language
from .classify import NOISE_KINDS, WRITE_KINDS, ClauseClassifier, KindPrediction, Thresholds
from .extract.builders import not_an_order
from .extract.markers import (
    _FROM_NOW_ON,
    _QUESTION,
    _REMEMBER,
    _clause_has,
    _strip_markers,
    is_hedged,
    split_clauses,
)
from .extract.one_off import says_this_turn_only
from .gate import PII_PREDICATES
from .redact import PLACEHOLDER_RE
from .slots.diet import allergy_slots, described_diet, diet_or_allergy_slot
from .slots.dispatch import RULE_TOOLS, TYPED_FACTS, slot_for
from .slots.model import Slot, strip_lead
from .slots.preference import (
    _NOT_FACT_TOPICS,
    constraint_slot,
    language_preference,
    speaks_slots,
    split_parts,
)
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

VETO_REASON = "the clause reads as {kind} (classifier p={p:.2f}), not a durable fact"
"""Reason of a vetoed candidate (``{kind}``: the predicted kind, ``{p}``: its probability)."""
KIND_WORDS = {
    "chitchat": "chit-chat",
    "one_off": "a one-off request",
    "question": "a question",
    "event": "an event",
    "hedge": "a tentative statement",
    "injection": "an instruction to the assistant",
}


@dataclass(frozen=True, slots=True)
class ClauseVerdict:
    """What the classifier made of one clause."""

    clause: str
    prediction: KindPrediction
    action: str
    """``kept`` (rule candidates unchanged), ``vetoed``, ``hedged``, ``retyped``,
    ``extracted`` or ``none`` (no candidate, none extracted)."""


def describe(prediction: KindPrediction) -> str:
    """``"an event (p=0.91)"``: the prediction in words, for reasons and logs."""
    word = KIND_WORDS.get(prediction.kind, prediction.kind.replace("_", " "))
    return f"{word} (p={prediction.probability:.2f})"


def _with_end(text: str, clause: str) -> str:
    """``clause`` with the punctuation that ended it in ``text`` ("深圳哪家早茶好吃" →
    "深圳哪家早茶好吃？"): clause splitting drops Chinese sentence ends, which say a question."""
    at = text.find(clause)
    if at < 0:
        return clause
    end = at + len(clause)
    tail = ""
    while end < len(text) and text[end] in "?？!！。.…~～" and len(tail) < 3:
        tail += text[end]
        end += 1
    return clause + tail


def blend(clause: KindPrediction, turn: KindPrediction) -> KindPrediction:
    """The mean of a clause's and its turn's probabilities, as one prediction."""
    probs = {k: (p + turn.probabilities.get(k, 0.0)) / 2 for k, p in clause.probabilities.items()}
    kind = max(probs, key=lambda k: probs[k])
    return KindPrediction(
        kind=kind,
        probability=probs[kind],
        write_probability=sum(p for k, p in probs.items() if k in WRITE_KINDS),
        probabilities=probs,
    )


def _owner(candidate: Candidate, clauses: Sequence[str]) -> int | None:
    """Index of the clause ``candidate`` came from (its text is that clause or a part)."""
    text = candidate.text.strip()
    for i, clause in enumerate(clauses):
        if text and (text in clause or clause in text):
            return i
    return None


def _noise_probability(prediction: KindPrediction) -> float:
    return sum(p for k, p in prediction.probabilities.items() if k in NOISE_KINDS)


def _protected(candidate: Candidate, clause: str) -> bool:
    """Never vetoed as noise: the user asked to remember it ("remember …", "from now on …"),
    corrections and retractions; and an implicit answer preference (language, length) with
    no one-off marker ("请用中文回答", not "这次用英文回答"): whether it lasts is for the
    repetition gate to tell (it waits pending until said again), not the model's guess."""
    implicit_answer = (
        candidate.predicate in {"answer_language", "response_length"}
        and candidate.kind == "preference"
        and not candidate.explicit
        and not candidate.one_off
        and not says_this_turn_only(clause)
    )
    return bool(
        _REMEMBER.search(clause)
        or _FROM_NOW_ON.search(clause)
        or candidate.correction
        or candidate.retract
        or implicit_answer
    )


_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i'd|my|me|we|our)\b|我|咱")

_IMPERATIVE = re.compile(
    r"(?i)^(?:please\s+|pls\s+|kindly\s+)?(?:never|don't|do not|dont|only|always|avoid|stop"
    r"|make sure|ensure|no\s+\w+|must|keep|use|write|reply|answer|respond|include|add|put"
    r"|limit|cap)\b"
    r"|^(?:请|麻烦)?(?:不要|别|绝对不|不得|禁止|不准|不许|千万别|严禁|只|必须|务必|一律|始终|一定要|永远不要)"
)
"""A clause worded as an order to the assistant."""

INJECTION_PROBABILITY = 0.6
"""Probability of ``injection`` above which a clause's candidates are rejected as an
injection attempt, explicit ones included. Lower than the noise veto on purpose: a wrongly
refused memory costs a repetition, a stored permission grant costs a breach."""

INJECTION_WHY = "the classifier reads it as an instruction to change permissions or identity"
"""``Candidate.injection`` set by the classifier (the gate's injection reason quotes it)."""


def _pii_valued(candidate: Candidate) -> bool:
    """True when the candidate's value is a redacted identifier (the gate will refuse it)."""
    return bool(PLACEHOLDER_RE.search(candidate.object)) or candidate.predicate in PII_PREDICATES


def _pii_free_parts(clause: str) -> list[str]:
    """The comma/dash-separated parts of ``clause`` that hold no redacted value ("call me at
    [PHONE], I'm a freelance translator" → "I'm a freelance translator")."""
    parts = [p.strip() for p in re.split(r"[,，;；—–]|\s-\s|、", clause)]
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
    _, explicit, correction = _strip_markers(clause)
    return Candidate(
        subject=slot.subject,
        predicate=slot.predicate,
        object=slot.object,
        text=clause,
        kind=kind,
        confidence=min(0.99, 0.8 + 0.19 * prediction.write_probability),
        evidence=evidence,
        scope_level="project" if slot.subject == "project" else "user",
        hedged=is_hedged(clause),
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
        pii=[t for t in pii if _clause_has(clause, t)],
        refused_pii=[t for t in refused if _clause_has(clause, t)],
        injection=injection,
    )


def apply_classifier(
    text: str,
    candidates: Sequence[Candidate],
    classifier: ClauseClassifier,
    *,
    evidence: Evidence,
    source: Source,
    pii: Sequence[str] = (),
    refused: Sequence[str] = (),
    injection: str | None = None,
    extract: bool = True,
) -> tuple[list[Candidate], list[ClauseVerdict]]:
    """The candidates to gate and one verdict per clause (see module docstring).

    ``extract=False`` keeps veto/hedge/retype but adds no candidate (used when an LLM
    extractor already read the turn)."""
    clauses = split_clauses(text)
    if not clauses:
        return list(candidates), []
    shown = [_with_end(text, c) for c in clauses]
    if len(clauses) == 1:
        predictions = classifier.predict(shown)
    else:  # a clause is read together with its turn: "腿已经不是自己的了" after a race story
        *parts, whole = classifier.predict([*shown, text])
        predictions = [blend(p, whole) for p in parts]
    owned: dict[int, list[Candidate]] = {}
    out: list[Candidate] = []
    for cand in candidates:
        idx = _owner(cand, clauses)
        if idx is None:
            out.extend(_allergens(cand, cand.text))
        else:
            owned.setdefault(idx, []).append(cand)
    verdicts: list[ClauseVerdict] = []
    retry: list[str] = []
    for i, (clause, pred) in enumerate(zip(clauses, predictions, strict=True)):
        mine = owned.get(i, [])
        if mine:
            kept, action = _review(clause, mine, pred, classifier.thresholds)
            out.extend(kept)
            if extract and action == "kept":
                out.extend(
                    _missed_facts(clause, kept, pred, classifier, evidence, source, pii, refused)
                )
            verdicts.append(ClauseVerdict(clause, pred, action))
            if extract and all(_pii_valued(c) for c in mine):
                retry.extend(_pii_free_parts(clause))  # the only value found is redacted PII
            continue
        made = _extracted(
            clause,
            pred,
            classifier,
            extract,
            evidence,
            source,
            pii,
            refused,
            injection,
            shown=shown[i],
        )
        out.extend(made)
        verdicts.append(ClauseVerdict(clause, pred, "extracted" if made else "none"))
    for part, pred in zip(retry, classifier.predict(retry), strict=True):
        made = _extracted(
            part, pred, classifier, extract, evidence, source, pii, refused, injection
        )
        if made:
            out.extend(made)
            verdicts.append(ClauseVerdict(part, pred, "extracted"))
    return out, verdicts


def _missed_facts(
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
        if typed is not None and typed.predicate not in _NOT_FACT_TOPICS:
            found.append(typed)  # "我用 neovim，缩进习惯两个空格": the indentation
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
        ):
            continue
        have.add(slot.predicate)
        said.add((slot.predicate, slot.object.casefold()))
        out.append(
            _from_slot(
                slot,
                _typed_kind(slot.predicate),
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


def _extracted(
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
) -> list[Candidate]:
    """Generic-slot candidates for a clause no rule understood, when the model reads it as
    worth remembering (else none); a typed value of the guide (:data:`TYPED_SLOTS`) needs
    only :data:`TYPED_WRITE_PROBABILITY` (see there). ``shown``: the clause with its end
    punctuation."""
    if not extract or pred.write_probability < TYPED_WRITE_PROBABILITY:
        return []
    if _QUESTION.search(shown or clause):
        return []
    sure = pred.write_probability >= classifier.thresholds.extract
    if not sure and is_hedged(clause):
        return []
    kind = max(
        (k for k in pred.probabilities if k in WRITE_KINDS), key=lambda k: pred.probabilities[k]
    )
    slots = [(s, kind) for s in slot_for(kind, clause)]
    if not sure:
        slots = [(s, k) for s, k in slots if s.predicate in TYPED_SLOTS]
        if not slots:  # the kind is unsure too: the typed value a fact reading names
            slots = [
                (s, _typed_kind(s.predicate))
                for s in slot_for("stable_fact", clause)
                if s.predicate in TYPED_SLOTS
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


def _typed_instead(candidate: Candidate, clause: str, heard: str | None = None) -> list[Candidate]:
    """A rule's free-text ``must``/``note`` that is really the answer-language or answer-length
    preference ("以后reply我都用English吧") becomes that preference, so a later one supersedes
    it; a catch-all (:data:`GENERIC_PREDICATES`) whose clause names a typed value becomes that
    value; an obligation naming a tool ("以后统一用 pytest") keeps the rule and gains the tool.
    ``heard``: the kind the classifier reads the clause as (a language named in a clause read
    as a preference is the answer language: "算了还是中文吧")."""
    if candidate.predicate == "dietary_restriction":
        diet = described_diet(clause)  # "I don't eat meat or fish": the diet it describes
        if diet is not None:
            return [candidate.model_copy(update={"predicate": "diet", "object": diet})]
    if candidate.subject == "assistant" and candidate.predicate in {"must", "must_not"}:
        # "不能吃辣": the user's limit, not a rule's words; "预算不能超过5000元": the budget
        health = diet_or_allergy_slot(clause) or quantity_slot(clause)
        if health is not None:
            return [
                candidate.model_copy(
                    update={
                        "subject": "user",
                        "predicate": health.predicate,
                        "object": health.object,
                        "kind": "constraint",
                        "multi_valued": health.multi_valued,
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
    if candidate.predicate == "note" and typed.predicate in _NOT_FACT_TOPICS:
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


def _allergens(candidate: Candidate, clause: str) -> list[Candidate]:
    """An allergy value that holds several allergens or the words around one ("shellfish and
    sesame", "过敏的是核桃") as one candidate per allergen the clause names; unchanged when
    the clause names none inside the value."""
    if candidate.predicate != "allergy":
        return [candidate]
    found = [s for s in allergy_slots(clause) if s.object in candidate.object.casefold()]
    if not found or [s.object for s in found] == [candidate.object]:
        return [candidate]
    return [candidate.model_copy(update={"object": s.object, "multi_valued": True}) for s in found]


def _sharpened(candidate: Candidate, clause: str) -> list[Candidate]:
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
    if bare:  # keep the rule's bare value unless the clause names one more precisely
        slots = [s for s in slots if s.predicate or s.object != candidate.object]
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


def _review(
    clause: str, mine: list[Candidate], pred: KindPrediction, th: Thresholds
) -> tuple[list[Candidate], str]:
    """Rule candidates of one clause after the model's review, and what was done."""
    noise = _noise_probability(pred)
    if pred.kind == "injection" and pred.probability >= INJECTION_PROBABILITY:
        why = f"{INJECTION_WHY} (p={pred.probability:.2f})"
        return [c.model_copy(update={"injection": c.injection or why}) for c in mine], "vetoed"
    if pred.kind in NOISE_KINDS and noise >= th.veto:
        reason = VETO_REASON.format(kind=KIND_WORDS.get(pred.kind, pred.kind), p=pred.probability)
        out = [
            c if _protected(c, clause) else c.model_copy(update={"vetoed": reason}) for c in mine
        ]
        return out, "vetoed" if any(c.vetoed for c in out) else "kept"
    if pred.kind == "hedge" and pred.probability >= th.veto:
        return [c.model_copy(update={"hedged": True}) for c in mine], "hedged"
    mine = [
        a
        for c in mine
        for t in _typed_instead(c, clause, pred.kind)
        for s in _sharpened(t, clause)
        for a in _allergens(s, clause)
    ]
    if pred.kind == "correction" and pred.probability >= th.retype:
        # "我不叫小明，我叫小红": the model hears a correction the markers missed
        mine = [c if c.correction else c.model_copy(update={"correction": True}) for c in mine]
    if (
        pred.kind in WRITE_KINDS
        and pred.write_probability >= th.extract
        and _FIRST_PERSON.search(clause)
    ):
        # the user states a durable preference about themselves: it needs no repetition
        # (a bare reaction such as "太长了" still waits for a second turn)
        stated = [
            c.model_copy(update={"explicit": True}) if c.kind == "preference" else c for c in mine
        ]
        return stated, "kept"
    if pred.kind == "constraint" and pred.probabilities["constraint"] >= th.retype:
        out, changed = [], False
        for c in mine:
            if c.predicate in {"note", "likes", "prefers"} and c.subject == "user":
                slot = constraint_slot(clause)
                if slot is not None:
                    c = c.model_copy(
                        update={
                            "subject": slot.subject,
                            "predicate": slot.predicate,
                            "object": slot.object,
                            "kind": "constraint",
                            "multi_valued": True,
                            "explicit": True,
                        }
                    )
                    changed = True
            out.append(c)
        return out, "retyped" if changed else "kept"
    return mine, "kept"


__all__ = ["VETO_REASON", "ClauseVerdict", "apply_classifier", "describe"]
