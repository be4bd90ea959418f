"""What compaction is told and what it reports: :class:`CompactionConfig` (when and how hard
to compact), :class:`CompactionResult` and the ``additional_kwargs`` key compaction marks its
messages with (pure data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field, model_validator

META_KEY = "langgraph_memory"
"""Key in ``additional_kwargs`` under which compaction marks what it created."""


class CompactionConfig(BaseModel):
    """When and how hard :func:`compact_messages` compacts.

    ``trigger_ratio``: compact when tokens > this share of the budget.
    ``target_ratio``: stop compacting once under this share (hysteresis, so a long run does
    not compact on every step). ``keep_last_turns``: turns always left raw at the end
    (more are kept when they fit the target);
    ``min_keep_turns``: the least it may shrink to when the budget is tight.
    ``tool_stub_min_tokens``: smaller tool outputs are not worth stubbing.
    ``externalize_min_tokens`` / ``externalize_ratio``: a message above
    ``min(externalize_min_tokens, externalize_ratio * budget)`` tokens is externalized.
    ``summary_max_tokens``: cap on the summary message. ``summary_line_tokens``: cap on each
    line of the extractive summary (one line per kept turn). ``preview_tokens``: preview length
    in stubs. ``reserve_tokens``: tokens of the prompt that are not in ``messages`` (system
    prompt added at call time, output budget) subtracted from the budget.
    ``protected_names``: message ``name`` s never touched (the memory block).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    trigger_ratio: float = Field(default=0.8, gt=0, le=1)
    target_ratio: float = Field(default=0.6, gt=0, le=1)
    keep_last_turns: int = Field(default=4, ge=0)
    min_keep_turns: int = Field(default=1, ge=0)
    tool_stub_min_tokens: int = Field(default=48, ge=0)
    externalize_min_tokens: int = Field(default=1024, ge=1)
    externalize_ratio: float = Field(default=0.25, gt=0, le=1)
    summary_max_tokens: int = Field(default=512, ge=16)
    summary_line_tokens: int = Field(default=40, ge=8)
    preview_tokens: int = Field(default=24, ge=0)
    reserve_tokens: int = Field(default=0, ge=0)
    protected_names: tuple[str, ...] = ("memory_block", "constraint_block", "system_prompt")
    pin_last_human: bool = True

    @model_validator(mode="after")
    def _ratios(self) -> CompactionConfig:
        if self.target_ratio > self.trigger_ratio:
            raise ValueError("target_ratio must be <= trigger_ratio")
        if self.min_keep_turns > self.keep_last_turns:
            raise ValueError("min_keep_turns must be <= keep_last_turns")
        return self


@dataclass(slots=True)
class CompactionResult:
    """What :func:`compact_messages` did.

    ``messages`` is the new full history. ``update`` is what a node returns for an
    ``add_messages`` channel: ``[RemoveMessage(id=REMOVE_ALL_MESSAGES), *messages]`` when
    ``changed``, else ``[]``. ``event`` is the emitted compaction event (``None`` when no
    compaction was needed).
    """

    changed: bool
    messages: list[BaseMessage]
    update: list[BaseMessage]
    event: dict[str, Any] | None
    tokens_before: int
    tokens_after: int
    fits: bool = True
    handles: list[str] = field(default_factory=list)


DEFAULT_CONFIG = CompactionConfig()
"""The configuration used when a caller passes none."""

__all__ = ["DEFAULT_CONFIG", "META_KEY", "CompactionConfig", "CompactionResult"]
