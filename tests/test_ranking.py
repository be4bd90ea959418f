"""Fusion and rerank math."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from langgraph_memory.core import RecallConfig
from langgraph_memory.store.ranking import (
    linear_factor,
    min_max,
    recency_factor,
    rerank_factors,
    rrf_fusion,
    weighted_fusion,
)


def test_min_max_scales_to_unit_interval() -> None:
    assert min_max({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert min_max({"a": 7.0}) == {"a": 1.0}
    assert min_max({}) == {}


def test_weighted_fusion_mixes_normalised_scores() -> None:
    fused = weighted_fusion({"a": 0.9, "b": 0.5}, {"b": 10.0, "c": 2.0}, alpha=0.5)
    assert fused == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.0})
    dense_only = weighted_fusion({"a": 0.9, "b": 0.5}, {"b": 10.0, "c": 2.0}, alpha=1.0)
    assert dense_only["a"] == 1.0 and dense_only["c"] == 0.0


def test_rrf_sums_reciprocal_ranks_from_one() -> None:
    fused = rrf_fusion([["a", "b"], ["b", "c"]], k=60)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)


def test_recency_halves_the_weighted_part_each_half_life() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert recency_factor(now, now, 10, 0.4) == pytest.approx(1.0)
    assert recency_factor(now - timedelta(days=10), now, 10, 0.4) == pytest.approx(0.6 + 0.2)
    very_old = recency_factor(now - timedelta(days=10_000), now, 10, 0.4)
    assert very_old == pytest.approx(0.6)  # floor: decay never removes a memory


def test_future_timestamps_do_not_boost() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert recency_factor(now + timedelta(days=5), now, 10, 0.5) == pytest.approx(1.0)


def test_linear_factor_clamps() -> None:
    assert linear_factor(0.5, 0.2) == pytest.approx(0.9)
    assert linear_factor(3.0, 0.2) == pytest.approx(1.0)
    assert linear_factor(-1.0, 0.2) == pytest.approx(0.8)


def test_rerank_uses_last_access_to_reactivate() -> None:
    cfg = RecallConfig()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    old = now - timedelta(days=720)
    stale, _, _ = rerank_factors(
        created_at=old, last_accessed_at=None, confidence=1, importance=5, now=now, config=cfg
    )
    used, _, _ = rerank_factors(
        created_at=old, last_accessed_at=now, confidence=1, importance=5, now=now, config=cfg
    )
    assert used == pytest.approx(1.0)
    assert stale < used
    _, low_conf, low_imp = rerank_factors(
        created_at=now, last_accessed_at=None, confidence=0.0, importance=1, now=now, config=cfg
    )
    assert low_conf == pytest.approx(0.8)
    assert low_imp == pytest.approx(0.82)


def test_effective_half_life_docstring_examples_hold() -> None:
    """The docstring's numbers (effective half-life 270 d with the defaults, not the 180 d of
    ``recency_half_life_days``) are computed, and hold."""
    import doctest

    from langgraph_memory.core import RecallConfig
    from langgraph_memory.lifecycle import policy

    finder = doctest.DocTestFinder()
    [test] = [t for t in finder.find(policy) if t.name.endswith(".effective_half_life")]
    result = doctest.DocTestRunner().run(test)
    assert result.attempted >= 2 and result.failed == 0
    assert policy.effective_half_life(RecallConfig(), None, 5) == 270.0
    assert policy.effective_half_life(RecallConfig(), None, 10) == 360.0
    assert policy.effective_half_life(RecallConfig(decay_importance_scale=0), None, 5) == 180.0
