"""Evidence, product nodes: the 200-step scripted run through the package's own nodes.

Same scenario as ``test_context_long_run`` (a rule set at step 3, tool outputs that overflow
the budget many times), but the graph uses ``langgraph_memory.graph.nodes``:
``constraint_assert -> compact_if_needed -> generate -> tools``, with the package's
``AgentState`` and ``MemoryContext``. The chat model is ``FakeToolCallingChatModel`` (an
offline scripted fake). Checked on every prompt the model received: the rule is present,
the prompt fits the budget, no orphan tool messages; every compaction is streamed.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

from langgraph_memory import AgentState, CompactIfNeeded, ConstraintAssert, Generate, MemoryContext
from langgraph_memory.context import (
    HandleStore,
    constraint_present,
    create_fetch_memory_tool,
    default_token_counter,
    find_orphans,
    message_text,
)
from tests.fakes import FakeToolCallingChatModel
from tests.test_context_long_run import RULE, RULE_STEP, SENT, STEPS, _payload, search, send_email

BUDGET = 3000
COUNTER = default_token_counter()
HANDLE_RE = re.compile(r"h_[0-9a-f]{20}")
SYSTEM = "You are a travel-planning agent. Use the tools; be concise."
# A long system prompt (~1,100 tokens) must be reserved from the budget too: the prompt as
# sent (system text + history) is what has to fit.
LONG_SYSTEM = (
    SYSTEM
    + " "
    + " ".join(
        f"Policy {i}: confirm dates, currencies and visa rules before booking leg {i}."
        for i in range(75)
    )
)


class RunState(AgentState, total=False):
    step: int


class Script:
    """The scripted decisions, by step (the fake model calls this as its responder)."""

    def __init__(self) -> None:
        self.step = 0
        self.sent: list[str] = []

    def __call__(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> Any:
        step = self.step
        prompt = "\n".join(message_text(m) for m in messages)
        if step == STEPS - 1:
            return "Done: itinerary ready."
        if step > RULE_STEP and step % 10 == 7:
            to = "alice@example.com" if "broke these rules" in prompt else "bob@example.com"
            return {"tool_calls": [{"name": "send_email", "args": {"to": to, "body": "hi"}}]}
        if step % 6 == 5 and HANDLE_RE.search(prompt):
            handle = HANDLE_RE.findall(prompt)[-1]
            return {"tool_calls": [{"name": "fetch_memory", "args": {"handle": handle}}]}
        return {"tool_calls": [{"name": "search", "args": {"query": f"q{step}", "step": step}}]}


@pytest.fixture(scope="module", params=[SYSTEM, LONG_SYSTEM], ids=["short-system", "long-system"])
def node_run(request: pytest.FixtureRequest) -> dict[str, Any]:
    system = request.param
    store = HandleStore()
    script = Script()
    model = FakeToolCallingChatModel(responder=script)
    tools = [search, send_email, create_fetch_memory_tool(store, "alice", max_tokens=400)]

    def user(state: RunState) -> dict[str, Any]:
        step = state.get("step", 0)
        script.step = step
        update: dict[str, Any] = {"step": step + 1}
        if step == 0:
            update["messages"] = [HumanMessage("Plan my trip: find cheap flights.", id="u-0")]
        elif step == RULE_STEP:
            update["messages"] = [HumanMessage(f"From now on: {RULE.text}", id="u-rule")]
            update["constraints"] = [RULE]
        elif step % 50 == 0:
            update["messages"] = [HumanMessage(f"Next leg, please ({step}).", id=f"u-{step}")]
        return update

    def route(state: RunState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(RunState, context_schema=MemoryContext)
    graph.add_node("user", user)
    graph.add_node("constraint_assert", ConstraintAssert())
    graph.add_node("compact_if_needed", CompactIfNeeded(handle_store=store, system_prompt=system))
    graph.add_node("generate", Generate(model, tools))
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "user")
    graph.add_edge("user", "constraint_assert")
    graph.add_edge("constraint_assert", "compact_if_needed")
    graph.add_edge("compact_if_needed", "generate")
    graph.add_conditional_edges("generate", route, ["tools", END])
    graph.add_edge("tools", "user")
    app = graph.compile()

    streamed: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    SENT.clear()
    logger = logging.getLogger("langgraph_memory")
    old = logger.level
    logger.setLevel(logging.ERROR)  # keep the run quiet; events are checked on the stream
    try:
        for mode, chunk in app.stream(
            {"messages": [], "step": 0, "constraints": []},
            {"recursion_limit": STEPS * 6 + 20},
            context=MemoryContext(
                user_id="alice", system_prompt=system, context_budget_tokens=BUDGET
            ),
            stream_mode=["custom", "values"],
        ):
            if mode == "custom":
                streamed.append(chunk)
            else:
                final = chunk
    finally:
        logger.setLevel(old)
    return {
        "model": model,
        "streamed": streamed,
        "final": final,
        "store": store,
        "sent": list(SENT),
    }


def test_product_nodes_keep_the_rule_the_budget_and_the_pairs(node_run: dict[str, Any]) -> None:
    prompts: list[list[BaseMessage]] = node_run["model"].calls
    assert len(prompts) >= STEPS  # one call per step, plus regenerations
    after_rule = prompts[RULE_STEP:]
    text = ["\n".join(message_text(m) for m in p) for p in after_rule]
    assert all(constraint_present(t, RULE) for t in text)  # 100% of prompts
    tokens = [COUNTER.count_messages(p) for p in prompts]
    assert max(tokens) <= BUDGET, max(tokens)
    assert all(find_orphans(p[1:]) == ([], []) for p in prompts)
    # the user's rule message was compacted away for most of the run
    gone = [p for p in after_rule if not any(m.id == "u-rule" for m in p)]
    assert len(gone) > 100
    raw_tokens = sum(COUNTER.count_text(_payload(s)) for s in range(STEPS))
    assert raw_tokens > 20 * BUDGET


def test_product_nodes_stream_every_compaction(node_run: dict[str, Any]) -> None:
    final = node_run["final"]
    compactions = [c for c in node_run["streamed"] if c.get("langgraph_memory") == "compaction"]
    assert final["compactions"] >= 20
    assert len(compactions) == final["compactions"]
    assert all(c["fits"] for c in compactions)
    assert find_orphans(final["messages"]) == ([], [])


def test_product_nodes_block_the_forbidden_recipient(node_run: dict[str, Any]) -> None:
    attempts = [s for s in range(RULE_STEP + 1, STEPS - 1) if s % 10 == 7]
    # each attempt to email bob was caught and regenerated once, then sent to alice instead
    assert len(node_run["model"].calls) == STEPS + len(attempts)
    assert "bob@example.com" not in node_run["sent"]
    assert node_run["sent"].count("alice@example.com") == len(attempts)
    assert node_run["final"]["violations"] == []
    handles = node_run["store"].list("alice")
    assert handles and all(node_run["store"].get("alice", h) for h in handles)
