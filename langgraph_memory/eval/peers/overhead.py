"""Section 4 of the peers benchmark: per-turn cost of our ``load_memory`` / ``save_memory`` nodes
inside a compiled LangGraph graph, from LangGraph's own node callbacks."""

from __future__ import annotations

import time
import uuid
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from tqdm import tqdm

from ...graph.nodes import Generate, LoadMemory, SaveMemory
from ...graph.state import AgentState, MemoryContext
from ...store import MemoryStore
from ...testing import ScriptedChatModel
from ..common import AGENT_TURNS, percentile
from ..node_timer import NodeTimer


def graph_overhead(store: MemoryStore, user: str, turns: int, progress: bool) -> dict[str, Any]:
    """p50/p95 of ``load_memory`` / ``save_memory`` in a compiled graph over ``store``."""
    builder = StateGraph(AgentState, context_schema=MemoryContext)
    builder.add_node("load_memory", LoadMemory(store))
    builder.add_node("generate", Generate(ScriptedChatModel(responder=lambda m, t: "OK.")))
    builder.add_node("save_memory", SaveMemory(store=store))
    builder.add_edge(START, "load_memory")
    builder.add_edge("load_memory", "generate")
    builder.add_edge("generate", "save_memory")
    builder.add_edge("save_memory", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    timer = NodeTimer(["load_memory", "generate", "save_memory"])
    context = MemoryContext(user_id=user)
    totals: list[float] = []
    thread = f"overhead-{uuid.uuid4().hex[:6]}"
    writes = 0
    for i in tqdm(range(turns + 1), desc="graph turns", disable=not progress):
        text = AGENT_TURNS[i % len(AGENT_TURNS)] + ("" if i < 8 else f" ({i})")
        t0 = time.perf_counter()
        out = graph.invoke(
            {"messages": [HumanMessage(content=text, id=f"h{i}")]},
            {"configurable": {"thread_id": thread}, "callbacks": [timer.handler]},
            context=context,
        )
        if i == 0:  # warm-up turn: first-call costs (keyword index build) are not per-turn
            timer.times.clear()
            continue
        totals.append((time.perf_counter() - t0) * 1e3)
        writes += sum(1 for w in out.get("memory_writes") or [] if w.get("record_id"))
    entry: dict[str, Any] = {"turns": len(totals), "records_written": writes}
    for name in ("load_memory", "generate", "save_memory"):
        values = timer.times.get(name, [])
        entry[f"{name}_p50_ms"] = percentile(values, 50)
        entry[f"{name}_p95_ms"] = percentile(values, 95)
    entry["turn_p50_ms"] = percentile(totals, 50)
    entry["turn_p95_ms"] = percentile(totals, 95)
    return entry
