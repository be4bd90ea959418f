"""A redacted turn's candidates, before any gate: rules, then the LLM extractor (per
``llm_mode``), then the clause classifier's review; flagged for PII and injection, deduplicated
and capped.

Pure apart from the model call and logging: nothing is read from or written to the store.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.logsafe import get_logger
from ..core.pii_detect import find_pii
from ..core.records import Evidence, Source
from ..core.redact import PLACEHOLDERS
from ..core.scope import Scope
from .classify import ClauseClassifier
from .decide import ClauseVerdict, apply_classifier, describe
from .extract.injection import detect_injection
from .extract.llm import LLMExtractor
from .extract.markers import about_a_thing
from .extract.rule_extractor import RuleExtractor
from .lexicon import predicate_hint
from .script import as_said, simplified
from .slots.holder import held_predicate
from .types import Candidate, WriteConfig

log = get_logger("write")


def bounded_turn(text: str, limit: int, scope: Scope, key: str | None) -> tuple[str, int | None]:
    """``text`` cut to ``limit`` characters (``config.max_turn_chars``), and its original
    length when cut (a warning is logged)."""
    if len(text) <= limit:
        return text, None
    log.warning(
        "turn truncated for memory extraction",
        extra={
            "event": "turn_truncated",
            "user_id": scope.user_id,
            "turn_key": key,
            "chars": len(text),
            "limit": limit,
        },
    )
    return _cut(text, limit), len(text)


_CUT_AHEAD = 256
"""How far past the limit :func:`_cut` looks for the end of a value the limit falls in."""


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, or before a PII value the limit would cut in half
    (half of "sk-test-Zr8Lm2Qx9Kp4" is no longer recognisable as a secret, and would be kept)."""
    for start, end, _ in find_pii(text[: limit + _CUT_AHEAD]):
        if start < limit < end:
            return text[:start]
    return text[:limit]


def pii_types(
    redacted: str, found: list[str], refused: list[str], config: WriteConfig
) -> tuple[list[str], list[str]]:
    """PII types in the turn: found now, or already redacted earlier (placeholders in text
    that went through a journal): a ``refuse`` placeholder still refuses."""
    pii = list(found)
    out_refused = list(refused)
    for kind, label in PLACEHOLDERS.items():
        if f"[{label}" in redacted:
            if kind not in pii:
                pii.append(kind)
            if config.pii_policy.get(kind) == "refuse" and kind not in out_refused:
                out_refused.append(kind)
    return pii, out_refused


def flagged(
    cand: Candidate, pii: Sequence[str], refused: Sequence[str], injection: str | None
) -> Candidate:
    """A model's candidate with its PII and injection flags recomputed from the user's words
    (the model's word is not trusted for them): the turn's PII types whose placeholder the
    candidate's text or object holds."""
    labels = {t: f"[{PLACEHOLDERS[t]}" for t in PLACEHOLDERS}
    return cand.model_copy(
        update={
            "pii": [t for t in pii if labels[t] in cand.text or labels[t] in cand.object],
            "refused_pii": [
                t for t in refused if labels[t] in cand.text or labels[t] in cand.object
            ],
            "injection": cand.injection or injection,
        }
    )


def bound_candidates(
    candidates: list[Candidate], config: WriteConfig, scope: Scope, key: str | None
) -> list[Candidate]:
    """Cap the number of candidates and the length of their text (a pasted document must
    not turn into hundreds of writes or an oversized record)."""
    limit, chars = config.max_candidates, config.max_text_chars
    unique: dict[tuple[str, str, str, str, bool], Candidate] = {}
    for c in candidates:  # one turn stating a fact twice is one statement
        statement = (*c.key(), c.kind, c.retract)
        kept = unique.setdefault(statement, c)
        if c.explicit and not kept.explicit:  # "回答简洁一点，别啰嗦": once as an order
            unique[statement] = kept.model_copy(update={"explicit": True})
    candidates = list(unique.values())
    if len(candidates) > limit:
        log.warning(
            "too many memory candidates in one turn; extra ones dropped",
            extra={
                "event": "write_candidates_capped",
                "user_id": scope.user_id,
                "turn_key": key,
                "found": len(candidates),
                "kept": limit,
            },
        )
        candidates = candidates[:limit]
    return [
        c if len(c.text) <= chars else c.model_copy(update={"text": c.text[:chars].rstrip() + "…"})
        for c in candidates
    ]


def turn_candidates(
    text: str,
    evidence: Evidence,
    source: Source,
    pii: list[str],
    refused: list[str],
    *,
    config: WriteConfig,
    rules: RuleExtractor,
    llm: LLMExtractor | None,
    classifier: ClauseClassifier | None,
) -> tuple[list[Candidate], list[ClauseVerdict]]:
    """Rule candidates, then the LLM extractor's (per ``config.llm_mode``), then the clause
    classifier's review and extraction (see :mod:`langgraph_memory.write.decide`).

    Traditional Chinese is read as simplified (:func:`~langgraph_memory.write.script.simplified`)
    and every value is stored in the characters the user typed."""
    simple = simplified(text)
    found, verdicts = _turn_candidates(
        simple or text, evidence, source, pii, refused, config=config, rules=rules, llm=llm,
        classifier=classifier,
    )  # fmt: skip
    if simple is None:
        return found, verdicts
    return [_as_said(c, simple, text) for c in found], verdicts


def _as_said(candidate: Candidate, simple: str, original: str) -> Candidate:
    """``candidate`` (read from ``simple``) with its words in ``original``'s characters."""
    update = {
        name: as_said(getattr(candidate, name), simple, original)
        for name in ("subject", "predicate", "object", "text", "corrects")
        if isinstance(getattr(candidate, name), str)
    }
    return candidate.model_copy(update=update)


def _turn_candidates(
    text: str,
    evidence: Evidence,
    source: Source,
    pii: list[str],
    refused: list[str],
    *,
    config: WriteConfig,
    rules: RuleExtractor,
    llm: LLMExtractor | None,
    classifier: ClauseClassifier | None,
) -> tuple[list[Candidate], list[ClauseVerdict]]:
    candidates = rules.extract(text, evidence=evidence, source=source, pii=pii, refused_pii=refused)
    mode = config.llm_mode
    llm_ran = llm is not None and mode != "off" and (mode == "always" or not candidates)
    # the LLM's facts stand in for the classifier's own extraction only when it found
    # some the user stated (grounded): an empty or ungrounded answer must not cost the
    # turn what the classifier would have extracted
    # (ungrounded LLM candidates skip the classifier: the gate rejects them with their
    # reason, and they must not hide the clause from the classifier's extraction)
    llm_found = False
    ungrounded: list[Candidate] = []
    if llm_ran:
        assert llm is not None
        found = _llm_candidates(llm, text, evidence, source, pii, refused, candidates)
        ungrounded = [c for c in found if c.source is not source]
        candidates.extend(c for c in found if c.source is source)
        llm_found = len(ungrounded) < len(found)
    if classifier is None:
        return held_by_relatives(not_of_things(candidates)) + ungrounded, []
    candidates, verdicts = apply_classifier(
        text,
        candidates,
        classifier,
        evidence=evidence,
        source=source,
        pii=pii,
        refused=refused,
        # the extractor flagged the turn on every candidate it made (and made one when it
        # flagged a turn with no fact), so the turn's verdict is already here
        injection=next((c.injection for c in candidates if c.injection), None),
        extract=not llm_found,
    )
    for v in verdicts:
        log.debug(
            "clause classified as %s: %s",
            describe(v.prediction),
            v.action,
            extra={"event": "clause_classified", "kind": v.prediction.kind, "action": v.action},
        )
    return held_by_relatives(not_of_things(candidates)) + ungrounded, verdicts


def held_by_relatives(candidates: list[Candidate]) -> list[Candidate]:
    """``candidates`` with a food limit said of one of the user's people named as the guide
    names it ("my son is allergic to peanuts" → ``son_allergy``, kind ``constraint``, see
    :mod:`~langgraph_memory.write.slots.holder`): the user's own ``allergy`` must not hold
    their son's allergen, and the assistant must still respect it for him."""
    out = []
    for c in candidates:
        predicate = held_predicate(c.predicate, c.text, c.object) if c.subject == "user" else ""
        if predicate and predicate != c.predicate:
            kind = c.kind if c.kind == "correction" or c.correction else "constraint"
            c = c.model_copy(update={"predicate": predicate, "kind": kind})
        out.append(c)
    return out


THING_REASON = "the clause is about a thing, not the user: it corrects none of the user's facts"
"""Reason of a user correction vetoed because its clause is about a thing."""


def not_of_things(candidates: list[Candidate]) -> list[Candidate]:
    """``candidates`` with the user's corrections whose clause is about a thing ("oh the
    office plant needs water", "不对，办公室的绿萝该浇水了") vetoed: the words say how that
    thing is, so they must not replace the user's drink or location. A thing that names one
    of the user's attributes ("the budget is $3,000, not $2,500") is the user's."""
    return [
        c.model_copy(update={"vetoed": THING_REASON})
        if c.subject in {"user", ""}
        and (c.correction or c.kind == "correction")
        and not c.retract
        and about_a_thing(c.text)
        and not _names_attribute(c)
        else c
        for c in candidates
    ]


def _names_attribute(candidate: Candidate) -> bool:
    """True when the candidate's words name its attribute ("the budget is $3,000")."""
    words = candidate.predicate.replace("_", " ")
    text = candidate.text.casefold()
    return bool(words and words in text) or predicate_hint(candidate.text) is not None


def _llm_candidates(
    llm: LLMExtractor,
    text: str,
    evidence: Evidence,
    source: Source,
    pii: list[str],
    refused: list[str],
    found: list[Candidate],
) -> list[Candidate]:
    """The LLM extractor's candidates not already ``found``, flagged (:func:`flagged`)."""
    try:
        extra = llm.extract(text, evidence=evidence, source=source)
    except Exception as exc:  # the LLM is optional: never lose the rule results
        log.warning(
            "LLM extractor failed; using rule candidates only",
            extra={"event": "llm_extract_failed", "error": type(exc).__name__},
        )
        return []
    seen = {c.key() for c in found}
    out: list[Candidate] = []
    for cand in extra:
        if cand.key() in seen:
            continue
        seen.add(cand.key())
        out.append(flagged(cand, pii, refused, detect_injection(text)))
    return out


__all__ = [
    "THING_REASON",
    "bound_candidates",
    "bounded_turn",
    "flagged",
    "not_of_things",
    "pii_types",
    "turn_candidates",
]
