"""The compaction plan for one history: the reduce, compress and externalize steps over a
:class:`~langgraph_memory.context.compaction.layout.Layout`, with payloads stored in a
:class:`~langgraph_memory.context.handles.HandleStore` (stateful only through that store)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from ...core.logsafe import error_kind, get_logger
from ...core.scope import Scope
from ..handles import HandleStore
from ..tokens import TokenCounter, message_text
from .config import META_KEY, CompactionConfig
from .layout import Layout, Unit
from .messages import (
    content_text,
    dump_message,
    is_protected,
    is_summary,
    meta_of,
    one_line,
    role_of,
    truncate_to_tokens,
)
from .summarizers import ExtractiveSummarizer, Summarizer

logger = get_logger("context")


@dataclass(slots=True)
class PlanState:
    """A candidate history: per input index, the replacement (or None = dropped)."""

    slots: list[BaseMessage | None]
    summary: BaseMessage | None = None
    summary_at: int | None = None
    stubbed: list[str] = field(default_factory=list)
    externalized: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    handles: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)
    turn_range: list[int] | None = None
    summarized_ids: list[str] = field(default_factory=list)
    summarizer_error: str | None = None

    def copy(self) -> PlanState:
        return PlanState(
            slots=list(self.slots),
            summary=self.summary,
            summary_at=self.summary_at,
            stubbed=list(self.stubbed),
            externalized=list(self.externalized),
            removed=list(self.removed),
            handles=list(self.handles),
            stages=list(self.stages),
            turn_range=self.turn_range,
            summarized_ids=list(self.summarized_ids),
            summarizer_error=self.summarizer_error,
        )

    def messages(self) -> list[BaseMessage]:
        out: list[BaseMessage] = []
        for i, m in enumerate(self.slots):
            if i == self.summary_at and self.summary is not None:
                out.append(self.summary)
            if m is not None:
                out.append(m)
        return out


class Compactor:
    """Plans one compaction of ``layout`` within ``budget`` (see :meth:`attempt`)."""

    def __init__(
        self,
        layout: Layout,
        *,
        budget: int,
        cfg: CompactionConfig,
        counter: TokenCounter,
        summarizer: Summarizer,
        handle_store: HandleStore | None,
        scope: Scope | None,
        source_ref: dict[str, Any] | None,
    ) -> None:
        self.layout = layout
        self.budget = budget
        self.cfg = cfg
        self.counter = counter
        self.summarizer = summarizer
        self.store = handle_store
        self.scope = scope
        self.source_ref = dict(source_ref or {})
        self.target = math.floor(cfg.target_ratio * budget)
        self.ext_limit = max(
            1, min(cfg.externalize_min_tokens, math.floor(cfg.externalize_ratio * budget))
        )

    # -- storage ------------------------------------------------------------------------
    def _store(self, content: str | list[Any], meta: dict[str, Any]) -> str | None:
        if self.store is None or self.scope is None:
            return None
        return self.store.put(self.scope, content, meta)

    def _where(self, message: BaseMessage, handle: str | None) -> str:
        if handle:
            return f'fetch_memory("{handle}") returns it'
        ref = f"message id {message.id}" if message.id else "the original message"
        return f"the raw text is {ref} in the checkpoint history"

    def _stub(self, message: BaseMessage, kind: str) -> tuple[BaseMessage, str | None]:
        text = message_text(message) if isinstance(message, ToolMessage) else content_text(message)
        tokens = self.counter.count_text(text)
        meta = {
            "kind": kind,
            "message_id": message.id,
            "role": role_of(message),
            "name": message.name,
            "tokens": tokens,
            **self.source_ref,
        }
        raw: str | list[Any] = message.content
        if not isinstance(raw, str):  # content blocks (images...): keep them all, as JSON
            meta["content_format"] = "json"
        handle = self._store(raw, meta)
        preview = truncate_to_tokens(one_line(text), self.cfg.preview_tokens, self.counter)
        label = f"tool output of {message.name}" if isinstance(message, ToolMessage) else "content"
        body = f"[{label} ({tokens} tokens) moved out of context; {self._where(message, handle)}."
        body += f" Preview: {preview}]" if preview else "]"
        kwargs = dict(message.additional_kwargs)
        kwargs[META_KEY] = {"kind": kind, "handle": handle, "tokens": tokens}
        return message.model_copy(update={"content": body, "additional_kwargs": kwargs}), handle

    def _payload_text(self, message: BaseMessage) -> str:
        return message_text(message) if isinstance(message, ToolMessage) else content_text(message)

    def _externalizable(self, message: BaseMessage) -> bool:
        return (
            not is_protected(message, self.cfg)
            and not meta_of(message).get("kind")
            and self.counter.count_text(self._payload_text(message)) > self.ext_limit
        )

    # -- stages -------------------------------------------------------------------------
    def reduce(self, st: PlanState, old: list[Unit]) -> None:
        for unit in old:
            for i in unit.indices:
                m = st.slots[i]
                if not isinstance(m, ToolMessage) or meta_of(m).get("kind"):
                    continue
                if self.counter.count_text(message_text(m)) <= self.cfg.tool_stub_min_tokens:
                    continue
                new, handle = self._stub(m, "tool_stub")
                st.slots[i] = new
                st.stubbed.append(str(m.id))
                if handle:
                    st.handles.append(handle)
        if "reduce" not in st.stages:
            st.stages.append("reduce")

    def compress(self, st: PlanState, old: list[Unit]) -> None:
        if not old:
            return
        covered = sorted(i for u in old for i in u.indices)
        originals = [self.layout.messages[i] for i in covered]
        current = [st.slots[i] for i in covered]
        current_msgs = [m for m in current if m is not None]
        turn_range = [min(u.turn_start for u in old), max(u.turn_end for u in old)]
        ids = [str(m.id) for m in originals if m.id]
        nested_ids: list[str] = []
        nested_handles: list[str] = []
        for m in originals:
            if is_summary(m):
                nested_ids.extend(meta_of(m).get("message_ids", []))
                nested_handles.extend(meta_of(m).get("nested_transcript_handles", []))
                if meta_of(m).get("transcript_handle"):
                    nested_handles.append(meta_of(m)["transcript_handle"])
        all_ids = [*nested_ids, *[i for i in ids if not i.startswith("lgm-summary-")]]
        transcript = [dump_message(m) for m in originals]  # the store keeps it as JSON text
        handle = self._store(
            transcript,
            {
                "kind": "transcript",
                "turn_range": turn_range,
                "message_ids": all_ids,
                **self.source_ref,
            },
        )
        covered_set = set(covered)
        rest = [m for j, m in enumerate(st.slots) if j not in covered_set and m is not None]
        rest_tokens = self.counter.count_messages(rest)
        # messages the externalize step will shrink to a stub do not eat the summary's room
        for m in rest:
            if self._externalizable(m):
                size = self.counter.count_text(self._payload_text(m))
                rest_tokens -= max(0, size - self.cfg.preview_tokens - 48)
        header = self._summary_header(turn_range, len(all_ids), handle)
        overhead = self.counter.count_messages([HumanMessage(content=header)])
        # aim at the target (so the next step does not compact again at once), but allow a
        # short summary up to the hard budget rather than none
        room = max(
            self.target - rest_tokens - overhead,
            min(64, self.budget - rest_tokens - overhead - 2),
        )
        cap = max(0, min(self.cfg.summary_max_tokens, room))
        body = ""
        if cap >= 8:
            try:
                body = self.summarizer(current_msgs, max_tokens=cap)
            except Exception as exc:
                st.summarizer_error = error_kind(exc)
                logger.warning("summariser failed", extra={"error": st.summarizer_error})
                body = ExtractiveSummarizer(self.counter, self.cfg.summary_line_tokens)(
                    current_msgs, max_tokens=cap
                )
            body = truncate_to_tokens(body.strip(), cap, self.counter)
        content = header + ("\n" + body if body else "")
        pinned_turns: dict[str, int] = {}
        for m in originals:  # carry forward numbers of messages that are still kept
            if is_summary(m):
                pinned_turns.update(meta_of(m).get("pinned_turns") or {})
        kept_ids = {
            str(m.id) for j, m in enumerate(st.slots) if m is not None and j not in covered_set
        }
        pinned_turns = {k: v for k, v in pinned_turns.items() if k in kept_ids}
        lay = self.layout
        if lay.pinned is not None and lay.pinned_turn is not None and lay.pinned > covered[0]:
            pinned_turns[str(lay.messages[lay.pinned].id)] = lay.pinned_turn
        meta = {
            "kind": "compaction_summary",
            "turn_range": turn_range,
            "pinned_turns": pinned_turns,
            "message_ids": all_ids,
            "transcript_handle": handle,
            "nested_transcript_handles": nested_handles,
            **self.source_ref,
        }
        digest = hashlib.sha256("\x00".join(ids or [content]).encode("utf-8")).hexdigest()[:16]
        st.summary = HumanMessage(
            content=content, id=f"lgm-summary-{digest}", additional_kwargs={META_KEY: meta}
        )
        st.summary_at = covered[0]
        for i in covered:
            st.slots[i] = None
        st.removed.extend(ids)
        st.summarized_ids = all_ids
        st.turn_range = turn_range
        if handle:
            st.handles.append(handle)
        st.stages.append("compress")

    def _summary_header(self, turn_range: list[int], count: int, handle: str | None) -> str:
        where = f'raw transcript: fetch_memory("{handle}")' if handle else ""
        ref = self.source_ref
        parts = []
        if ref.get("checkpoint_id"):
            parts.append(f"checkpoint {ref['checkpoint_id']}")
        if ref.get("thread_id"):
            parts.append(f"thread {ref['thread_id']}")
        if parts:
            ckpt = " of ".join(parts) + " history"
            where = f"{where}; also in {ckpt}" if where else f"raw text in {ckpt}"
        if not where:
            where = "raw text in the checkpoint history"
        return (
            f"[Summary of earlier conversation, turns {turn_range[0]}-{turn_range[1]} "
            f"({count} messages compacted; {where})]"
        )

    def externalize(self, st: PlanState) -> None:
        for i, m in enumerate(st.slots):
            if m is None or i in self.layout.protected or not self._externalizable(m):
                continue
            new, handle = self._stub(m, "externalized")
            st.slots[i] = new
            st.externalized.append(str(m.id))
            if handle:
                st.handles.append(handle)
        st.stages.append("externalize")

    def _cost(self, message: BaseMessage | None) -> int:
        """Planning estimate of a message's tokens, counting an externalizable message as
        the stub it will become (so the plan does not compress turns to make room that
        externalizing frees anyway)."""
        if message is None:
            return 0
        if self._externalizable(message):
            return self.cfg.preview_tokens + 48
        return self.counter.count_messages([message])

    def attempt(self, keep: int) -> tuple[PlanState, int]:
        """One plan with at least ``keep`` recent turns raw: reduce, then compress the
        *fewest* oldest turns that bring the history under the target, then externalize."""
        units = self.layout.units
        split = max(0, len(units) - keep)
        old = units[:split]
        st = PlanState(slots=list(self.layout.messages))
        self.reduce(st, old)
        tokens = self.counter.count_messages(st.messages())
        if tokens <= self.target or not old:
            if tokens > self.target:
                self.externalize(st)
                tokens = self.counter.count_messages(st.messages())
            return st, tokens
        # how many of the oldest turns to summarise: enough to leave room for the summary
        estimate = sum(self._cost(m) for m in st.slots)
        reserve = min(self.cfg.summary_max_tokens, max(32, self.budget // 7)) + 64
        need = estimate - (self.target - reserve)
        costs = [sum(self._cost(st.slots[i]) for i in u.indices) for u in old]
        k, acc = 0, 0
        while k < len(old) and acc < need:
            acc += costs[k]
            k += 1
        k = max(k, 1)
        best: tuple[PlanState, int] | None = None
        for take in sorted({k, k + (len(old) - k) // 2, len(old)}):
            trial = st.copy()
            self.compress(trial, old[:take])
            compressed = self.counter.count_messages(trial.messages())
            if compressed > tokens:  # a summary longer than what it replaces helps nobody
                continue
            if best is None or compressed < best[1]:
                best = (trial, compressed)
            if compressed <= self.target:
                break
        if best is not None:
            st, tokens = best
        if tokens <= self.target:
            return st, tokens
        self.externalize(st)
        return st, self.counter.count_messages(st.messages())


__all__ = ["Compactor", "PlanState"]
