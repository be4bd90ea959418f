"""Configuration of the memory store and recall (one validated pydantic model)."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import ConfigError
from .records import Kind, Layer


class RecallConfig(BaseModel):
    """How candidates are gathered, fused and reranked.

    Defaults were chosen by ``python -m langgraph_memory bench locomo`` (see README):
    weighted min-max fusion with ``alpha=0.5`` beat RRF on every embedder measured.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(5, ge=1, le=100, description="results returned when the caller gives no k")
    candidates: int = Field(
        50, ge=1, le=2000, description="candidates taken from each retriever before fusion"
    )
    fusion: Literal["weighted", "rrf"] = "weighted"
    alpha: float = Field(0.5, ge=0.0, le=1.0, description="dense weight in weighted fusion")
    rrf_k: int = Field(60, ge=1, description="RRF constant: 1 / (rrf_k + rank)")
    recency_half_life_days: float = Field(180.0, gt=0)
    half_life_days_by_kind: dict[str, float] = Field(
        default_factory=dict,
        description="recency half-life per record kind (e.g. {'event': 30}); kinds not named "
        "use recency_half_life_days",
    )
    decay_importance_scale: float = Field(
        1.0,
        ge=0.0,
        description="how much importance slows decay: the half-life is multiplied by "
        "1 + decay_importance_scale * importance / 10 (0 = importance does not change decay)",
    )
    recency_weight: float = Field(0.2, ge=0.0, le=1.0)
    confidence_weight: float = Field(0.2, ge=0.0, le=1.0)
    importance_weight: float = Field(0.2, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _positive_half_lives(self) -> RecallConfig:
        bad = {k: v for k, v in self.half_life_days_by_kind.items() if not v > 0}
        if bad:
            raise ValueError(f"half_life_days_by_kind values must be > 0, got {bad}")
        return self


class LifecyclePolicy(BaseModel):
    """TTLs, archiving and capacity caps (days; ``None`` means never).

    Default TTLs by layer: working 1 day (or until :func:`end_task`), episodic 90 days (task
    episodes, tool failures), semantic and procedural none; conversation episodes (what was
    said) none by default (``conversation_ttl_days``). ``ttl_days_by_kind`` overrides the
    layer's TTL for a kind. A TTL counts from the record's ``created_at`` — for an episode,
    the time the turn was said — and a record the policy would expire on arrival (dated
    history older than its TTL) is refused with an error, never stored already expired.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    ttl_days_by_layer: dict[Layer, float | None] = Field(
        default_factory=lambda: {
            Layer.WORKING: 1.0,
            Layer.EPISODIC: 90.0,
            Layer.SEMANTIC: None,
            Layer.PROCEDURAL: None,
        }
    )
    ttl_days_by_kind: dict[Kind, float | None] = Field(default_factory=dict)
    conversation_ttl_days: float | None = Field(
        None,
        gt=0,
        description="time-to-live of conversation episodes (kept user turns and replies), "
        "counted from when the turn was said; None (default) keeps them until forgotten — "
        "their rank decays with age instead",
    )
    archive_after_days: float | None = Field(
        30.0, gt=0, description="a stale record older than this is archived by sweep()"
    )
    max_records_per_scope: int | None = Field(
        None, ge=1, description="current records kept per user + project (None: no cap)"
    )

    def ttl_for(
        self, layer: Layer | str, kind: Kind | str, *, conversation: bool = False
    ) -> timedelta | None:
        """The default time-to-live of a record of ``layer`` and ``kind`` (None: no expiry);
        ``conversation=True`` for a conversation episode (``conversation_ttl_days``)."""
        kind = Kind(kind)
        if conversation:
            days = self.conversation_ttl_days
        elif kind in self.ttl_days_by_kind:
            days = self.ttl_days_by_kind[kind]
        else:
            days = self.ttl_days_by_layer.get(Layer(layer))
        return None if days is None else timedelta(days=days)


class MemoryConfig(BaseModel):
    """Where memory lives and how it is embedded and recalled.

    Exactly one backend is chosen: ``url`` (a Qdrant server) or ``path`` (the embedded engine,
    the default, at ``./.langgraph_memory``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = None
    url: str | None = None
    api_key: str | None = None
    collection: str = "langgraph_memory"
    embedder: str = "use-multilingual"
    recall: RecallConfig = Field(default_factory=RecallConfig)  # type: ignore[arg-type]
    keyword_cache_users: int = Field(
        256, ge=1, description="users whose keyword index stays in memory (LRU)"
    )
    keyword_refresh_seconds: float = Field(
        30.0,
        gt=0,
        description="server backend only: rebuild a user's keyword index after this long, since "
        "other processes may have changed its records (deletions are caught on every query)",
    )

    @model_validator(mode="after")
    def _one_backend(self) -> MemoryConfig:
        if self.url and self.path:
            raise ValueError("give either url (Qdrant server) or path (embedded store), not both")
        return self

    @classmethod
    def build(cls, **values: object) -> MemoryConfig:
        """Validate ``values`` into a config, raising :class:`ConfigError` (a ``ValueError``)."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise ConfigError(f"invalid memory configuration: {exc}") from exc


DEFAULT_PATH = ".langgraph_memory"

__all__ = ["DEFAULT_PATH", "LifecyclePolicy", "MemoryConfig", "RecallConfig"]
