"""Tools with models that need ``tool_choice``, and tool calls that arrive as JSON text:
the compiled prebuilt agent and ``create_agent`` + ``MemoryMiddleware``, with fake models
that behave like ``ChatLlamaCpp`` (tool calls only when forced, JSON blobs otherwise)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langgraph_memory import (
    Generate,
    MemoryContext,
    MemoryMiddleware,
    MemoryStore,
    create_memory_agent,
)
from langgraph_memory.errors import ConfigError
from langgraph_memory.graph.toolcalls import parse_text_tool_calls, tool_result_since_user
from tests.fakes import ForcedToolChatModel, ScriptedChatModel

ALICE = MemoryContext(user_id="alice")
FORCE_WEATHER = {"type": "function", "function": {"name": "lookup_weather"}}


@pytest.fixture
def weather() -> tuple[Any, list[str]]:
    calls: list[str] = []

    def lookup_weather(city: str) -> str:
        """Weather for a city."""
        calls.append(city)
        return f"sunny in {city}"

    return lookup_weather, calls


def _answer_after_tool(messages: list[Any], tools: list[Any]) -> str:
    result = next((m for m in reversed(messages) if isinstance(m, ToolMessage)), None)
    return f"Answer: {result.content}" if result is not None else "no tool result"


def _middleware_agent(model: Any, tools: list[Any], store: MemoryStore, **kw: Any) -> Any:
    return create_agent(
        model, tools, middleware=[MemoryMiddleware(store, **kw)], context_schema=MemoryContext
    )


# ------------------------------------------------------------------ forced tool_choice
@pytest.mark.parametrize("choice", [FORCE_WEATHER, "lookup_weather", "any"])
def test_prebuilt_forced_tool_runs_once_and_the_loop_ends(
    store: MemoryStore, weather: tuple[Any, list[str]], choice: Any
) -> None:
    tool, calls = weather
    model = ForcedToolChatModel(args={"city": "Porto"}, responder=_answer_after_tool)
    agent = create_memory_agent(model, [tool], store=store, tool_choice=choice)
    out = agent.invoke({"messages": [("user", "weather in Porto?")]}, context=ALICE)
    assert calls == ["Porto"]  # the forced call ran, once
    assert out["messages"][-1].content == "Answer: sunny in Porto"
    assert model.choices == [choice, None]  # forced on the first call only, then lifted
    # the next turn forces again (first model call of that turn)
    agent.invoke({"messages": [("user", "and tomorrow?")]}, context=ALICE)
    assert model.choices[2] == choice and calls == ["Porto", "Porto"]


async def test_middleware_forced_tool_runs_once_and_the_loop_ends(
    store: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    tool, calls = weather
    model = ForcedToolChatModel(args={"city": "Oslo"}, responder=_answer_after_tool)
    agent = _middleware_agent(model, [tool], store, tool_choice=FORCE_WEATHER)
    out = await agent.ainvoke({"messages": [("user", "weather in Oslo?")]}, context=ALICE)
    assert calls == ["Oslo"] and out["messages"][-1].content == "Answer: sunny in Oslo"
    assert model.choices == [FORCE_WEATHER, None]


def test_without_tool_choice_a_forced_only_model_never_calls(
    store: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    """The failure the option exists for: unforced, such a model never calls a tool."""
    tool, calls = weather
    model = ForcedToolChatModel(args={"city": "Oslo"}, responder=lambda m, t: "no idea")
    agent = create_memory_agent(model, [tool], store=store)
    agent.invoke({"messages": [("user", "weather in Oslo?")]}, context=ALICE)
    assert calls == [] and model.choices == [None]


def test_bad_tool_choice_is_a_config_error(
    store: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    tool, _ = weather
    model = ForcedToolChatModel()
    with pytest.raises(ConfigError, match="lookup_weather"):
        Generate(model, [tool], tool_choice="lookup_wether")
    with pytest.raises(ConfigError, match="needs tools"):
        Generate(model, None, tool_choice="any")
    with pytest.raises(ConfigError, match="str or a dict"):
        Generate(model, [tool], tool_choice=3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="str or a dict"):
        MemoryMiddleware(store, tool_choice=["lookup_weather"])  # type: ignore[arg-type]
    agent = _middleware_agent(model, [tool], store, tool_choice="lookup_wether")
    with pytest.raises(ConfigError, match="lookup_wether"):  # names known at the call
        agent.invoke({"messages": [("user", "hi")]}, context=ALICE)


# ------------------------------------------------------------------ JSON text tool calls
BLOB = json.dumps({"name": "lookup_weather", "arguments": {"city": "Lima"}})


@pytest.mark.parametrize(
    "reply",
    [
        BLOB,
        f"```json\n{BLOB}\n```",
        json.dumps([{"name": "lookup_weather", "args": {"city": "Lima"}}]),
        f"<tool_call>\n{BLOB}\n</tool_call>",
        json.dumps({"name": "lookup_weather", "arguments": json.dumps({"city": "Lima"})}),
        BLOB + "}",  # an unbalanced closer, as Qwen2.5-Coder-0.5B writes it
    ],
)
def test_prebuilt_parses_a_json_tool_call_written_as_text(
    store: MemoryStore, weather: tuple[Any, list[str]], reply: str
) -> None:
    tool, calls = weather
    model = ScriptedChatModel(responses=[reply], responder=_answer_after_tool)
    agent = create_memory_agent(model, [tool], store=store)
    out = agent.invoke({"messages": [("user", "weather in Lima?")]}, context=ALICE)
    assert calls == ["Lima"] and out["messages"][-1].content == "Answer: sunny in Lima"
    call_message = next(m for m in out["messages"] if isinstance(m, AIMessage) and m.tool_calls)
    assert call_message.content == "" and call_message.tool_calls[0]["args"] == {"city": "Lima"}


def test_middleware_parses_a_json_tool_call_written_as_text(
    store: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    tool, calls = weather
    model = ScriptedChatModel(responses=[f"```json\n{BLOB}\n```"], responder=_answer_after_tool)
    out = _middleware_agent(model, [tool], store).invoke(
        {"messages": [("user", "weather in Lima?")]}, context=ALICE
    )
    assert calls == ["Lima"] and out["messages"][-1].content == "Answer: sunny in Lima"


def test_a_model_repeating_its_json_call_does_not_loop(
    store: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    tool, calls = weather
    model = ScriptedChatModel(responder=lambda m, t: BLOB)  # says the same call forever
    agent = create_memory_agent(model, [tool], store=store)
    out = agent.invoke({"messages": [("user", "weather in Lima?")]}, context=ALICE)
    assert calls == ["Lima"]  # the repeat stays text: the answer, and the loop ends
    assert out["messages"][-1].content == BLOB and not out["messages"][-1].tool_calls


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"name": "delete_everything", "arguments": {}}),  # not a bound tool
        f"Sure! {BLOB}",  # prose around it: an answer
        json.dumps({"name": "lookup_weather", "arguments": ["Lima"]}),  # args not an object
        json.dumps([{"name": "lookup_weather", "args": {}}, {"name": "rm", "args": {}}]),
        '{"name": "lookup_weather", "arguments": {"city": ',  # not JSON
        "The weather is fine.",
    ],
)
def test_text_that_is_not_a_bound_tool_call_stays_text(text: str) -> None:
    message = AIMessage(content=text, id="m1")
    assert parse_text_tool_calls(message, {"lookup_weather"}) is message
    assert parse_text_tool_calls(AIMessage(content=BLOB), set()).content == BLOB  # no tools


def test_parsed_call_keeps_the_message_id_and_tool_result_lifts_forcing() -> None:
    parsed = parse_text_tool_calls(AIMessage(content=BLOB, id="m1"), {"lookup_weather"})
    assert isinstance(parsed, AIMessage) and parsed.id == "m1"
    assert [c["name"] for c in parsed.tool_calls] == ["lookup_weather"]
    call = parsed.tool_calls[0]
    history = [
        HumanMessage("hi"),
        parsed,
        ToolMessage("sunny", tool_call_id=str(call["id"])),
    ]
    assert tool_result_since_user(history) and not tool_result_since_user(history[:2])
    assert not tool_result_since_user([*history, HumanMessage("next turn")])
