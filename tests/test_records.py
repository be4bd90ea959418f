"""MemoryRecord validation and its JSON / Qdrant payload round-trips."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from langgraph_memory import MemoryRecord
from langgraph_memory.core import Evidence, Kind, Layer, Source, Status
from langgraph_memory.core.records import FAR_FUTURE_EPOCH


def full_record() -> MemoryRecord:
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    return MemoryRecord(
        user_id="alice",
        project_id="apollo",
        acl=["team-b", "team-a"],
        layer=Layer.SEMANTIC,
        kind=Kind.PREFERENCE,
        subject="alice",
        predicate="answer_language",
        object="Chinese",
        text="Alice prefers answers in Chinese",
        context="said in the onboarding call",
        language="en",
        confidence=0.9,
        importance=7,
        evidence=Evidence(
            turn_ids=["t3"], message_ids=["m3"], thread_id="th1", checkpoint_id="cp9"
        ),
        source=Source.USER,
        status=Status.ACTIVE,
        version=3,
        valid_from=now,
        valid_to=now + timedelta(days=30),
        expire_at=now + timedelta(days=60),
        task_id="task-1",
        created_at=now,
        updated_at=now,
        last_accessed_at=now,
        access_count=4,
        metadata={"origin": "test", "n": [1, 2]},
    )


def test_json_round_trip_is_lossless() -> None:
    record = full_record()
    again = MemoryRecord.model_validate_json(record.model_dump_json())
    assert again == record


def test_payload_round_trip_is_lossless_and_json_safe() -> None:
    record = full_record()
    payload = record.to_payload()
    json.dumps(payload)  # every value is JSON-encodable (what Qdrant stores)
    assert MemoryRecord.from_payload(payload) == record
    # every model field is in the payload under its own name (one-to-one)
    assert set(MemoryRecord.model_fields) <= set(payload)
    assert payload["acl"] == ["team-a", "team-b"]


def test_payload_index_fields_encode_scope_and_window() -> None:
    record = full_record()
    payload = record.to_payload()
    assert payload["_project"] == "apollo"
    assert payload["_acl"] == ["team-a", "team-b"]
    assert payload["_valid_to"] == pytest.approx(record.valid_to.timestamp())  # type: ignore[union-attr]
    open_ended = MemoryRecord(user_id="u", text="x").to_payload()
    assert open_ended["_project"] == "*"
    assert open_ended["_acl"] == ["*"]
    assert open_ended["_valid_to"] == FAR_FUTURE_EPOCH
    assert open_ended["_expire_at"] == FAR_FUTURE_EPOCH


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("confidence", math.nan),
        ("confidence", 1.5),
        ("confidence", -0.1),
        ("importance", 0),
        ("importance", 11),
        ("text", ""),
        ("text", "   "),
        ("text", "x" * 40_000),
        ("text", "bad \ud800 surrogate"),
        ("user_id", ""),
        ("user_id", "a\nb"),
        ("id", "not-a-uuid"),
        ("layer", "cosmic"),
        ("kind", "rumour"),
        ("status", "zombie"),
        ("acl", ["*"]),
        ("valid_from", "yesterday-ish"),
    ],
)
def test_invalid_fields_raise_value_error(field: str, value: object) -> None:
    values: dict[str, object] = {"user_id": "u", "text": "valid text", field: value}
    with pytest.raises(ValueError):
        MemoryRecord(**values)  # type: ignore[arg-type]


def test_pydantic_errors_are_value_errors() -> None:
    with pytest.raises(ValidationError):
        MemoryRecord(user_id="u", text="x", confidence=math.inf)
    assert issubclass(ValidationError, ValueError)


def test_window_must_be_ordered() -> None:
    now = datetime.now(UTC)
    with pytest.raises(ValueError, match="valid_to"):
        MemoryRecord(user_id="u", text="x", valid_from=now, valid_to=now - timedelta(seconds=1))


def test_control_characters_are_stripped_but_newlines_kept() -> None:
    record = MemoryRecord(user_id="u", text="line1\nline2\x00\x07 end")
    assert record.text == "line1\nline2 end"


def test_naive_datetimes_are_taken_as_utc() -> None:
    record = MemoryRecord(user_id="u", text="x", valid_from=datetime(2026, 1, 1, 8, 0))
    assert record.valid_from == datetime(2026, 1, 1, 8, 0, tzinfo=UTC)


def test_is_current_respects_status_window_and_supersession() -> None:
    base = MemoryRecord(user_id="u", text="x")
    now = datetime.now(UTC)
    assert base.is_current(now)
    # without valid_from a record is valid from when it was created (said), not before
    assert not base.is_current(base.created_at - timedelta(seconds=1))
    assert not base.model_copy(update={"status": Status.ARCHIVED}).is_current(now)
    assert not base.model_copy(update={"superseded_by": base.id}).is_current(now)
    assert not base.model_copy(update={"expire_at": now - timedelta(seconds=1)}).is_current(now)
    assert not base.model_copy(update={"valid_from": now + timedelta(hours=1)}).is_current(now)
