"""Whether a clause is an order to the assistant: :func:`not_an_order` (a statement, advice
to the listener or an epistemic "you must have…" is no rule for the assistant's answers) and
:data:`SPEAKER_STATEMENT` (the speaker's own plan after "from now on"). Pure."""

from __future__ import annotations

import re

from .values import clean

SPEAKER_STATEMENT = re.compile(
    r"(?i)^(?:[\w .'-]{1,30}:\s*)?(?:(?:and|but|so|also)\s+)*"
    r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|my|our|here's|there's|it|it's|that's"
    r"|this|he|she|they|in the future,?\s+i\b|have you|did you|do you)\b"
)
"""A clause about the speaker or the world, not addressed to the assistant."""
NOT_A_DIRECTIVE_EN = re.compile(
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
EPISTEMIC_MUST = re.compile(r"(?i)^you must\s+(?:have|love|feel|know|think|miss|enjoy|mean|see)\b")
""""You must have put in a ton of work", "you must love it": a guess about the listener."""
ADVICE_TO_LISTENER = re.compile(r"(?i)\byour(?:self|selves)\b|\byou(?:\s+(?:down|back|out))?$")
"""Advice about the listener's own life ("don't let anything stop you", "don't limit
yourself"): encouragement between people, not a rule for the assistant's answers."""


_ORDER_LEAD_EN = re.compile(
    r"(?i)^(?:[\w .'-]{1,30}:\s*)?(?:please\s+)?(?:don't|don’t|do not|dont|never|always|avoid|stop"
    r"|make sure (?:to|you)|be sure to|you must|you should always)\s+(?:ever\s+)?"
)


def not_an_order(clause: str) -> bool:
    """True for an English clause worded like an order that orders nothing: "Never been to
    Japan", "Don't know what I'd do without them", "You must have worked hard", "Don't let
    anything stop you" (see :data:`NOT_A_DIRECTIVE_EN`)."""
    m = _ORDER_LEAD_EN.match(clause.strip())
    if m is None:
        return False
    rest = clean(clause.strip()[m.end() :])
    prohibition = not re.match(r"(?i)always|make|be sure|you", m.group(0).split(":")[-1].strip())
    return bool(
        NOT_A_DIRECTIVE_EN.match(rest)
        or (prohibition and rest.lower().startswith("be "))  # "don't be scared", as the rules
        or EPISTEMIC_MUST.match(clause.strip())
        or ADVICE_TO_LISTENER.search(rest)
    )


__all__ = [
    "ADVICE_TO_LISTENER",
    "EPISTEMIC_MUST",
    "NOT_A_DIRECTIVE_EN",
    "SPEAKER_STATEMENT",
    "not_an_order",
]
