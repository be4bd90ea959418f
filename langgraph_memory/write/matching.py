"""Matching and normalisation for resolve (pure): which stored record a value, a correction
or "scratch that" refers to.

* :func:`norm_value` — the comparison form of a value; :func:`names_value` — does a quoted old
  value ("MySQL") name a stored one ("MySQL 8.0")?
* :func:`turn_of` — the turn part of a write key; :func:`created_by` / :func:`unnamed` — the
  records a turn created (what "scratch that" withdraws).
* :func:`kin_record` — the record a correction of a generic attribute (``name``) means
  (``wife_name``); :func:`owned` / :func:`project_level` — a candidate's owner and level.
"""

from __future__ import annotations

import re
import unicodedata

from ..core.records import MemoryRecord
from ..core.scope import Scope
from .extract.fragments import RELATION_EN, RELATION_ZH
from .lexicon import topic_of
from .types import Candidate


def turn_of(key: str) -> str:
    """The turn part of a write key (``"<thread>:<turn>#<candidate index>"``)."""
    return key.rsplit("#", 1)[0] if "#" in key else key


def norm_value(value: str | None) -> str:
    """Comparison form of an object value: NFKC, case-folded, spaces and punctuation collapsed."""
    if not value:
        return ""
    text = unicodedata.normalize("NFKC", value).casefold()
    return re.sub(r"[\s\W_]+", " ", text).strip()


def project_level(candidate: Candidate, scope: Scope) -> str | None:
    """The ``project_id`` a fact of ``candidate`` is stored under: the scope's project for a
    project-level candidate, else None (the user's own level)."""
    return scope.project_id if candidate.scope_level == "project" else None


def owned(candidate: Candidate, subject: str) -> Candidate:
    """``candidate`` owned by ``subject``, at the project level when that is the project."""
    level = "project" if subject == "project" else "user"
    return candidate.model_copy(update={"subject": subject, "scope_level": level})


def names_value(quoted: str | None, stored: str | None) -> bool:
    """True when the old value a correction quotes ("MySQL", "Postgres") names the stored
    value ("MySQL 8.0", "PostgreSQL 16"): the same value, the stored one with more words
    after it (a version) or the quoted one with more words after the stored one ("dark mode"
    names "dark"), or the same known tool."""
    want, have = norm_value(quoted), norm_value(stored)
    if not want or not have:
        return False
    if want == have or have.startswith(want + " ") or want.startswith(have + " "):
        return True  # "MySQL" names "MySQL 8.0"; "dark mode" names "dark"
    a, b = topic_of(quoted or ""), topic_of(stored or "")
    return a is not None and a == b


_FIRST_PERSON = re.compile(r"(?i)\b(?:my|i|i'm|i am|me|mine)\b|我")
_OTHER_OWNER = re.compile(
    rf"(?i)\b(?:he|she|his|her|hers|him|its|they|their)\b|\b(?:{RELATION_EN})\b"
    rf"|[他她它]|{RELATION_ZH}"
)


def names_other_owner(text: str) -> bool:
    """True when ``text`` says the attribute is someone else's ("her birthday", "he's 8",
    "女儿今年9岁")."""
    return bool(_OTHER_OWNER.search(text))


def names_own_attribute(text: str) -> bool:
    """True when ``text`` says the attribute is the user's own ("actually my name is Bob",
    "不对，我叫小明") and names nobody else: a correction that can only be of the user's
    own record, never of a relative's."""
    return bool(_FIRST_PERSON.search(text)) and not names_other_owner(text)


def kin_record(
    records: list[MemoryRecord],
    predicate: str,
    previous_turn: str | None,
    *,
    text: str = "",
    turn: str | None = None,
) -> MemoryRecord | None:
    """The record a correction of ``predicate`` means when no record has that predicate but
    one has a kin predicate — one is the other with an owner in front (``name`` /
    ``wife_name``, ``birthday`` / ``daughter_birthday``).

    Only a record the correction can be about: never when its words (``text``) name the
    user's own attribute ("my name is Bob" is not the wife's name); the one this ``turn`` or
    the previous turn created ("typo, it's Sarah" right after "my wife's name is Sara"),
    else the newest only when the words name someone else ("wait no, her birthday is June
    13th"). None when there is none or the predicate is empty."""
    if not predicate or names_own_attribute(text):
        return None
    kin = [
        r
        for r in records
        if r.predicate
        and r.predicate != predicate
        and (r.predicate.endswith("_" + predicate) or predicate.endswith("_" + r.predicate))
    ]
    if not kin:
        return None
    recent = created_by(kin, turn) or created_by(kin, previous_turn)
    if recent:
        return recent[-1]
    if names_other_owner(text):
        return sorted(kin, key=lambda r: (r.created_at, r.id))[-1]
    return None


def created_by(records: list[MemoryRecord], turn: str | None) -> list[MemoryRecord]:
    """The records among ``records`` that ``turn`` (``"<thread>:<turn>"``) created, oldest
    first (a record only reinforced by it is not among them)."""
    if turn is None:
        return []
    mine = [r for r in records if turn_of((r.metadata.get("turn_keys") or ["?"])[0]) == turn]
    return sorted(mine, key=lambda r: (r.created_at, r.id))


def unnamed(
    records: list[MemoryRecord], turn_key: str, previous_turn: str | None
) -> tuple[list[MemoryRecord], str]:
    """What a correction that names nothing refers to, and how it was found: what this turn
    already stored before it ("my name is Bob. No, it's Rob"), else what the previous turn
    of the thread created."""
    here = created_by(records, turn_of(turn_key))
    if here:
        return here, "same turn"
    return created_by(records, previous_turn), "previous turn"


def previous_missing(previous_turn: str | None) -> str:
    """Why the previous turn offers nothing to withdraw."""
    if previous_turn is None:
        return "this thread has no earlier user turn"
    return f"the previous turn ({previous_turn}) stored no new fact"


__all__ = [
    "created_by",
    "kin_record",
    "names_other_owner",
    "names_own_attribute",
    "names_value",
    "norm_value",
    "owned",
    "previous_missing",
    "project_level",
    "turn_of",
    "unnamed",
]
