"""Evidence: a 200-step scripted tool-using run stays safe under a tight token budget.

A compiled LangGraph ``StateGraph`` (user -> compact -> model -> tools -> user ...) driven by
an offline scripted model (``ScriptedAgentModel``, a fake: no LLM is called). A rule is set
at step 3 ("never send email to bob@example.com"); tool outputs, some in Chinese, overflow
the budget many times. Checked at every one of the 200 model calls:

* the rule is in the prompt (100% of steps after it was set), re-injected when compaction
  pushed the user's original message out of the history;
* the prompt never exceeds the budget;
* zero orphan tool messages / unanswered tool calls;
* every compaction is logged (logger ``langgraph_memory.context``) and streamed
  (``stream_mode="custom"``), one event per compaction.
"""

from __future__ import annotations

import logging
import operator
import re
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode

from langgraph_memory.context import (
    Constraint,
    HandleStore,
    check_output,
    compact_messages,
    constraint_present,
    create_fetch_memory_tool,
    default_token_counter,
    ensure_constraints,
    find_orphans,
    format_violations,
    message_text,
)

BUDGET = 3000
STEPS = 200
RULE_STEP = 3
SYSTEM = "You are a travel-planning agent. Use the tools; be concise."
RULE = Constraint(
    id="no-bob",
    text="Never send email to bob@example.com.",
    source="user",
    checker={"type": "forbidden_recipients", "recipients": ["bob@example.com"]},
)
COUNTER = default_token_counter()
SCOPE = "alice"
HANDLE_RE = re.compile(r"h_[0-9a-f]{20}")


def _payload(step: int) -> str:
    """Tool output of a search: most are mid-sized, every 4th is huge, some are Chinese."""
    if step % 4 == 0:
        words = 900 + step * 3
    elif step % 4 == 2:
        words = 250
    else:
        words = 60
    if step % 3 == 0:
        unit = "航班信息：上海到北京，价格便宜，准点率高。"
        return f"[search {step}] " + unit * (words // 8)
    return f"[search {step}] " + " ".join(
        f"fare{step}-{i} SEA-SFO $1{i % 90}" for i in range(words // 3)
    )


@tool
def search(query: str, step: int) -> str:
    """Search flights."""
    return _payload(step)


SENT: list[str] = []


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    SENT.append(to)
    return f"sent to {to}"


class RunState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    constraints: list[Constraint]
    step: int
    compactions: Annotated[int, operator.add]


class ScriptedAgentModel:
    """A scripted stand-in for a chat model (offline fake): decides each step's tool call
    from the step number; at some steps it *tries* to email bob, and complies when the
    prompt states the violation (the regeneration path)."""

    def __init__(self) -> None:
        self.calls = 0

    def invoke(self, messages: list[BaseMessage], step: int) -> AIMessage:
        self.calls += 1
        prompt = "\n".join(message_text(m) for m in messages)
        cid = f"call-{step}-{self.calls}"
        if step == STEPS - 1:
            return AIMessage(content="Done: itinerary ready.", id=f"ai-{step}-{self.calls}")
        if step > RULE_STEP and step % 10 == 7:
            corrected = "broke these rules" in prompt
            to = "alice@example.com" if corrected else "bob@example.com"
            call = {"name": "send_email", "args": {"to": to, "body": f"update {step}"}, "id": cid}
        elif step % 6 == 5 and HANDLE_RE.search(prompt):
            handle = HANDLE_RE.findall(prompt)[-1]
            call = {"name": "fetch_memory", "args": {"handle": handle}, "id": cid}
        else:
            call = {"name": "search", "args": {"query": f"flights {step}", "step": step}, "id": cid}
        return AIMessage(content="", tool_calls=[call], id=f"ai-{step}-{self.calls}")


def _system_text(constraints: list[Constraint]) -> tuple[str, list[Constraint]]:
    return ensure_constraints(SYSTEM, constraints)


def build_graph(store: HandleStore, model: ScriptedAgentModel, log: list[dict[str, Any]]) -> Any:
    fetch = create_fetch_memory_tool(store, SCOPE, max_tokens=400)

    def user(state: RunState) -> dict[str, Any]:
        step = state.get("step", 0)
        if step == 0:
            return {"messages": [HumanMessage("Plan my trip: find cheap flights.", id="u-0")]}
        if step == RULE_STEP:
            return {
                "messages": [HumanMessage(f"From now on: {RULE.text}", id="u-rule")],
                "constraints": [RULE],
            }
        if step % 50 == 0:
            return {"messages": [HumanMessage(f"Next leg, please ({step}).", id=f"u-{step}")]}
        return {}

    def compact(state: RunState) -> dict[str, Any]:
        system, _ = _system_text(state.get("constraints", []))
        reserve = COUNTER.count_messages([SystemMessage(system)])
        result = compact_messages(
            state["messages"],
            budget_tokens=BUDGET - reserve,
            handle_store=store,
            scope=SCOPE,
            source_ref={"thread_id": "run-200"},
        )
        if not result.changed:
            return {}
        return {"messages": result.update, "compactions": 1}

    def call_model(state: RunState) -> dict[str, Any]:
        step = state.get("step", 0)
        constraints = state.get("constraints", [])
        system, missing = _system_text(constraints)
        history = list(state["messages"])
        prompt = [SystemMessage(system), *history]
        ai = model.invoke(prompt, step)
        violations = check_output(ai, constraints)
        regenerated = False
        if violations:  # one regeneration with the violation stated
            fix = SystemMessage(system + "\n\n" + format_violations(violations, constraints))
            ai = model.invoke([fix, *history], step)
            violations = check_output(ai, constraints)
            regenerated = True
        full_text = "\n".join(message_text(m) for m in prompt)
        log.append(
            {
                "step": step,
                "tokens": COUNTER.count_messages(prompt),
                "rule_in_prompt": constraint_present(full_text, RULE),
                "rule_message_in_history": any(m.id == "u-rule" for m in history),
                "reinjected": [c.id for c in missing],
                "orphans": find_orphans(history),
                "regenerated": regenerated,
                "violations": len(violations),
            }
        )
        return {"messages": [ai], "step": step + 1}

    def route(state: RunState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(RunState)
    graph.add_node("user", user)
    graph.add_node("compact", compact)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode([search, send_email, fetch]))
    graph.add_edge(START, "user")
    graph.add_edge("user", "compact")
    graph.add_edge("compact", "model")
    graph.add_conditional_edges("model", route, ["tools", END])
    graph.add_edge("tools", "user")
    return graph.compile()


@pytest.fixture(scope="module")
def long_run() -> dict[str, Any]:
    SENT.clear()
    store = HandleStore()
    model = ScriptedAgentModel()
    log: list[dict[str, Any]] = []
    graph = build_graph(store, model, log)
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if getattr(record, "event", None) == "compaction":
                records.append(record)

    handler = Collect(level=logging.INFO)
    logger = logging.getLogger("langgraph_memory.context")
    old_level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    streamed: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    try:
        for mode, chunk in graph.stream(
            {"messages": [], "step": 0, "constraints": [], "compactions": 0},
            {"recursion_limit": STEPS * 5 + 20},
            stream_mode=["custom", "values"],
        ):
            if mode == "custom":
                streamed.append(chunk)
            else:
                final = chunk
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    return {
        "log": log,
        "streamed": streamed,
        "records": records,
        "final": final,
        "store": store,
        "model": model,
        "sent": list(SENT),
    }


def test_run_has_200_steps_and_overflows_the_budget_many_times(long_run: dict[str, Any]) -> None:
    log = long_run["log"]
    assert [entry["step"] for entry in log] == list(range(STEPS))
    raw_output_tokens = sum(COUNTER.count_text(_payload(s)) for s in range(STEPS))
    assert raw_output_tokens > 20 * BUDGET  # the full history would overflow ~20x over
    assert long_run["final"]["compactions"] >= 20


def test_constraint_in_prompt_at_every_step_after_it_was_set(long_run: dict[str, Any]) -> None:
    after = [e for e in long_run["log"] if e["step"] >= RULE_STEP]
    assert len(after) == STEPS - RULE_STEP
    assert all(e["rule_in_prompt"] for e in after)  # 100% of steps
    # and it was needed: compaction pushed the user's rule message out of the history for
    # most of the run; ensure_constraints re-injected the rule into the system prompt
    pushed_out = [e for e in after if not e["rule_message_in_history"]]
    assert len(pushed_out) > 100
    assert all(e["reinjected"] == ["no-bob"] for e in after)
    before = [e for e in long_run["log"] if e["step"] < RULE_STEP]
    assert all(e["reinjected"] == [] for e in before)


def test_budget_never_exceeded_and_no_orphans(long_run: dict[str, Any]) -> None:
    log = long_run["log"]
    assert max(e["tokens"] for e in log) <= BUDGET
    assert all(e["orphans"] == ([], []) for e in log)
    final_messages = long_run["final"]["messages"]
    assert find_orphans(final_messages) == ([], [])


def test_every_compaction_logged_and_streamed(long_run: dict[str, Any]) -> None:
    n = long_run["final"]["compactions"]
    streamed = [c for c in long_run["streamed"] if c.get("langgraph_memory") == "compaction"]
    assert len(streamed) == n
    assert len(long_run["records"]) == n
    for event in streamed:
        assert event["tokens_after"] < event["tokens_before"]
        assert event["fits"] is True
        assert event["kept"]["tail_ids"]
        assert set(event) >= {"tokens_before", "tokens_after", "turn_range", "handles", "kept"}
    assert any(e["turn_range"] for e in streamed)


def test_violations_caught_and_regenerated_never_sent_to_bob(long_run: dict[str, Any]) -> None:
    regenerated = [e for e in long_run["log"] if e["regenerated"]]
    assert len(regenerated) >= 15
    assert all(e["violations"] == 0 for e in regenerated)
    assert "bob@example.com" not in long_run["sent"]
    assert long_run["sent"].count("alice@example.com") == len(regenerated)


def test_handles_in_context_are_fetchable(long_run: dict[str, Any]) -> None:
    store: HandleStore = long_run["store"]
    handles = store.list(SCOPE)
    assert len(handles) > 50
    final_text = "\n".join(message_text(m) for m in long_run["final"]["messages"])
    for handle in set(HANDLE_RE.findall(final_text)):
        assert store.get(SCOPE, handle)
    # the huge payload of step 0 survives verbatim behind some handle
    assert any(_payload(0) in store.get(SCOPE, h) for h in handles)
    # and other users cannot read it
    assert not store.contains("bob", handles[0])
