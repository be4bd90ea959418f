"""Wire the memory nodes into your own StateGraph.

Run: ``python examples/custom_graph.py`` (offline: the model is a scripted stand-in).

Shows: subclassing ``AgentState`` with your own keys, the five nodes from their factories,
the store handed to the graph as ``runtime.store`` (``LangGraphMemoryStore``), typed
constraints in working memory, and the custom stream of memory events.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, StateGraph

from langgraph_memory import (
    AgentState,
    CompactIfNeeded,
    ConstraintAssert,
    Generate,
    LangGraphMemoryStore,
    LoadMemory,
    MemoryContext,
    MemoryStore,
    SaveMemory,
    create_checkpointer,
)
from langgraph_memory.context import Constraint
from langgraph_memory.testing import ScriptedChatModel


class SupportState(AgentState, total=False):
    """Our own state: the memory keys plus a ticket id."""

    ticket_id: str


def build_graph(model: Any, store: MemoryStore, checkpointer: Any) -> Any:
    """load_memory → constraint_assert → compact_if_needed → generate → save_memory."""
    builder = StateGraph(SupportState, context_schema=MemoryContext)
    builder.add_node("load_memory", LoadMemory())  # store comes from runtime.store
    builder.add_node("constraint_assert", ConstraintAssert())
    builder.add_node("compact_if_needed", CompactIfNeeded(4000))
    builder.add_node("generate", Generate(model, system_prompt="You are a support agent."))
    builder.add_node("save_memory", SaveMemory())
    builder.add_edge(START, "load_memory")
    builder.add_edge("load_memory", "constraint_assert")
    builder.add_edge("constraint_assert", "compact_if_needed")
    builder.add_edge("compact_if_needed", "generate")
    builder.add_edge("generate", "save_memory")
    builder.add_edge("save_memory", END)
    return builder.compile(checkpointer=checkpointer, store=LangGraphMemoryStore(store))


def main(workdir: str | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(workdir or tmp)
        model = ScriptedChatModel(responder=lambda messages, tools: "Happy to help.")
        with (
            MemoryStore(path=root / "memory") as store,
            create_checkpointer("sqlite", path=root / "checkpoints.sqlite") as checkpointer,
        ):
            graph = build_graph(model, store, checkpointer)
            config = {"configurable": {"thread_id": "ticket-42"}}
            context = MemoryContext(user_id="carol")
            first = {
                "messages": [("user", "I prefer email over phone calls.")],
                "ticket_id": "T-42",
                "goal": "Resolve the billing ticket",
                "constraints": [Constraint(id="no-refund", text="Never promise a refund.")],
            }
            for mode, chunk in graph.stream(
                first, config, context=context, stream_mode=["custom", "updates"]
            ):
                if mode == "custom":
                    print("event:", chunk["langgraph_memory"])
            out = graph.invoke(
                {"messages": [("user", "How should you contact me?")]}, config, context=context
            )
            system = model.last_prompt[0].content
            print("recalled:", [r["text"] for r in out["recalled"]])
            ok = (
                out["ticket_id"] == "T-42"
                and any("email" in r["text"] for r in out["recalled"])
                and "Never promise a refund." in system
            )
            print("ok" if ok else "FAILED")
            return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
