"""A failed tool call as memory: "what failed and why", recalled later where it happened.

Pure functions (no I/O); :class:`~langgraph_memory.graph.nodes.SaveMemory` stores the record:

* :func:`tool_failure_summary` — the stored text: the tool, the error's first line, every
  argument value of the call replaced by ``[arg]``, PII redacted.
* :func:`failed_call_args` — the arguments of the calls behind failed tool results.
* :func:`tool_failure_record` — the episodic ``event`` record of one failure, bound to the
  current task or, without one, to the thread (``task_id`` ``"thread:<id>"``); its id is
  derived from the thread and the message, so saving it twice is a duplicate.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from ..core.records import Evidence, Layer, MemoryRecord, Source
from ..core.redact import RedactionResult
from ..core.scope import Scope
from ..read.guard import THREAD_TASK_PREFIX

TOOL_FAILURE_TEXT = "Tool {name} failed: {detail}"
_TOOL_DETAIL_CHARS = 200
_TOOL_EVENT_NS = uuid.UUID("0b7e2c51-93f4-5a7d-8e1a-4c6d2f9b3a10")


def _arg_values(args: object) -> list[str]:
    """Every scalar value of a tool call's arguments, as text (nested ones too)."""
    if isinstance(args, Mapping):
        return [v for item in args.values() for v in _arg_values(item)]
    if isinstance(args, list | tuple):
        return [v for item in args for v in _arg_values(item)]
    if args is None or isinstance(args, bool):
        return []
    return [str(args)]


def tool_failure_summary(
    name: str,
    error: str,
    args: object,
    redact: Callable[[str], RedactionResult] | None = None,
) -> str:
    """The text stored for a failed tool call: ``"Tool <name> failed: <detail>"``, where the
    detail is the error's first line, at most 200 characters, with every argument value of
    the call (``args``) replaced by ``[arg]`` (arguments are what the model sent, often the
    user's data: an error that echoes them must not make them memory), then PII-redacted with
    ``redact`` (a :class:`~langgraph_memory.core.redact.Redactor`'s ``redact``)."""
    # ToolNode reports ``Error: ValueError('...')``: a repr, whose newlines are escaped
    lines = [line.strip() for line in error.replace("\\n", "\n").splitlines() if line.strip()]
    detail = lines[0] if lines else "no error message"
    for value in sorted(set(_arg_values(args)), key=len, reverse=True):
        if len(value) >= 3:
            detail = detail.replace(value, "[arg]")
    if len(detail) > _TOOL_DETAIL_CHARS:
        detail = detail[: _TOOL_DETAIL_CHARS - 1].rstrip() + "…"
    if redact is not None:
        detail = redact(detail).text
    return TOOL_FAILURE_TEXT.format(name=name, detail=detail)


def failed_call_args(
    messages: Sequence[BaseMessage], wanted: Mapping[str, str]
) -> dict[str, object]:
    """``turn_id → args`` of the tool call behind each failed tool result; ``wanted`` maps
    each result's ``tool_call_id`` to its turn id."""
    out: dict[str, object] = {}
    if not wanted:
        return out
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call.get("id") in wanted:
                    out[wanted[str(call["id"])]] = call.get("args")
    return out


def tool_failure_record(
    message: ToolMessage,
    text: str,
    *,
    scope: Scope,
    turn_id: str,
    task_id: str | None,
    thread_id: str | None,
    checkpoint_id: str | None,
) -> MemoryRecord:
    """The episodic record of one failed tool result (``text``: its
    :func:`tool_failure_summary`), of ``task_id`` or, when the run has no task, of the thread."""
    name = message.name or "tool"
    task_id = task_id or (f"{THREAD_TASK_PREFIX}{thread_id}" if thread_id is not None else None)
    return MemoryRecord(
        id=str(uuid.uuid5(_TOOL_EVENT_NS, f"{thread_id}\x00{turn_id}")),
        user_id=scope.user_id,
        project_id=scope.project_id,
        layer=Layer.EPISODIC,
        kind="event",
        subject=f"tool:{name}",
        predicate="failed",
        text=text,
        source=Source.TOOL,
        task_id=task_id,
        importance=6,
        evidence=Evidence(
            turn_ids=[turn_id],
            message_ids=[str(message.id)] if message.id else [],
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        ),
        metadata={"tool_call_id": message.tool_call_id},
    )


__all__ = ["TOOL_FAILURE_TEXT", "failed_call_args", "tool_failure_record", "tool_failure_summary"]
