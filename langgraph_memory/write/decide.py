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

A clause of a turn with several is read with its turn, the turn's share being
:func:`context_weight` (½ for two sentences, less the longer the turn: the question or story
around a buried fact must not outvote it). Long turns get more rules:

* **premises** — a clause read as noise may still state a durable part ("since I'm lactose
  intolerant now, what can I bake?"): :func:`~langgraph_memory.write.premises.premises`
  finds it, and its candidates are reviewed with its own reading (where no rule found one:
  typed values, and a note only when the part states a rule, a habit or a liking);
* **free text stands alone** — a clause is kept whole as a note only when it reads as worth
  remembering on its own, not merely with its turn's context;
* **no long notes** — a sentence too long for a note
  (:func:`~langgraph_memory.write.premises.too_long_for_a_note`) gives its durable parts,
  never itself;
* **announcements** — a sentence that only announces a correction ("Oops, I was sloppy
  earlier.") gives nothing, and the next sentence's candidates are corrections.
* **stories** — in a turn of :data:`NARRATIVE_CLAUSES` sentences or more, a free-text note needs
  the words of a rule, a liking or "remember", someone else's rule is none, and a drink or
  cuisine needs a liking (:func:`_unless_narrative`).

Then :func:`~langgraph_memory.write.guide_kinds.settle_all` gives the kinds the words fix
(health limits are constraints, a rule kept as a note is a rule, "don't call me X" is no name),
and a value that is not the user's current one is vetoed with its own reason
(:data:`_NOT_THE_USERS_NOW`): another person's opinion, habit or tool, a stranger's value,
someone else's rule, a translation's target language, a past stay's place, a state that has
ended (:mod:`~langgraph_memory.write.past_state`); after them fiction and role-play, and
values said only inside quotation marks.

The candidates the classifier adds or rewrites (extract, retype, typed values a rule missed)
are built in :mod:`~langgraph_memory.write.slot_candidates`; this module decides per clause.

Pure: no store access; the verdict per clause is returned for logging.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.records import Evidence, Source
from .classify import NOISE_KINDS, WRITE_KINDS, ClauseClassifier, KindPrediction, Thresholds
from .extract.markers import FROM_NOW_ON, REMEMBER, announces_correction, split_clauses
from .extract.one_off import says_this_turn_only
from .guide_kinds import (
    about_a_stranger,
    about_someone_else,
    addresses_assistant,
    as_rule,
    others_habit,
    others_saying,
    others_view,
    sets_up_fiction,
    sets_up_role_play,
    settle_all,
    someone_elses_rule,
    states_rule,
    steps_out_of_fiction,
)
from .past_state import said_of_the_past
from .premises import durable_parts, fragments, premises, states_attitude, too_long_for_a_note
from .slot_candidates import (
    allergens,
    extract_clause,
    missed_facts,
    pii_free_parts,
    pii_valued,
    sharpened,
    typed_instead,
)
from .slots.diet import diet_or_allergy_slot
from .slots.dispatch import fact_slots
from .slots.triggers import continues_here
from .types import Candidate

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
    ``extracted``, ``announcement`` (the sentence only announces a correction: "I was wrong
    earlier"; nothing is taken from it) or ``none`` (no candidate, none extracted)."""


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


def _joined(text: str, clauses: list[str]) -> list[str]:
    """``clauses`` with a sentence that only says how long the user has been "here" joined to
    the sentence before it that names the place ("Greetings from Oslo! Been here about six
    years now.": one statement, see :func:`~.slots.triggers.continues_here`)."""
    out: list[str] = []
    for clause in clauses:
        if out and continues_here(out[-1], clause):
            start = text.find(out[-1])
            end = text.find(clause, start + len(out[-1])) if start >= 0 else -1
            if start >= 0 and end >= 0:
                out[-1] = text[start : end + len(clause)]
                continue
        out.append(clause)
    return out


def blend(clause: KindPrediction, turn: KindPrediction, weight: float = 0.5) -> KindPrediction:
    """A clause's probabilities mixed with its turn's (``weight``: the turn's share)."""
    probs = {
        k: (1.0 - weight) * p + weight * turn.probabilities.get(k, 0.0)
        for k, p in clause.probabilities.items()
    }
    kind = max(probs, key=lambda k: probs[k])
    return KindPrediction(
        kind=kind,
        probability=probs[kind],
        write_probability=sum(p for k, p in probs.items() if k in WRITE_KINDS),
        probabilities=probs,
    )


def context_weight(clauses: int) -> float:
    """The turn's share in a clause's reading: ``1 / clauses`` (½ for two sentences).

    The turn's reading is one reading of all its sentences; the more sentences, the less of
    it is about any one of them — the small talk or the question around a buried fact must
    not outvote the fact, and the fact must not turn the small talk into memories."""
    return 1.0 / max(clauses, 2)


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
    repetition gate to tell (it waits pending until said again), not the model's guess; and a
    clause that only says what the user likes (:data:`_PLAIN_LIKING`) or an order said for
    always (:data:`_STANDING_ORDER`)."""
    implicit_answer = (
        candidate.predicate in {"answer_language", "response_length"}
        and candidate.kind == "preference"
        and not candidate.explicit
        and not candidate.one_off
        and not says_this_turn_only(clause)
    )
    return bool(
        REMEMBER.search(clause)
        or FROM_NOW_ON.search(clause)
        or candidate.correction
        or candidate.retract
        or implicit_answer
        or (candidate.kind == "preference" and _PLAIN_LIKING.match(clause.strip()))
        or (candidate.subject == "assistant" and _STANDING_ORDER.match(clause.strip()))
    )


_STANDING_ORDER = re.compile(
    r"(?i)^\W*(?:(?:please|pls|plz)\s+)?(?:never|don't ever|do not ever|dont ever)\s+"
    r"(?:say|use|mention|call|send|write|include|reply|answer|suggest|recommend|share|put|add"
    r"|email|text|show|give|tell|start|end|open|format|ask|cc|bring up|talk about|refer to)\b"
    r"|^(?:永远|绝对|千万|再也)(?:不要|别|不许|不准|不能)(?:说|用|提|叫|发|写|推荐|加|给|问|回复)"
)
"""An order for always about what answers do ("Never say 'as an AI'", "Don't ever say…",
"永远不要提…"): a rule, whatever the model reads its quoted words as ("Never lose hope!" is
encouragement, not this)."""


_PLAIN_LIKING = re.compile(
    r"(?i)^i\s+(?:really\s+|absolutely\s+|just\s+|do\s+)?(?:like|love|enjoy|prefer|adore|hate"
    r"|dislike|can't stand)\s+(?!(?:it|that|this|them|you|your)\b)[\w' -]{2,40}[.!]*$"
    r"|^我(?:很|特别|超|真的|最|挺)?(?:喜欢|爱|讨厌|不喜欢)(?![你它这那])"
    r"[\u4e00-\u9fffA-Za-z ]{1,12}[。！!]*$"
)
"""A clause that only says what the user likes ("I like gardening", "我喜欢爬山"): a preference
in the guide's own example form, which the model's chit-chat reading must not veto."""


_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i'd|my|me|we|our)\b|我|咱")


INJECTION_PROBABILITY = 0.6
"""Probability of ``injection`` above which a clause's candidates are rejected as an
injection attempt, explicit ones included. Lower than the noise veto on purpose: a wrongly
refused memory costs a repetition, a stored permission grant costs a breach."""

INJECTION_WHY = "the classifier reads it as an instruction to change permissions or identity"
"""``Candidate.injection`` set by the classifier (the gate's injection reason quotes it)."""


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
    clauses = _joined(text, split_clauses(text))
    if not clauses:
        return list(candidates), []
    shown = [_with_end(text, c) for c in clauses]
    if len(clauses) == 1:
        predictions = alone = classifier.predict(shown)
    else:  # a clause is read together with its turn: "腿已经不是自己的了" after a race story
        *alone, whole = classifier.predict([*shown, text])
        weight = context_weight(len(clauses))
        predictions = [blend(p, whole, weight) for p in alone]
    owned: dict[int, list[Candidate]] = {}
    out: list[Candidate] = []
    for cand in candidates:
        idx = _owner(cand, clauses)
        if idx is None:
            out.extend(allergens(cand, cand.text))
        else:
            owned.setdefault(idx, []).append(cand)
    verdicts: list[ClauseVerdict] = []
    reader = _TurnReader(classifier, extract, evidence, source, pii, refused, injection)

    def read(
        text: str, end: str, reading: KindPrediction, mine: list[Candidate], notes: bool
    ) -> None:
        made, verdict = reader.read(text, end, reading, mine, free_text=notes)
        out.extend(made)
        verdicts.append(verdict)

    announced = False
    for i, (clause, pred) in enumerate(zip(clauses, predictions, strict=True)):
        mine = owned.get(i, [])
        if announces_correction(clause):
            # "Oops, I was sloppy earlier.": names no value; the next sentence corrects
            verdicts.append(ClauseVerdict(clause, pred, "announcement"))
            announced = True
            continue
        start = len(out)
        # a clause kept whole as a note must read as worth remembering on its own too: the
        # turn's context may veto it, never make a memory of it
        free_text = alone[i].write_probability >= classifier.thresholds.extract
        stated = premises(clause, pred, classifier)
        for said in stated:
            # a durable part of a question or a task: its own candidates, its own reading
            ours = [c for c in mine if _within(c, said.text)]
            mine = [c for c in mine if not _within(c, said.text)]
            read(said.text, said.text, said.prediction, ours, states_attitude(said.text))
        if mine or not stated:
            read(clause, shown[i], pred, mine, free_text)
        if announced:
            # the sentence after "I was wrong earlier" is the correction it announced
            out[start:] = [
                c if c.correction or c.retract else c.model_copy(update={"correction": True})
                for c in out[start:]
            ]
            announced = False
    retry = reader.retry
    for part, pred in zip(retry, classifier.predict(retry), strict=True):
        made = reader.extracted(part, pred, notes=True)
        if made:
            out.extend(made)
            verdicts.append(ClauseVerdict(part, pred, "extracted"))
    if len(clauses) >= NARRATIVE_CLAUSES:
        out = [_unless_narrative(c) for c in out]
    out = settle_all(out)
    for veto in _NOT_THE_USERS_NOW:
        out = [veto(c) for c in out]
    # a value the rules read as this turn's only ("Just this once，用日语回答我") is that for
    # every reading of it: the classifier's reading of a part lacks the "this once"
    once = {(c.predicate, c.object.casefold()) for c in out if c.one_off}
    out = [
        c.model_copy(update={"one_off": True})
        if not c.one_off and (c.predicate, c.object.casefold()) in once
        else c
        for c in out
    ]
    fiction = next((i for i, c in enumerate(clauses) if sets_up_fiction(c)), None)
    if fiction is not None:
        out = [_unless_fiction(c, clauses, fiction) for c in out]
    quoted = quoted_spans(text)
    if quoted:
        out = [_unless_quoted(c, text, quoted) for c in out]
    return out, verdicts


def _unless_others_rule(candidate: Candidate) -> Candidate:
    """A rule for the assistant vetoed when it is someone else's, in a turn of any length:
    reported words or the rule of a person or place ("My landlord insists tenants never hang
    laundry on the balcony", "学校通知说所有学生必须七点半前到校", "菜谱上说千万不要开烤箱";
    :func:`~langgraph_memory.write.guide_kinds.someone_elses_rule`), unless the rule has the
    assistant as its subject ("my boss says you must cc him") or says from now on."""
    if (
        candidate.vetoed
        or candidate.correction
        or candidate.retract
        or candidate.subject != "assistant"
        or candidate.predicate not in {"must", "must_not"}
    ):
        return candidate
    text = candidate.text
    opening = re.split(r"[，,;；:：]", text, maxsplit=1)[0]  # "…只推开源的，公司规定": a reason
    if not someone_elses_rule(opening) or addresses_assistant(text):
        return candidate
    if diet_or_allergy_slot(text) is not None or _ASKS_TO_MIND.search(text):
        return candidate  # "我妈不吃 spicy food，…推荐菜的时候注意一下": relayed for the assistant
    return candidate.model_copy(update={"vetoed": OTHERS_RULE_REASON})


_ASKS_TO_MIND = re.compile(
    r"(?i)\b(?:keep (?:that|this|it) in mind|when you (?:suggest|recommend|plan|write)|please"
    r" (?:account|factor|plan))\b|推荐.{0,6}(?:注意|考虑|避开)|(?:注意|记得|考虑)一下"
)
"""Words that ask the assistant to mind what the clause relays ("我妈不吃辣，推荐菜的时候注意一
下"): the rule is the user's for the assistant, whoever it protects."""


PAST_PLACE_REASON = (
    "a place of a past stay or trip (last year, 2019年, 住过), not where the user lives now"
)
"""Reason of a location vetoed by :func:`_unless_past_place`."""
TRANSLATION_REASON = "the language of a text to translate, not the language of the answers"
"""Reason of an answer language vetoed by :func:`_unless_translation`."""
_PAST_TIME = re.compile(
    r"(?i)\b(?:last (?:year|month|week|summer|winter|spring|fall|autumn|weekend)|\d+ (?:years?"
    r"|months?|weeks?) ago|back in (?:19|20)\d{2}|in (?:19|20)\d{2}|when i was|yesterday"
    r"|for a (?:conference|trip|wedding|week|weekend|few days)|stayed (?:for )?(?:a|one|two|three"
    r"|a few|\d+) (?:nights?|days?|weeks?))\b"
    r"|去年|前年|上个月|上周|上星期|上礼拜|昨天|前天|那时候?|当年|(?:19|20)\d{2}年|住过|待过|去过|玩了"
    r"|住了(?:一|两|三|四|五|几|半|\d+)(?:个)?(?:天|周|晚|星期|礼拜|夜|月)"
)
_NOW_OR_MOVE = re.compile(
    r"(?i)\b(?:now|currently|these days|still|moved|relocated|settled|live|living)\b"
    r"|现在|目前|如今|还在|一直|搬到|搬去|搬来|定居|住在"
)
_TRANSLATE = re.compile(r"(?i)\btranslat\w*|翻译|译成|翻成")


def _unless_translation(candidate: Candidate) -> Candidate:
    """The language a text is to be translated into ("Translate this into French") is no answer
    language: vetoed, unless the clause says from now on."""
    if candidate.vetoed or candidate.correction or candidate.retract:
        return candidate
    if (
        candidate.predicate == "answer_language"
        and _TRANSLATE.search(candidate.text)
        and not FROM_NOW_ON.search(candidate.text)
    ):
        return candidate.model_copy(update={"vetoed": TRANSLATION_REASON})
    return candidate


def _unless_past_place(candidate: Candidate) -> Candidate:
    """A ``location`` said only of a past stay or trip ("去年十月我在杭州跑了人生第一个全马",
    "2019年我在成都住过半年", "上个月 I went to Tokyo for a conference") is vetoed: a move
    ("moved to Berlin last month") or a present word keeps it."""
    if candidate.vetoed or candidate.correction or candidate.retract:
        return candidate
    text = candidate.text
    if (
        candidate.predicate == "location"
        and _PAST_TIME.search(text)
        and not _NOW_OR_MOVE.search(text)
    ):
        return candidate.model_copy(update={"vetoed": PAST_PLACE_REASON})
    return candidate


PAST_STATE_REASON = (
    "said of a state that has ended (used to, back when, my old…, 以前, 住过): history, not a "
    "current fact"
)
"""Reason of a candidate vetoed by :func:`_unless_past_state`."""
_TIMELESS = frozenset({"hometown", "birthday", "name", "allergy"})
"""Facts a past word does not end ("小时候在青岛长大" is where the user is from;
"小时候吃了一次坚果，全身起疹子" tells when an allergy was found)."""


def _unless_past_state(candidate: Candidate) -> Candidate:
    """``candidate`` vetoed when its value is said only of a state that has ended
    (:func:`~langgraph_memory.write.past_state.said_of_the_past`: "I used to live in Rome",
    "My old laptop ran Ubuntu", "我以前的电脑是 Windows", "之前吃过一年素，后来坚持不下去了"). A
    correction, a retraction, a fact no past word ends (:data:`_TIMELESS`) and a rule
    the clause states for the assistant are left as they are."""
    if (
        candidate.vetoed
        or candidate.correction
        or candidate.retract
        or candidate.predicate in _TIMELESS
        or (candidate.subject == "assistant" and states_rule(candidate.text))
    ):
        return candidate
    if not said_of_the_past(candidate.text, candidate.object or ""):
        return candidate
    return candidate.model_copy(update={"vetoed": PAST_STATE_REASON})


FICTION_REASON = (
    "the turn sets up fiction, a role-play or a mock scene: the values it describes are the "
    "characters', not the user's"
)
"""Reason of a candidate vetoed by :func:`_unless_fiction`."""


def _unless_fiction(candidate: Candidate, clauses: Sequence[str], start: int) -> Candidate:
    """``candidate`` vetoed when it comes from the clause that sets up fiction, a role-play or
    a mock scene, or from a later one (``start``: the first such clause;
    :func:`~langgraph_memory.write.guide_kinds.sets_up_fiction`), unless its clause steps out
    to tell about the user ("I'm vegan myself"). What the user said before the setup ("I'm
    vegan btw. Write me a story about a dragon"), what a later clause says in the user's own
    voice or asks of the assistant ("…Before that though: I'm deaf, so please don't suggest
    podcasts"), corrections and retractions are kept; a later clause that describes someone
    ("She's in her forties") is the fiction's, and in a role-play every later clause is the
    scene's (the user casts themselves too: "you're a travel agent and I'm a vegan tourist")."""
    if candidate.vetoed or candidate.correction or candidate.retract:
        return candidate
    at = _owner(candidate, clauses)
    if (at is not None and at < start) or steps_out_of_fiction(candidate.text):
        return candidate
    role_play = any(sets_up_role_play(c) for c in clauses[start : (at or start) + 1])
    if (
        at is not None
        and at > start
        and not role_play
        and (candidate.subject == "assistant" or _FIRST_PERSON_SAID.search(candidate.text))
    ):
        return candidate  # after the setup: "Before that though: I'm deaf, so please don't…"
    return candidate.model_copy(update={"vetoed": FICTION_REASON})


_FIRST_PERSON_SAID = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|me|my)\b|我(?!们)")
"""A clause in the user's own voice (after a fiction's setup it tells about the user; the
setup clause itself may cast the user as a character: "我是一个只吃素的和尚")."""


OTHERS_VIEW_REASON = (
    "another person's opinion or urging: the value it names is theirs, not the user's"
)
"""Reason of a candidate vetoed by :func:`_unless_others_view`."""


def _unless_others_view(candidate: Candidate) -> Candidate:
    """``candidate`` vetoed when it is a value of the user's own (no person prefix such as
    ``brother_occupation``) taken from a clause that is another person's opinion or urging
    (:func:`~langgraph_memory.write.guide_kinds.others_view`), or another person's habit, taste
    or tool (:func:`~langgraph_memory.write.guide_kinds.others_habit`: "我主管每天都只喝黑咖啡",
    "Some people prefer tabs"); a note only for an opinion or saying ("My mom always says
    never go to bed angry"). The user's own liking or use said in the same stretch keeps it
    ("my friend recommended vim and now I love it"); a correction, a retraction, a rule for the
    assistant and a project's fact are left as they are."""
    if (
        candidate.vetoed
        or candidate.correction
        or candidate.retract
        or candidate.subject != "user"
        or candidate.predicate not in _OWN_VALUES | {"note"}
    ):
        return candidate
    if candidate.predicate == "note":
        # "My mom always says never go to bed angry": her saying (a note of the user's people's
        # own doings, "my son loves dinosaurs", is kept: no opinion verb)
        if others_saying(candidate.text) and not _FIRST_PERSON_SAID.search(
            _OPENER.sub("", candidate.text, count=1)
        ):
            return candidate.model_copy(update={"vetoed": OTHERS_VIEW_REASON})
        return candidate
    health = candidate.predicate in {"diet", "allergy", "dietary_restriction"}
    text = _segment_with(candidate.text, candidate.object)
    if _LIKES.search(text) or _OWN_USE.search(text):
        return candidate  # "my friend recommended vim and now I love it": the user's own
    theirs = others_view(text, health=health) or (
        not health and others_habit(text, candidate.object)
    )  # "我主管每天早上都只喝黑咖啡": the boss's drink (a relative's diet is the user's to mind)
    if not theirs:
        return candidate
    return candidate.model_copy(update={"vetoed": OTHERS_VIEW_REASON})


_OPENER = re.compile(r"(?i)^\W*(?:my|our)\s+(?:[\w-]+\s+){0,2}?[\w-]+|^\W*我(?:的|们的?)?")
"""The "my …" / "我…" that names the other person, not the user speaking of themselves."""


STRANGER_REASON = (
    "said of someone who is none of the user's people (people in general, a customer, a public "
    "figure): their value, not the user's"
)
"""Reason of a candidate vetoed by :func:`_unless_a_strangers`."""


def _unless_a_strangers(candidate: Candidate) -> Candidate:
    """``candidate`` vetoed when its value is said of someone who is none of the user's people
    (:func:`~langgraph_memory.write.guide_kinds.about_a_stranger`: "Some people prefer tabs", "A
    customer told me he's allergic to gluten", "隔壁桌新来的实习生特别爱吃榴莲"): any fact, taste,
    tool or note of the user's. Corrections, retractions, rules for the assistant and project
    facts are left as they are."""
    if (
        candidate.vetoed
        or candidate.correction
        or candidate.retract
        or candidate.subject != "user"
        or not about_a_stranger(_segment_with(candidate.text, candidate.object), candidate.object)
    ):
        return candidate
    return candidate.model_copy(update={"vetoed": STRANGER_REASON})


_CONTRAST = re.compile(r"(?i)\s*(?:[,，;；]\s*)?\b(?:but|however|though)\b|但是|不过|可是|其实")


def _segment_with(text: str, value: str) -> str:
    """The stretch of ``text`` between contrast words ("but", "但是"…) that holds ``value``
    ("My partner says I'm obsessed but matcha lattes are my go-to": the second one), else
    ``text``."""
    segments = _CONTRAST.split(text)
    holding = [s for s in segments if value and value.casefold() in s.casefold()]
    return holding[0] if len(segments) > 1 and holding else text


_OWN_VALUES = frozenset(
    {"answer_language", "response_length", "ui_theme", "indentation", "editor",
     "programming_language", "operating_system", "database", "test_framework", "drink",
     "cuisine", "diet", "allergy", "dietary_restriction", "likes", "dislikes", "prefers"}
)  # fmt: skip
"""The user's own tastes, tools and limits: what another person's opinion names is not one."""
_OWN_USE = re.compile(
    r"(?i)\bi\s+(?:now\s+|also\s+|actually\s+)?(?:use|switched|moved|went with|code in|write in"
    r"|stick with)\b|我(?:现在|也|已经)?(?:在用|用的是|换成了?|改用了?)"
)
"""The user's own use stated next to another person's opinion ("…and I switched to it")."""


QUOTED_REASON = "the value was said inside quotation marks: quoted words, not the user's statement"
"""Reason of a candidate vetoed by :func:`_unless_quoted`."""
_QUOTED = re.compile(
    r"\"([^\"]{3,})\"|“([^”]{2,})”|「([^」]{2,})」|『([^』]{2,})』|(?:(?<=[\s:：，,(（])|^)'((?:[^'\n]|(?<=\w)'(?=\w)){3,}?)'(?=[\s,.!?;:。，！？]|$)"
)


def quoted_spans(text: str) -> list[str]:
    """The spans of ``text`` inside quotation marks ("Translate 'I am a nurse' into French" →
    ``["I am a nurse"]``); an apostrophe inside a word ("I'm", "it's") quotes nothing."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


_OPENING_QUOTE = re.compile(r"[\"“「『']")


def _outside_quotes(clause: str, quoted: Sequence[str]) -> str:
    """``clause`` with its quotations blanked, also one the sentence split cut open
    ("…的开头："本人素食主义者，现居成都" when the quote goes on past a "。")."""
    own = _QUOTED.sub(" ", clause)
    for m in _OPENING_QUOTE.finditer(own):
        rest = own[m.end() :].strip()
        if rest and any(span.startswith(rest) or rest.startswith(span) for span in quoted):
            return own[: m.start()]
    return own


def _stated_outside(candidate: Candidate, outside: str) -> bool:
    """Whether ``outside`` (the candidate's clause with its quotations blanked) still names a
    value of the candidate's predicate."""
    found = [*fact_slots(outside), *filter(None, [diet_or_allergy_slot(outside)])]
    return any(s.predicate == candidate.predicate for s in found)


_ORDER = re.compile(
    r"(?i)^\W*(?:(?:please|pls|plz)\s+)?(?:don't|do not|never|stop|quit it with|enough with"
    r"|cut (?:it )?out|avoid|no more|always|only)\b|别|不要|不许|不准|禁止|以后|每次"
)
"""An order's own words (outside the quotation it bans): "quit it with the '…' openers"."""


def _unless_quoted(candidate: Candidate, text: str, quoted: Sequence[str]) -> Candidate:
    """``candidate`` vetoed when its value was said only inside quotation marks: a sentence to
    translate or a saying quoted ("Translate 'I am a nurse' into French", "把“我住在北京”翻译成
    英文") is not the user telling about themselves. A value said outside the quotes too, a rule
    whose words outside the quotes state it ("别用 'Best regards'": the quote is what is banned), a
    correction or a retraction is left as it is."""
    value = (candidate.object or "").casefold()
    if not value or candidate.vetoed or candidate.correction or candidate.retract:
        return candidate
    outside = _QUOTED.sub(" ", text).casefold()
    if candidate.subject == "assistant" and candidate.predicate in {"must", "must_not"}:
        said = candidate.text.strip(" .。!！").casefold()
        if any(said and said in span.casefold() for span in quoted):
            return candidate.model_copy(update={"vetoed": QUOTED_REASON})  # all of it quoted
        own = _outside_quotes(candidate.text, quoted)
        if own == candidate.text:
            return candidate  # no quotation in the rule's own clause
        if (states_rule(own) or _ORDER.search(own) or FROM_NOW_ON.search(own)) and not (
            _TRANSLATE.search(own)
        ):
            return candidate  # "别用 'Best regards'", "don't call me 'champ'": the quote is banned
        return candidate.model_copy(update={"vetoed": QUOTED_REASON})  # "Translate 'never…'"
    if not any(value in span.casefold() for span in quoted):
        own = _outside_quotes(candidate.text, quoted)
        if (
            candidate.predicate in _NOTES | {"likes", "dislikes"}
            or value in own.casefold()
            or _stated_outside(candidate, own)
        ):
            return candidate  # a rule's words around a quoted form ("don't call me 'champ'")
        # the value is a canonical form ("本人素食主义者" → vegetarian): the words that said it
        # are inside the quotes when nothing outside them names that attribute
        return candidate.model_copy(update={"vetoed": QUOTED_REASON})
    if value in outside:
        return candidate
    return candidate.model_copy(update={"vetoed": QUOTED_REASON})


NARRATIVE_CLAUSES = 3
"""Sentences from which a turn is long enough to hold a story, a question with its background
or a task around its durable items: its free-text notes need the words of a rule, a liking or
"remember" (see :func:`_unless_narrative`)."""
NARRATIVE_REASON = (
    "a free-text note from a long turn that states no rule, liking or request to remember: "
    "a sentence of its story, question or task"
)
"""Reason of a note vetoed by :func:`_unless_narrative`."""
OTHERS_RULE_REASON = (
    "a rule of someone else (reported words, a person's habit or a place's regulation), not "
    "one for the assistant"
)
"""Reason of a rule vetoed by :func:`_unless_narrative`
(:func:`~langgraph_memory.write.guide_kinds.someone_elses_rule`)."""
_NOTES = frozenset({"note", "prefers", "must", "must_not"})
_LIKES = re.compile(
    r"(?i)\b(?:i|i'd|i'm)\s+(?:\w+\s+)?(?:like|love|prefer|enjoy|hate|can't stand|rather)\b"
    r"|我.{0,4}(?:喜欢|偏好|偏爱|习惯|希望|讨厌|受不了|爱吃|爱喝)"
)


TASTES = frozenset({"drink", "cuisine"})
"""Typed preferences that a long turn's story mentions far more often than it states ("咖啡都不
管用了", "we drank tea all afternoon"): from the classifier, they need words of a liking or a
habit (see :func:`_unless_narrative`)."""
_FAVOURITE = re.compile(
    r"(?i)\b(?:favou?rite|go-to|usual|always|usually|every (?:day|morning|night)|only drink"
    r"|addicted|fan of|can't live without|more of an? \w+ (?:guy|girl|person|drinker|fan))\b"
    r"|最爱|最喜欢|常喝|爱喝|只喝|只吃|爱吃|每天|天天|平时|一般|习惯"
)
TASTE_REASON = (
    "a drink or cuisine a long turn's story mentions, with no word of a liking or a habit"
)
"""Reason of a typed taste vetoed by :func:`_unless_narrative`."""


def _unless_narrative(candidate: Candidate) -> Candidate:
    """``candidate`` vetoed when it is a free-text note of a long turn whose words state no
    rule (:func:`~langgraph_memory.write.guide_kinds.states_rule`), no liking of the user's
    and no "remember" / "from now on": the sentences of a story or of a question's background
    ("we just kept arguing about the playlist", "我是照着网上的菜谱做的") are no memories; a
    typed value said in them (an allergy, a job) still is, and so is a rule ("whenever you
    edit documents for me you must keep British spelling") and any rule a rule extractor read
    (its patterns are rules already) unless it is someone else's: reported words or a rule of
    a person or place of the story
    (:func:`~langgraph_memory.write.guide_kinds.someone_elses_rule`). A drink or cuisine the
    classifier took from the story (:data:`TASTES`: "咖啡都不管用了") needs a word of the user's
    liking or habit ("my go-to", "每天都喝")."""
    if (
        candidate.predicate in TASTES
        and candidate.extractor == "classifier"
        and not (candidate.vetoed or candidate.correction or candidate.retract)
        and not (
            (_LIKES.search(candidate.text) or _FAVOURITE.search(candidate.text))
            and not about_someone_else(candidate.text)
        )
    ):
        return candidate.model_copy(update={"vetoed": TASTE_REASON})
    if (
        candidate.predicate not in _NOTES
        or candidate.vetoed
        or candidate.correction
        or candidate.retract
    ):
        return candidate
    text = candidate.text
    if candidate.extractor == "rule" and candidate.subject == "assistant":
        if someone_elses_rule(text):
            return candidate.model_copy(update={"vetoed": OTHERS_RULE_REASON})
        return candidate
    liking = bool(_LIKES.search(text)) and not about_someone_else(text)  # "我闺蜜有个习惯"
    if states_rule(text) or liking or REMEMBER.search(text) or FROM_NOW_ON.search(text):
        return candidate
    return candidate.model_copy(update={"vetoed": NARRATIVE_REASON})


_SELF_OBLIGED = re.compile(
    r"(?i)\b(?:i|we)\s+(?:really\s+|just\s+|still\s+|also\s+)?(?:have to|had to|need to|needed to"
    r"|must|gotta|got to)\b|我(?:必须|得|需要|还得|只好|不得不)"
)
_ADDRESSED = re.compile(r"(?i)\b(?:you|your|u)\b|你|您")


def _rule_of_the_user(candidate: Candidate, clause: str) -> bool:
    """Whether an extracted rule for the assistant is the user's own obligation ("I have to
    vent for a second", "I need to finish the report", "我得早点睡"): it binds the user, and no
    word addresses the assistant — not a rule for it."""
    return (
        candidate.subject == "assistant"
        and bool(_SELF_OBLIGED.search(clause))
        and not _ADDRESSED.search(clause)
    )


def _within(candidate: Candidate, part: str) -> bool:
    """Whether ``candidate``'s value was said in ``part``."""
    value = (candidate.object or "").casefold()
    return bool(value) and value in part.casefold()


@dataclass(slots=True)
class _TurnReader:
    """What every clause of one turn is read with (the classifier, whether to extract, the
    turn's evidence, source, PII and injection flags), and the PII-free parts of PII-only
    clauses to read again (``retry``)."""

    classifier: ClauseClassifier
    extract: bool
    evidence: Evidence
    source: Source
    pii: Sequence[str]
    refused: Sequence[str]
    injection: str | None
    retry: list[str] = field(default_factory=list)

    def extracted(
        self, text: str, reading: KindPrediction, *, notes: bool, shown: str | None = None
    ) -> list[Candidate]:
        """The classifier's candidates for ``text`` (``notes=False``: typed values only)."""
        return extract_clause(
            text, reading, self.classifier, self.extract, self.evidence, self.source,
            self.pii, self.refused, self.injection, shown=shown, free_text=notes,
        )  # fmt: skip

    def read(
        self,
        clause: str,
        shown: str,
        pred: KindPrediction,
        mine: list[Candidate],
        *,
        free_text: bool,
    ) -> tuple[list[Candidate], ClauseVerdict]:
        """One clause's candidates after the model's reading: the rules' reviewed (plus typed
        values they missed), else the classifier's extraction (``free_text=False``: typed
        values only). PII-only clauses add their PII-free parts to :attr:`retry`."""
        if mine:
            kept, action = _review(clause, mine, pred, self.classifier.thresholds)
            out = list(kept)
            if self.extract and action == "kept":
                out.extend(
                    missed_facts(
                        clause, kept, pred, self.classifier, self.evidence, self.source,
                        self.pii, self.refused,
                    )
                )  # fmt: skip
            if self.extract and all(pii_valued(c) for c in mine):
                self.retry.extend(pii_free_parts(clause))  # the only value found is redacted PII
            return out, ClauseVerdict(clause, pred, action)
        if self.extract and too_long_for_a_note(clause):
            # a long sentence is no note: keep its parts that read as durable on their own
            durable = durable_parts(clause, self.classifier)
            made = [
                c
                for part in durable
                for c in self.extracted(
                    part.text, part.prediction, notes=states_attitude(part.text)
                )
            ]
            if made:  # "I'm in Singapore, so UTC+8, and …": a bare timezone beside them, read
                # as the durable part it is said with (the sentence's reading may be the task's)
                have = {c.predicate for c in made}
                beside = max((p.prediction for p in durable), key=lambda p: p.write_probability)
                made += [
                    c
                    for part in fragments(clause)
                    for c in self.extracted(part, beside, notes=False)
                    if c.predicate not in have
                ]
            made = made or self.extracted(clause, pred, notes=False, shown=shown)
        else:
            made = self.extracted(clause, pred, notes=free_text, shown=shown)
        made = [c for c in made if not _rule_of_the_user(c, c.text)]
        return made, ClauseVerdict(clause, pred, "extracted" if made else "none")


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
        for t in typed_instead(c, clause, pred.kind)
        for s in sharpened(t, clause)
        for a in allergens(s, clause)
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
                rule = as_rule(c, clause)
                if rule is not None:
                    c, changed = rule, True
            out.append(c)
        return out, "retyped" if changed else "kept"
    return mine, "kept"


_NOT_THE_USERS_NOW = (
    _unless_others_view,
    _unless_a_strangers,
    _unless_others_rule,
    _unless_translation,
    _unless_past_place,
    _unless_past_state,
)
"""The vetoes of a value that is not the user's current one (someone else's, a translation's,
a past stay's, an ended state's), in the order their reasons are given (each skips a vetoed
candidate)."""


__all__ = [
    "VETO_REASON",
    "ClauseVerdict",
    "apply_classifier",
    "blend",
    "context_weight",
    "describe",
]
