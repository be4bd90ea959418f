"""The ``save_memory`` node: the write path over the turns not saved yet (user turns, replies,
failed tool calls), with provenance from the running graph."""

import asyncio
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from ...core.logsafe import scrub_text
from ...core.records import Source
from ...errors import RecordValidationError
from ...read.query import content_text
from ...store import MemoryStore
from ...write import BackgroundWriter, WriteConfig, WritePipeline
from ...write.background_llm import LLMPassReport
from ...write.conversation import turn_time
from ..memory_writes import action_counts, report_writes
from ..runtime import NodeRuntime, emit, provenance, resolve_store, run_context
from ..state import MemoryContext
from ..tool_failures import (
    failed_call_args,
    tool_failure_record,
    tool_failure_summary,
)
from ..tracing import WRITE_RUN, atraced, traced, write_summary
from ..turns import Turn, TurnSelector
from ..write_path import LLMOption, WritePath, pipeline_of, write_options
from .base import MemoryNode

TOOL_FAILURE_RECORDED = "tool failure recorded as an episodic event"
TOOL_FAILURE_DUPLICATE = "tool failure already recorded"


def _write_inputs(ctx: MemoryContext, turn: Turn) -> dict[str, Any]:
    return {
        "user_id": ctx.user_id,
        "project_id": ctx.project_id,
        "turn_id": turn.turn_id,
        "role": "assistant" if isinstance(turn.message, AIMessage) else "user",
    }


class SaveMemory(MemoryNode):
    """Run the write path on the turns not saved yet.

    Inputs (state): ``messages``, ``task_id``, ``saved_message_ids``. Outputs (state
    update): ``saved_message_ids`` (ids of processed messages still in the history, plus the
    new ones) and ``memory_writes`` (one summary per write decision: action, reason, record
    id, text); each save is logged and streamed as ``memory_saved``.

    Each new human message is one turn for the write pipeline: ``turn_id`` and
    ``message_id`` are the message id, ``thread_id`` and ``checkpoint_id`` come from the
    running graph, so every stored record points back at the conversation it came from.
    Every meaningful turn is also kept as a conversation episode (see
    :mod:`langgraph_memory.write.conversation`): its time is the message's
    ``additional_kwargs["timestamp"]`` (ISO-8601, epoch seconds or a datetime; else now),
    its indexed context the previous meaningful turn. With ``keep_replies`` (default) the
    assistant's text replies are kept as episodes too (``source=model``; never user facts).
    With ``record_tool_failures`` (default), each new failed tool result (``ToolMessage``
    with ``status="error"``) becomes an episodic record of the current task (kind ``event``,
    source ``tool``, PII redacted): "what failed and why" is recalled later in that task.

    Idempotent: a message already in ``saved_message_ids`` is skipped, the write pipeline
    ignores a ``(thread_id, turn_id)`` it has processed, and a tool failure's record id is
    derived from its thread and message. Compaction summaries and other marked messages are
    never treated as user turns. ``MemoryContext(save=False)`` disables writes.

    Options: ``pipeline`` (a configured :class:`~langgraph_memory.write.WritePipeline`, or a
    :class:`~langgraph_memory.write.BackgroundWriter` so the turn only waits for a journal
    fsync), or, to let the node build its pipeline over ``store`` (else the graph's store),
    ``config`` (a :class:`~langgraph_memory.write.WriteConfig`) and ``llm_extractor`` (a chat
    model with ``with_structured_output``, or an ``LLMExtractor``; it runs per
    ``config.llm_mode``, in the turn). Giving ``pipeline`` with either option raises
    :class:`~langgraph_memory.errors.ConfigError`::

        save = SaveMemory(store=store, llm_extractor=init_chat_model("openai:gpt-4o-mini"))

    A queued turn (background writer) gets one ``queued`` entry in ``memory_writes``; with a
    deferring writer (``defer_llm=True``) the decisions of LLM passes finished since the
    thread's last run are added (``"deferred": True``) and streamed as ``memory_llm_pass``.
    Every entry names the ``extractor`` (``rule``, ``classifier``, ``llm``) of its candidate.
    A failed tool call is stored in the turn, in the store of the pipeline behind ``pipeline``
    (a background writer's own), not through the journal.

    Async path: the write path has no async implementation; each turn goes through the
    pipeline's ``aprocess_turn``, which runs the sync write path (a ``BackgroundWriter``: the
    journal append and fsync) in a worker thread, and a tool failure's store write runs in a
    worker thread too.

    Example::

        writer = BackgroundWriter(WritePipeline(store, llm_extractor=chat_model),
                                  "memory.journal", defer_llm=True)
        builder.add_node("save_memory", SaveMemory(writer))       # or SaveMemory(store=store)
        builder.add_edge("save_memory", END)
    """

    default_name = "save_memory"

    def __init__(
        self,
        pipeline: WritePath | None = None,
        *,
        store: MemoryStore | None = None,
        config: WriteConfig | None = None,
        llm_extractor: LLMOption | None = None,
        record_tool_failures: bool = True,
        keep_replies: bool = True,
        name: str | None = None,
    ) -> None:
        self.llm_extractor = write_options(pipeline, config, llm_extractor)
        self.keep_replies = keep_replies
        self.pipeline = pipeline
        self.store = store
        self.config = config
        self.record_tool_failures = record_tool_failures
        self._pipelines: dict[int, WritePipeline] = {}
        super().__init__(name=name)

    def _pipeline(self, runtime: NodeRuntime) -> WritePath:
        if self.pipeline is not None:
            return self.pipeline
        store = resolve_store(self.store, runtime)
        key = id(store)
        if key not in self._pipelines:
            self._pipelines[key] = WritePipeline(
                store, config=self.config or WriteConfig(), llm_extractor=self.llm_extractor
            )
        return self._pipelines[key]

    @property
    def _selector(self) -> TurnSelector:
        return TurnSelector(self.keep_replies, self.record_tool_failures)

    def _kwargs(
        self, ctx: MemoryContext, state: Mapping[str, Any], runtime: NodeRuntime
    ) -> dict[str, Any]:
        thread_id, checkpoint_id = provenance(runtime)
        return {
            "scope": ctx.scope,
            "thread_id": thread_id,
            "checkpoint_id": checkpoint_id,
            "source": Source.USER,
            "task_id": state.get("task_id") or ctx.task_id,
            "confirmed": ctx.confirmed,
        }

    @staticmethod
    def _turn_kwargs(turn: Turn, kwargs: dict[str, Any]) -> dict[str, Any]:
        message = turn.message
        return {
            **kwargs,
            "turn_id": turn.turn_id,
            "message_id": message.id,
            "source": Source.MODEL if isinstance(message, AIMessage) else kwargs["source"],
            "said_at": turn_time(message.additional_kwargs, message.response_metadata),
            "previous_turn": turn.previous,
            "seq": turn.seq,
        }

    def _deferred_writes(
        self, pipeline: WritePath, runtime: NodeRuntime, ctx: MemoryContext
    ) -> list[dict[str, Any]]:
        """Decisions of the deferred LLM passes of this thread finished since its last run
        (a deferring background writer), streamed as ``memory_llm_pass``."""
        if not isinstance(pipeline, BackgroundWriter) or not pipeline.defer_llm:
            return []
        thread_id, _ = provenance(runtime)
        passes: list[LLMPassReport] = pipeline.take_llm_reports(ctx.user_id, thread_id)
        writes = [
            {**w, "deferred": True} for p in passes for w in report_writes(p.turn_id, p.report)
        ]
        if writes:
            emit(
                runtime,
                "memory_llm_pass",
                {
                    "user_id": ctx.user_id,
                    "thread_id": thread_id,
                    "turns": [p.turn_id for p in passes],
                    "reasons": [w["reason"] for w in writes],
                    "written_ids": [w["record_id"] for w in writes if w["record_id"]],
                    "actions": [w["action"] for w in writes],
                },
                message=(
                    f"deferred LLM pass for user {ctx.user_id} (thread {thread_id}): "
                    f"{action_counts(writes)}"
                ),
            )
        return writes

    def _tool_failure(
        self,
        pipeline: WritePath,
        turn_id: str,
        message: ToolMessage,
        kwargs: dict[str, Any],
        args: object = None,
    ) -> list[dict[str, Any]]:
        """Store one failed tool result as an episodic record; returns its write summary.

        The record is a redacted summary (:func:`~langgraph_memory.graph.tool_failures.
        tool_failure_summary`: the tool, the error's first line, the call's argument values
        replaced), of the current task, or of the thread (``task_id`` ``"thread:<id>"``) when
        the run has no task: a failure is recalled where it happened, never in another user's
        or another thread's prompt. It is written to the store of the pipeline behind
        ``pipeline`` (a background writer's own pipeline: the writer has no store of its own),
        in the turn, not through the journal."""
        inner = pipeline_of(pipeline)
        name = message.name or "tool"
        text = tool_failure_summary(name, content_text(message), args, inner.redactor.redact)
        record = tool_failure_record(
            message,
            text,
            scope=kwargs["scope"],
            turn_id=turn_id,
            task_id=kwargs["task_id"],
            thread_id=kwargs["thread_id"],
            checkpoint_id=kwargs["checkpoint_id"],
        )
        try:
            inner.store.add(record, scope=kwargs["scope"])
            action, reason = "inserted", TOOL_FAILURE_RECORDED
        except RecordValidationError:
            action, reason = "duplicate_turn", TOOL_FAILURE_DUPLICATE
        return [
            {
                "turn_id": turn_id,
                "action": action,
                "reason": reason,
                "record_id": record.id,
                "text": text,
                "kind": "event",
            }
        ]

    @staticmethod
    def _failed_call_args(state: Mapping[str, Any], turns: Sequence[Turn]) -> dict[str, object]:
        """``turn_id → args`` of the tool call behind each new failed tool result."""
        wanted = {
            t.message.tool_call_id: t.turn_id for t in turns if isinstance(t.message, ToolMessage)
        }
        return failed_call_args(list(state.get("messages") or []), wanted)

    def _result(
        self,
        state: Mapping[str, Any],
        runtime: NodeRuntime,
        ctx: MemoryContext,
        turns: list[Turn],
        writes: list[dict[str, Any]],
    ) -> dict[str, Any]:
        present = self._selector.turn_ids(list(state.get("messages") or []))
        kept = [i for i in (state.get("saved_message_ids") or []) if i in present]
        saved = kept + [t.turn_id for t in turns if t.turn_id not in kept]
        if turns:
            reasons = [scrub_text(w["reason"]) for w in writes]
            emit(
                runtime,
                "memory_saved",
                {
                    "user_id": ctx.user_id,
                    "turns": [t.turn_id for t in turns],
                    "reasons": reasons,
                    "written_ids": [w["record_id"] for w in writes if w["record_id"]],
                    "actions": [w["action"] for w in writes],
                    "decisions": [
                        {
                            "turn_id": w["turn_id"],
                            "action": w["action"],
                            "kind": w.get("kind"),
                            "record_id": w["record_id"],
                            "reason": reason,
                        }
                        for w, reason in zip(writes, reasons, strict=True)
                    ],
                },
                message=(
                    f"memory saved for user {ctx.user_id}: {len(turns)} turn(s), "
                    f"{action_counts(writes)}"
                    + "".join(
                        f"; {w['action']} {w.get('kind') or ''}: {reason}".replace("  ", " ")
                        for w, reason in list(zip(writes, reasons, strict=True))[:4]
                    )
                    + (f"; … {len(writes) - 4} more" if len(writes) > 4 else "")
                ),
            )
        return {"saved_message_ids": saved, "memory_writes": writes}

    def _run(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        ctx = run_context(runtime)
        if not ctx.save:
            return {}
        turns = self._selector.new_turns(
            list(state.get("messages") or []), set(state.get("saved_message_ids") or [])
        )
        if not turns:
            return {"memory_writes": []}
        pipeline = self._pipeline(runtime)
        kwargs = self._kwargs(ctx, state, runtime)
        calls = self._failed_call_args(state, turns)
        writes: list[dict[str, Any]] = self._deferred_writes(pipeline, runtime, ctx)
        for turn in turns:  # in order: a later turn may supersede an earlier one
            if isinstance(turn.message, ToolMessage):
                writes.extend(
                    self._tool_failure(
                        pipeline, turn.turn_id, turn.message, kwargs, calls.get(turn.turn_id)
                    )
                )
            else:
                turn_kwargs = self._turn_kwargs(turn, kwargs)
                report = traced(
                    WRITE_RUN,
                    _write_inputs(ctx, turn),
                    partial(pipeline.process_turn, content_text(turn.message), **turn_kwargs),
                    write_summary,
                )
                writes.extend(
                    report_writes(
                        turn.turn_id,
                        report,
                        pipeline,
                        user=not isinstance(turn.message, AIMessage),
                    )
                )
        return self._result(state, runtime, ctx, turns, writes)

    async def _arun(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        ctx = run_context(runtime)
        if not ctx.save:
            return {}
        turns = self._selector.new_turns(
            list(state.get("messages") or []), set(state.get("saved_message_ids") or [])
        )
        if not turns:
            return {"memory_writes": []}
        pipeline = self._pipeline(runtime)
        kwargs = self._kwargs(ctx, state, runtime)
        calls = self._failed_call_args(state, turns)
        writes: list[dict[str, Any]] = self._deferred_writes(pipeline, runtime, ctx)
        for turn in turns:
            if isinstance(turn.message, ToolMessage):
                writes.extend(
                    await asyncio.to_thread(
                        self._tool_failure,
                        pipeline,
                        turn.turn_id,
                        turn.message,
                        kwargs,
                        calls.get(turn.turn_id),
                    )
                )
            else:
                turn_kwargs = self._turn_kwargs(turn, kwargs)
                report = await atraced(
                    WRITE_RUN,
                    _write_inputs(ctx, turn),
                    partial(pipeline.aprocess_turn, content_text(turn.message), **turn_kwargs),
                    write_summary,
                )
                writes.extend(
                    report_writes(
                        turn.turn_id,
                        report,
                        pipeline,
                        user=not isinstance(turn.message, AIMessage),
                    )
                )
        return self._result(state, runtime, ctx, turns, writes)


__all__ = ["TOOL_FAILURE_DUPLICATE", "TOOL_FAILURE_RECORDED", "SaveMemory"]
