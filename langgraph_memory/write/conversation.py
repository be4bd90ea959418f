"""Conversation episodes: what was said, kept turn by turn as episodic memory.

Every user turn (after PII redaction) and every assistant reply becomes one ``layer=episodic,
kind=event`` record — an *episode*, not a fact: the write gates for facts never see it, it is
never injected as a constraint, and recall renders it as a dated, quoted excerpt under
"relevant past conversation".

Pure transformations (no I/O): :func:`noise_reason`, :func:`episode_id`,
:func:`build_episode`, :func:`coerce_time`, :func:`turn_time`.
Stateful operation: :func:`write_episode` (insert, reinforce an exact repeat, or recognise a
replayed turn).

Guarantees:

* An episode's ``text`` is the redacted turn, cut at ``max_chars``; its ``context`` (indexed
  for recall, never rendered as a fact) is the date it was said and the previous meaningful
  turn of the same thread.
* ``created_at`` and ``valid_from`` are the time the turn was said (message timestamp, or the
  import's date), so recency decay and ``as_of`` count from then, not from when it was stored.
* The record id is derived from ``(user, project, thread, turn)``: writing the same turn twice
  stores it once (``duplicate_turn``).
* The same words said again by the same speaker in the same scope reinforce the first episode
  (``access_count`` +1, the new message id appended to its evidence) instead of adding a copy.
* Greetings, acknowledgements and empty turns are not stored; the decision says so
  (``skipped`` with the reason).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from ..core.records import (
    CONVERSATION_PREDICATES,
    CONVERSATION_SUBJECT_PREFIX,
    Evidence,
    Kind,
    Layer,
    MemoryRecord,
    Source,
    to_utc,
    utcnow,
)
from ..core.records import coerce_time as parse_instant
from ..core.scope import Scope
from ..errors import RecordNotFound, VersionConflict
from ..store.memory_store import MemoryStore

Role = Literal["user", "assistant"]

EPISODE_SUBJECT_PREFIX = CONVERSATION_SUBJECT_PREFIX
"""Episodes of one thread share the subject ``thread:<thread_id>`` (an indexed field), so a
thread's episodes are listed with one filtered scroll (neighbour expansion)."""

PREDICATE_BY_ROLE: dict[Role, str] = {
    "user": CONVERSATION_PREDICATES[0],
    "assistant": CONVERSATION_PREDICATES[1],
}
"""The predicate of an episode says who spoke."""

EPISODE_PREDICATES = CONVERSATION_PREDICATES

NOISE_EMPTY = "nothing to keep: the turn is empty or only punctuation/emoji"
NOISE_SMALL_TALK = "nothing to keep: a greeting or acknowledgement"

_NAMESPACE = uuid.UUID("8c0f5a3e-2b61-4d7c-9e4a-5f1b2c3d4e50")
_CONTEXT_CHARS = 300

# Words that carry no memory on their own: greetings, thanks, acknowledgements, fillers and
# the few function words they come with ("thank you so much", "ok, got it"). A turn made only
# of these is small talk. Chinese phrases are matched as substrings after removing them.
_SMALL_TALK_WORDS = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        "hi hii hello hey heya hiya yo howdy greetings morning evening afternoon night good "
        "goodnight gn bye goodbye cya later see you soon take care cheers thanks thank thx ty "
        "tysm much so very lot lots a ok okay okey k kk alright right sure fine great cool nice "
        "awesome perfect wonderful lovely sounds got it understood noted gotcha roger will do "
        "welcome np problem your too again for sharing the that this is was all of lol haha "
        "hahaha hehe wow oh ah um uh hmm hm mm uhm well hmmm ha please pls appreciate "
        "appreciated glad to hear happy help helpful me and i am congrats congratulations"
    ).split()
)
_SMALL_TALK_ZH = (
    "你好",
    "您好",
    "早上好",
    "晚上好",
    "下午好",
    "晚安",
    "再见",
    "拜拜",
    "谢谢你",
    "谢谢您",
    "谢谢",
    "多谢",
    "感谢",
    "好的",
    "好吧",
    "好滴",
    "好嘞",
    "收到",
    "明白了",
    "明白",
    "知道了",
    "了解",
    "没问题",
    "不客气",
    "哈哈",
    "嘿嘿",
    "呵呵",
    "嗯嗯",
    "嗯",
    "哦",
    "噢",
    "啊",
    "呀",
    "吧",
    "哈",
    "对",
    "是的",
    "行",
    "可以",
    "辛苦了",
    "太好了",
    "不错",
    "好",
    "啦",
    "了",
    "的",
    "呢",
)
_WORD_RE = re.compile(r"[a-z']+|\d+")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def noise_reason(text: str) -> str | None:
    """Why ``text`` is not worth keeping as an episode (``None`` when it is).

    Empty or punctuation/emoji-only turns and turns made only of greetings and
    acknowledgements ("Thanks!", "ok got it", "好的，谢谢") are noise. Anything that adds a
    word beyond those ("thanks, the Lisbon trip was great") is kept.
    """
    lowered = (text or "").lower()
    has_cjk = bool(_CJK_RE.search(lowered))
    words = _WORD_RE.findall(lowered)
    if not words and not has_cjk:
        return NOISE_EMPTY
    if any(w not in _SMALL_TALK_WORDS and not w.isdigit() for w in words):
        return None
    if any(w.isdigit() for w in words):
        return None
    if has_cjk:
        rest = "".join(_CJK_RE.findall(lowered))
        for phrase in _SMALL_TALK_ZH:
            rest = rest.replace(phrase, "")
        if rest:
            return None
    return NOISE_SMALL_TALK


def episode_id(scope: Scope, thread_id: str | None, turn_id: str) -> str:
    """The record id of the episode of ``turn_id`` in ``thread_id`` (deterministic)."""
    key = "\x00".join((scope.user_id, scope.project_id or "", thread_id or "-", turn_id))
    return str(uuid.uuid5(_NAMESPACE, key))


def episode_subject(thread_id: str | None) -> str:
    """The subject shared by the episodes of one thread."""
    return f"{EPISODE_SUBJECT_PREFIX}{thread_id or '-'}"


def coerce_time(value: object) -> datetime | None:
    """A turn timestamp as an aware UTC datetime, leniently: what
    :func:`langgraph_memory.core.records.coerce_time` accepts (datetime, date, ISO-8601 string;
    naive = UTC) plus epoch seconds (int/float; milliseconds when > 10^11). ``None`` and
    anything unreadable give ``None`` (the turn is then dated when it is saved)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value) / 1000.0 if abs(value) > 1e11 else float(value)
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and not value.strip():
        return None
    try:
        return parse_instant(value, "timestamp")
    except (TypeError, ValueError):
        return None


TIMESTAMP_KEYS = ("timestamp", "created_at", "said_at")
"""Message fields read, in order, for the time a turn was said: ``additional_kwargs[key]``
then ``response_metadata[key]`` (ISO-8601 string, epoch seconds or a datetime)."""


def turn_time(
    additional_kwargs: Mapping[str, object] | None,
    response_metadata: Mapping[str, object] | None = None,
) -> datetime | None:
    """The time a message was said, from its metadata (see :data:`TIMESTAMP_KEYS`)."""
    for source in (additional_kwargs or {}, response_metadata or {}):
        for key in TIMESTAMP_KEYS:
            found = coerce_time(source.get(key))
            if found is not None:
                return found
    return None


@dataclass(frozen=True, slots=True)
class EpisodeTurn:
    """One turn to keep as an episode (its ``text`` already redacted)."""

    text: str
    turn_id: str
    role: Role = "user"
    thread_id: str | None = None
    message_id: str | None = None
    checkpoint_id: str | None = None
    said_at: datetime | None = None
    previous: str | None = None
    """The previous meaningful turn of the thread (redacted), indexed as context."""
    task_id: str | None = None
    seq: int | None = None
    """Order of the turn in its thread (ties of ``said_at`` are broken by it)."""


def build_episode(
    scope: Scope,
    turn: EpisodeTurn,
    *,
    max_chars: int = 4000,
    importance: int = 5,
    imported: bool = False,
) -> MemoryRecord:
    """The episodic record of ``turn`` (see the module's guarantees)."""
    said_at = to_utc(turn.said_at) if turn.said_at is not None else utcnow()
    text = " ".join(turn.text.split())
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + "…"
    context_parts = [f"(said on {said_at.date().isoformat()})"]
    if turn.previous:
        previous = " ".join(turn.previous.split())[:_CONTEXT_CHARS]
        context_parts.append(previous)
    seq = turn.seq if turn.seq is not None else int(utcnow().timestamp() * 1e6)
    source = (
        Source.MODEL if turn.role == "assistant" else (Source.IMPORT if imported else Source.USER)
    )
    return MemoryRecord(
        id=episode_id(scope, turn.thread_id, turn.turn_id),
        user_id=scope.user_id,
        project_id=scope.project_id,
        layer=Layer.EPISODIC,
        kind=Kind.EVENT,
        subject=episode_subject(turn.thread_id),
        predicate=PREDICATE_BY_ROLE[turn.role],
        text=text,
        context=" ".join(context_parts),
        source=source,
        importance=importance,
        task_id=turn.task_id,
        created_at=said_at,
        updated_at=utcnow(),
        valid_from=said_at,
        evidence=Evidence(
            turn_ids=[turn.turn_id],
            message_ids=[turn.message_id] if turn.message_id else [],
            thread_id=turn.thread_id,
            checkpoint_id=turn.checkpoint_id,
        ),
        metadata={"role": turn.role, "seq": seq, "said_at": said_at.isoformat()},
    )


EpisodeAction = Literal["inserted", "reinforced", "duplicate_turn", "skipped"]


@dataclass(frozen=True, slots=True)
class EpisodeOutcome:
    """What :func:`write_episode` did, and why."""

    action: EpisodeAction
    reason: str
    record_id: str | None = None


def normal_text(text: str) -> str:
    """The words of ``text`` as compared for an exact repeat (case and spacing folded)."""
    return " ".join(text.lower().split())


def find_repeat(store: MemoryStore, scope: Scope, record: MemoryRecord) -> MemoryRecord | None:
    """A current episode of the same speaker in ``scope`` with exactly the same words."""
    hits = store.search(
        record.text,
        scope,
        k=3,
        filters={"layer": Layer.EPISODIC.value, "predicate": record.predicate or "said"},
        mode="keyword",
    )
    wanted = normal_text(record.text)
    for hit in hits:
        if normal_text(hit.record.text) == wanted and hit.record.project_id == scope.project_id:
            return hit.record
    return None


def write_episode(store: MemoryStore, scope: Scope, record: MemoryRecord) -> EpisodeOutcome:
    """Store ``record`` (from :func:`build_episode`) unless it is a replay or a repeat.

    * the same turn again (same id) → ``duplicate_turn``, nothing written;
    * the same words again (another turn) → ``reinforced``: the first episode's
      ``access_count`` grows and the new turn/message ids join its evidence (compare-and-set,
      re-read and merged on a concurrent change);
    * else → ``inserted``.
    """
    try:
        store.get(record.id, scope=scope)
        return EpisodeOutcome("duplicate_turn", "this turn is already kept", record.id)
    except RecordNotFound:
        pass
    repeat = find_repeat(store, scope, record)
    if repeat is not None:
        return _reinforce(store, scope, repeat, record)
    store.add(record, scope=scope)
    return EpisodeOutcome("inserted", "kept as an episode of the conversation", record.id)


_REINFORCE_RETRIES = 8


def _reinforce(
    store: MemoryStore, scope: Scope, repeat: MemoryRecord, record: MemoryRecord
) -> EpisodeOutcome:
    """Add ``record``'s turn to the earlier episode ``repeat`` (compare-and-set; on a
    concurrent change re-read and merge, never lose a repeat)."""
    current = repeat
    for _ in range(_REINFORCE_RETRIES):
        ev = current.evidence
        if set(record.evidence.turn_ids) <= set(ev.turn_ids):
            return EpisodeOutcome("duplicate_turn", "this turn is already kept", current.id)
        evidence = Evidence(
            turn_ids=(ev.turn_ids + record.evidence.turn_ids)[-20:],
            message_ids=(ev.message_ids + record.evidence.message_ids)[-20:],
            thread_id=ev.thread_id,
            checkpoint_id=ev.checkpoint_id,
        )
        try:
            store.update(
                current.id,
                scope=scope,
                expected_version=current.version,
                evidence=evidence,
                access_count=current.access_count + 1,
                last_accessed_at=utcnow(),
            )
        except VersionConflict:
            current = store.get(current.id, scope=scope)
            continue
        return EpisodeOutcome(
            "reinforced", "the same words were said before: that episode was reinforced", current.id
        )
    raise VersionConflict(current.id, current.version, None)


__all__ = [
    "EPISODE_PREDICATES",
    "EPISODE_SUBJECT_PREFIX",
    "NOISE_EMPTY",
    "NOISE_SMALL_TALK",
    "PREDICATE_BY_ROLE",
    "TIMESTAMP_KEYS",
    "EpisodeOutcome",
    "EpisodeTurn",
    "build_episode",
    "coerce_time",
    "episode_id",
    "episode_subject",
    "find_repeat",
    "noise_reason",
    "normal_text",
    "turn_time",
    "write_episode",
]
