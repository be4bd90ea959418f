"""The pure lifecycle rules: TTL of a new record, and the doctests of the policy module."""

from __future__ import annotations

import doctest
from datetime import timedelta

from langgraph_memory import MemoryRecord
from langgraph_memory.core import Kind, Layer, LifecyclePolicy
from langgraph_memory.core.records import utcnow
from langgraph_memory.lifecycle import policy
from langgraph_memory.lifecycle.policy import apply_default_ttl, default_ttl


def test_policy_doctests_hold() -> None:
    result = doctest.testmod(policy)
    assert result.attempted >= 2 and result.failed == 0


def test_apply_default_ttl_gives_conversation_episodes_their_own_ttl() -> None:
    """A kept user turn is an episodic event, but its TTL is ``conversation_ttl_days`` (none
    by default), as the store stamps it; the old ``apply_default_ttl`` gave it 90 days."""
    created = utcnow()
    turn = MemoryRecord(
        user_id="u",
        text="I moved to Lyon",
        layer=Layer.EPISODIC,
        kind=Kind.EVENT,
        subject="thread:t1",
        predicate="said",
        created_at=created,
    )
    event = turn.model_copy(update={"subject": "task:t1", "predicate": "did"})
    assert default_ttl(turn, LifecyclePolicy()) is None
    assert apply_default_ttl(turn).expire_at is None
    assert apply_default_ttl(event).expire_at == created + timedelta(days=90)
    kept_a_week = LifecyclePolicy(conversation_ttl_days=7.0)
    assert apply_default_ttl(turn, kept_a_week).expire_at == created + timedelta(days=7)


OLD_NAMES = {
    "ALLOWED_TRANSITIONS": "policy",
    "AuditEntry": "audit",
    "AuditEvent": "audit",
    "AuditLog": "audit",
    "LifecyclePolicy": "policy",
    "SweepReport": "expiry",
    "aenforce_capacity": "ops",
    "apply_default_ttl": "policy",
    "asweep": "expiry",
    "atouch": "ops",
    "atransition": "ops",
    "check_transition": "policy",
    "decay_factor": "policy",
    "default_audit_log": "audit",
    "end_task": "expiry",
    "enforce_capacity": "ops",
    "eviction_score": "policy",
    "sweep": "expiry",
    "touch": "ops",
    "transition": "ops",
    "transitions_of": "ops",
    "verify_forgotten": "forget",
}
"""The 0.1 module ``langgraph_memory.lifecycle`` exported these; each has one home now."""


def test_the_01_module_path_still_reads_every_old_name() -> None:
    import importlib
    import warnings

    import langgraph_memory.lifecycle as old

    old._warned.clear()  # warnings are once per name and process
    for name, part in OLD_NAMES.items():
        home = importlib.import_module(f"langgraph_memory.lifecycle.{part}")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(old, name)
        assert value is getattr(home, name), name
        if name in old.__all__:  # exported here: the 0.1 path is a current path, no warning
            assert not caught, name
            continue
        [warning] = caught
        assert issubclass(warning.category, DeprecationWarning)
        assert warning.filename == __file__  # points at the caller, not the stand-in
        assert f"langgraph_memory.lifecycle.{name} moved" in str(warning.message)
