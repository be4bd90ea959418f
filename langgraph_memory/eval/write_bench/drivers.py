"""How ``bench write`` sends turns into the write path (pipeline, background writer or the
compiled agent), the LLM extractor's model, and the capture of log output for the PII check."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any


class _Capture(logging.Handler):
    """Keeps every log record's message and structured extra as text."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            extra = {k: v for k, v in record.__dict__.items() if k not in _STD_ATTRS}
            self.lines.append(
                record.getMessage() + " " + json.dumps(extra, ensure_ascii=False, default=str)
            )
        except Exception:  # never let the benchmark's capture break the code under test
            self.lines.append(str(record.msg))


_STD_ATTRS = set(logging.LogRecord("x", 0, "x", 0, "x", None, None).__dict__) | {
    "message",
    "asctime",
}


VIAS = ("pipeline", "background", "graph")
"""The ways ``bench write`` can drive turns into the write path."""


def _driver(via: str, pipeline: Any, store: Any) -> Any:
    """A function ``(text, scope, turn_id, message_id, source, confirmed) -> WriteReport``
    that sends one turn the ``via`` way and returns the write path's report for it."""
    from ...core.records import Source

    if via not in VIAS:
        raise ValueError(f"via must be one of {VIAS}, got {via!r}")

    def direct(text: str, scope: Any, turn: str, mid: str, source: Any, confirmed: bool) -> Any:
        return pipeline.process_turn(
            text,
            scope=scope,
            turn_id=turn,
            message_id=mid,
            thread_id="bench",
            source=source,
            confirmed=confirmed,
        )

    if via == "pipeline":
        return direct
    if via == "background":
        import tempfile

        from ...write import BackgroundWriter

        journal = Path(tempfile.mkdtemp(prefix="bench-write-")) / "journal.jsonl"
        writer = BackgroundWriter(pipeline, journal_path=journal)

        def queued(text: str, scope: Any, turn: str, mid: str, source: Any, confirmed: bool) -> Any:
            entry = writer.enqueue(
                text,
                scope=scope,
                turn_id=turn,
                message_id=mid,
                thread_id="bench",
                source=source,
                confirmed=confirmed,
            )
            writer.flush()
            return writer.reports[entry]

        return queued
    from langchain_core.messages import HumanMessage

    from ...graph.prebuilt import create_memory_agent
    from ...graph.state import MemoryContext
    from ...testing import ScriptedChatModel

    seen: list[Any] = []

    user_turn = pipeline.process_turn

    def spy(*args: Any, **kwargs: Any) -> Any:
        """The pipeline's ``process_turn`` as the graph calls it; keeps user turns' reports."""
        report = user_turn(*args, **kwargs)
        if str(kwargs.get("source", "user")) in {"user", "Source.USER"}:
            seen.append(report)
        return report

    setattr(pipeline, "process_turn", spy)  # noqa: B010 - this bench's own pipeline instance
    agent = create_memory_agent(
        ScriptedChatModel(responder=lambda messages, tools: "ok"),
        store=store,
        write_pipeline=pipeline,
    )

    def graph(text: str, scope: Any, turn: str, mid: str, source: Any, confirmed: bool) -> Any:
        if source is not Source.USER:
            return direct(text, scope, turn, mid, source, confirmed)
        seen.clear()
        agent.invoke(
            {"messages": [HumanMessage(content=text, id=mid)]},
            {"configurable": {"thread_id": f"bench-{scope.user_id}"}},
            context=MemoryContext(
                user_id=scope.user_id, project_id=scope.project_id, confirmed=confirmed
            ),
        )
        if not seen:
            raise RuntimeError(f"the graph did not send turn {mid} to the write path")
        return seen[-1]

    return graph


LOCAL_MODEL = "local"


def _llm_model(spec: str) -> Any:
    """The LLM extractor's chat model for ``--model``: ``local`` / ``local:<name>`` (the
    verified local GGUF, see :mod:`langgraph_memory.eval.local_llm`) or a ``provider:model``
    string for ``init_chat_model``."""
    if spec == LOCAL_MODEL or spec.startswith(LOCAL_MODEL + ":"):
        from ..local_llm import QWEN_05B, local_chat_model

        name = spec.partition(":")[2]
        return local_chat_model(name or QWEN_05B)
    from langchain.chat_models import init_chat_model

    return init_chat_model(spec)
