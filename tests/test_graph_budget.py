"""Small context budgets stay valid while memory grows: the memory block is trimmed, the turn
never fails.

The failure this file exists to prevent: with a 600-token compaction budget, a setting valid
at turn 1 raised ``ConfigError: budget_tokens (600) must exceed reserve_tokens (612)`` at turn
N once the user's memory (hence the memory block) had grown. Only the LLM is faked
(:class:`ScriptedChatModel`); store, embedder, write path and graph are real.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import BaseMessage, SystemMessage

from langgraph_memory import (
    CompactIfNeeded,
    Generate,
    MemoryContext,
    MemoryMiddleware,
    MemoryStore,
    Scope,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.context import CompactionConfig, Constraint, default_token_counter
from langgraph_memory.context.constraints import constraint_present
from langgraph_memory.errors import ConfigError
from langgraph_memory.read.budget import (
    TASK_CONSTRAINTS_HEADER,
    Droppable,
    block_ids,
    fit_block,
    remove_lines,
)
from langgraph_memory.read.conversation import CONVERSATION_HEADER, FACTS_HEADER
from langgraph_memory.read.guard import neutralize
from langgraph_memory.read.prompt import DEFAULT_SYSTEM_PROMPT, system_text
from langgraph_memory.read.render import render_memory_block
from tests.fakes import ScriptedChatModel, fake_runtime, fake_state, human

BUDGET = 600
COUNTER = default_token_counter()
ALICE = Scope("alice")
RULES = [  # six rules fit a 600-token prompt next to the conversation (ids cost ~20 tokens)
    "Never use emojis in replies.",
    "Always answer in metric units.",
    "Never schedule meetings on Fridays.",
    "Do not share my phone number with anyone.",
    "Never book red-eye flights.",
    "Only suggest vegetarian restaurants.",
]
TOPICS = [
    "hotels in Berlin",
    "sushi places in Tokyo",
    "jazz clubs in Paris",
    "hiking in Lima",
    "museums in Oslo",
    "markets in Cairo",
    "coffee in Quito",
    "karaoke in Seoul",
    "beaches near Perth",
    "music in Dakar",
]
TURNS = 60


def user_turn(i: int) -> str:
    """Turn ``i`` of the scripted user: a new rule every tenth turn, else a new fact."""
    if i % 10 == 0 and i // 10 < len(RULES):
        return RULES[i // 10]
    return f"I like {TOPICS[i % 10]}, my favourite number there is {i} and I went in {1990 + i}."


def _cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _stored_constraints(store: MemoryStore) -> list[Constraint]:
    """The user's current constraint records, as the prompt must carry them."""
    return [
        Constraint(id=r.id, text=neutralize(r.text))
        for r in store.list(scope=ALICE, filters={"kind": "constraint"})
    ]


def _check_prompt(prompt: list[BaseMessage], rules: list[Constraint], turn: int) -> None:
    """The prompt fits the budget and carries every rule stored before the turn."""
    tokens = COUNTER.count_messages(prompt)
    assert tokens <= BUDGET, f"turn {turn}: prompt of {tokens} tokens > {BUDGET}"
    assert isinstance(prompt[0], SystemMessage)
    system = str(prompt[0].content)
    missing = [c.text for c in rules if not constraint_present(system, c)]
    assert not missing, f"turn {turn}: constraints missing from the prompt: {missing}"


# ---------------------------------------------------------------------------- compiled graph
# the long run is the expensive part and tests the graph, not the engine: it runs on the embedded
# default users get (the pure-Python server client takes 3-4x longer at this size)
@pytest.mark.parametrize("backend", ["edge"])
def test_memory_agent_at_600_tokens_survives_growing_memory(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedChatModel(responder=lambda messages, tools: "noted")
    agent = create_memory_agent(
        model,
        store=store,
        checkpointer=create_checkpointer("memory"),
        compaction_budget_tokens=BUDGET,
    )
    ctx = MemoryContext(user_id="alice")
    trims: list[dict[str, Any]] = []
    caplog.set_level(logging.INFO, logger="langgraph_memory.graph")
    for turn in range(TURNS):
        rules = _stored_constraints(store)
        events = list(
            agent.stream(
                {"messages": [("user", user_turn(turn))]},
                _cfg(f"t{turn // 7}"),  # a new thread every week of turns: excerpts recalled
                context=ctx,
                stream_mode="custom",
            )
        )
        trims += [e for e in events if e.get("langgraph_memory") == "memory_trimmed"]
        _check_prompt(model.last_prompt, rules, turn)
    assert len(model.calls) == TURNS  # every turn reached the model
    # the memory really grew: rules (the write path may file one as a preference) ...
    assert len(_stored_constraints(store)) >= len(RULES) - 2
    assert store.count(scope=ALICE) > 80  # ... facts and conversation episodes too
    assert trims, "the memory block outgrew the budget but no trim was streamed"
    assert all(t["fits"] and not t["dropped_constraint_ids"] for t in trims)
    dropped = [d for t in trims for d in t["dropped"]]
    assert {d["part"] for d in dropped} <= {"conversation", "facts"}
    logged = [
        r.getMessage() for r in caplog.records if "trimmed the memory block" in r.getMessage()
    ]
    assert len(logged) == len(trims)
    assert dropped[0]["id"] in logged[0]  # the log says what was dropped, without extra=


def test_middleware_at_600_tokens_survives_a_large_memory(store: MemoryStore) -> None:
    for rule in RULES:
        store.add(rule, scope=ALICE, kind="constraint")
    store.add_many([user_turn(i) for i in range(1, 40) if i % 10], scope=ALICE, kind="preference")
    model = ScriptedChatModel(responder=lambda messages, tools: "noted")
    agent = create_agent(
        model,
        [],
        middleware=[MemoryMiddleware(store, compaction_budget_tokens=BUDGET)],
        context_schema=MemoryContext,
        checkpointer=create_checkpointer("memory"),
    )
    for turn in range(12):
        agent.invoke(
            {"messages": [("user", f"Any ideas for {TOPICS[turn % 10]} this weekend?")]},
            _cfg("mw"),
            context=MemoryContext(user_id="alice"),
        )
        _check_prompt(model.last_prompt, _stored_constraints(store), turn)


async def test_async_agent_trims_instead_of_raising(store: MemoryStore) -> None:
    store.add_many([user_turn(i) for i in range(1, 40) if i % 10], scope=ALICE, kind="preference")
    model = ScriptedChatModel(responder=lambda messages, tools: "noted")
    agent = create_memory_agent(
        model,
        store=store,
        checkpointer=create_checkpointer("memory"),
        compaction_budget_tokens=300,
    )
    ctx = MemoryContext(user_id="alice", recall_k=10)
    for turn in range(3):
        out = await agent.ainvoke(
            {"messages": [("user", f"Tell me about {TOPICS[turn]} again")]}, _cfg("a"), context=ctx
        )
        assert COUNTER.count_messages(model.last_prompt) <= 300
        assert out["dropped_for_budget"]  # recalled lines were left out, and it says which
        assert not block_ids(out["memory_block"]) & set(out["dropped_for_budget"])


# ---------------------------------------------------------------------------- the node alone
def _rules(n: int) -> list[Constraint]:
    return [
        Constraint(id=f"rule-{i}", text=f"Rule {i}: never discuss topic number {i} " + "x " * 12)
        for i in range(n)
    ]


def _facts(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"fact-{i}",
            "text": f"The user enjoys activity number {i} on weekends",
            "kind": "preference",
            "part": "facts",
            "score": 1.0 - i / 100,
            "explanation": {"final": 1.0 - i / 100},
        }
        for i in range(n)
    ]


def _state_with_block(rules: list[Constraint], facts: list[dict[str, Any]]) -> dict[str, Any]:
    state = fake_state(human("What should we do this weekend?"), constraints=rules)
    block, *_ = render_memory_block(procedural=[], recalled=facts, state=state)
    state.update(memory_block=block, recalled=facts, procedural=[])
    return state


def _prompt_tokens(state: dict[str, Any]) -> int:
    model = ScriptedChatModel(responses=["ok"])
    Generate(model, check_constraints=False)(state, fake_runtime())
    return COUNTER.count_messages(model.last_prompt)


def test_node_drops_lowest_scored_facts_first_and_keeps_constraints(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rules, facts = _rules(3), _facts(30)
    state = _state_with_block(rules, facts)
    runtime = fake_runtime()
    caplog.set_level(logging.INFO, logger="langgraph_memory.graph")
    out = CompactIfNeeded(BUDGET)(state, runtime)
    merged = {**state, **out}
    kept = [f["id"] for f in facts if f["id"] in block_ids(out["memory_block"])]
    assert kept == [f"fact-{i}" for i in range(len(kept))] and 0 < len(kept) < 30
    assert out["dropped_for_budget"] == [f"fact-{i}" for i in range(29, len(kept) - 1, -1)]
    assert [r["id"] for r in out["recalled"]] == kept  # recalled = what reached the prompt
    assert all(constraint_present(out["memory_block"], c) for c in rules)
    assert _prompt_tokens(merged) <= BUDGET
    (event,) = runtime.stream_writer.named("memory_trimmed")  # type: ignore[attr-defined]
    assert event["fits"] and event["dropped_constraint_ids"] == []
    assert [r.levelno for r in caplog.records if r.getMessage().startswith("trimmed")] == [
        logging.INFO
    ]
    # the tool loop runs the node again on the trimmed state: nothing more to trim
    again = CompactIfNeeded(BUDGET)(merged, fake_runtime())
    assert "memory_block" not in again


def test_node_keeps_as_many_constraints_as_fit_when_they_alone_exceed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rules = _rules(20)  # ~20 tokens each: far over what 600 tokens leave for the block
    state = _state_with_block(rules, _facts(5))
    runtime = fake_runtime()
    out = CompactIfNeeded(BUDGET)(state, runtime)
    merged = {**state, **out}
    block = out["memory_block"]
    present = [c.id for c in rules if constraint_present(block, c)]
    assert present == [c.id for c in rules[: len(present)]]  # the first ones given are kept
    assert 0 < len(present) < len(rules)
    dropped_rules = [c.id for c in rules if c.id not in present]
    assert set(dropped_rules) <= set(out["dropped_for_budget"])
    assert not any(f"fact-{i}" in block for i in range(5))  # facts went before any rule
    system, active = system_text(DEFAULT_SYSTEM_PROMPT, merged, emit=False)
    assert not any(constraint_present(system, c) for c in rules if c.id in dropped_rules)
    assert len(active) == len(rules)  # outputs are still checked against every rule
    assert _prompt_tokens(merged) <= BUDGET
    (event,) = runtime.stream_writer.named("memory_trimmed")  # type: ignore[attr-defined]
    assert sorted(event["dropped_constraint_ids"]) == sorted(dropped_rules)
    warning = [r for r in caplog.records if r.levelno == logging.WARNING and "trimmed" in r.msg]
    assert warning and "only the ones that fit" in warning[0].getMessage()
    # the next model call of the tool loop does not re-assert the dropped rules either
    again = CompactIfNeeded(BUDGET)(merged, fake_runtime())
    assert "memory_block" not in again
    assert _prompt_tokens({**merged, **again}) <= BUDGET


def test_generate_still_checks_a_rule_left_out_for_the_budget() -> None:
    rule = Constraint(
        id="no-orca",
        text="Never mention ORCA.",
        checker={"type": "forbidden_terms", "terms": ["ORCA"]},
    )
    state = fake_state("hi", constraints=[rule], dropped_for_budget=["no-orca"])
    model = ScriptedChatModel(responses=["ORCA it is", "fine"])
    out = Generate(model)(state, fake_runtime())
    assert "Never mention ORCA." not in str(model.calls[0][0].content)  # left out...
    assert out["messages"][0].content == "fine"  # ...and still enforced on the output


def test_growing_memory_never_raises_but_a_fixed_overflow_does() -> None:
    with pytest.raises(ConfigError, match="system prompt"):
        CompactIfNeeded(BUDGET, system_prompt="Be precise. " * 400)
    with pytest.raises(ConfigError, match="reserve_tokens"):
        CompactIfNeeded(BUDGET, config=CompactionConfig(reserve_tokens=BUDGET))
    with pytest.raises(ConfigError, match="min_history_ratio"):
        CompactIfNeeded(BUDGET, min_history_ratio=1.0)
    # the budget from the context: the same check, on every run alike
    node = CompactIfNeeded()
    long_prompt = fake_runtime(system_prompt="Be precise. " * 400, context_budget_tokens=600)
    with pytest.raises(ConfigError, match="system prompt"):
        node(fake_state("hi"), long_prompt)
    # a memory block many times the budget is trimmed, not fatal
    state = _state_with_block(_rules(40), _facts(40))
    out = CompactIfNeeded(300)(state, fake_runtime())
    assert out["memory_block"] and _prompt_tokens({**state, **out}) <= 300


def test_a_block_that_cannot_shrink_enough_is_reported_not_raised() -> None:
    state = fake_state(
        "hi", plan=[f"step {i}: " + "do the thing carefully " * 5 for i in range(40)]
    )
    block, *_ = render_memory_block(procedural=[], recalled=[], state=state)
    state["memory_block"] = block
    runtime = fake_runtime()
    out = CompactIfNeeded(BUDGET)(state, runtime)  # the plan alone is over the budget
    assert "memory_block" not in out  # nothing it may drop: the task's plan is kept
    (event,) = runtime.stream_writer.named("memory_trimmed")  # type: ignore[attr-defined]
    assert event["fits"] is False and "never dropped" in event["reason"]


# ---------------------------------------------------------------------------- prompt_budget
def test_remove_lines_removes_headers_left_empty() -> None:
    block = "\n".join(
        [
            "<memory>",
            TASK_CONSTRAINTS_HEADER,
            "- [r1] Never do X.",
            FACTS_HEADER,
            '- [f1] preference: "tea"',
            CONVERSATION_HEADER,
            "- said 2025-01-02 (conversation t1):",
            '  - [e1] user: "hello"',
            "- said 2025-01-03 (conversation t2):",
            '  - [e2] user: "bye"',
            "Current task [trip]:",
            '- goal: "plan a trip"',
            "</memory>",
            "",
            "<active_constraints>",
            "You must follow every rule below for the rest of this conversation:",
            "[r2] Never do Y.",
            "</active_constraints>",
        ]
    )
    assert block_ids(block) == {"r1", "f1", "e1", "e2", "r2"}
    out = remove_lines(block, {"f1", "e1", "r2"})
    assert FACTS_HEADER not in out and "t1" not in out and "<active_constraints>" not in out
    assert CONVERSATION_HEADER in out and "t2" in out and "- [r1] Never do X." in out
    assert out.endswith('- goal: "plan a trip"\n</memory>')
    gone = remove_lines(block, {"r1", "f1", "e1", "e2", "r2"}).splitlines()
    assert gone == ["<memory>", "Current task [trip]:", '- goal: "plan a trip"', "</memory>"]


def test_fit_block_cuts_the_shortest_prefix_and_puts_constraints_back() -> None:
    block = "\n".join(["- [a] " + "a " * 10, "- [b] " + "b " * 10, "- [c] c", "- [d] " + "d " * 30])

    def size(text: str, dropped: Any) -> int:
        return len(text.split())

    order = [
        Droppable("a", "facts", "recalled", 0.1),
        Droppable("c", "constraints", "state"),
        Droppable("d", "constraints", "state"),
    ]
    assert fit_block(block, order, size, limit=100).dropped == []
    fit = fit_block(block, order, size, limit=25)  # the cut takes a, c and d ...
    assert [d.id for d in fit.dropped] == ["a", "d"] and fit.fits and fit.tokens_after <= 25
    assert block_ids(fit.block) == {"b", "c"}  # ... and "c" fits again once "d" is gone
    hopeless = fit_block(block, order, size, limit=1)
    assert not hopeless.fits and [d.id for d in hopeless.dropped] == ["a", "c", "d"]
    assert hopeless.tokens_after == size(hopeless.block, ())
