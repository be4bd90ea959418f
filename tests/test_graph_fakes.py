"""The fake chat models behave like chat models where the graph relies on it."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from langgraph_memory import MemoryStore, SaveMemory, Scope
from tests.fakes import (
    FakeToolCallingChatModel,
    RuleFollowingChatModel,
    ScriptedChatModel,
    fake_runtime,
    fake_state,
    human,
)


class Person(BaseModel):
    name: str
    age: int


def test_scripted_replies_in_order_then_error() -> None:
    model = ScriptedChatModel(responses=["one", AIMessage(content="two")])
    assert model.invoke("a").content == "one"
    assert model.invoke([HumanMessage(content="b")]).content == "two"
    with pytest.raises(RuntimeError, match="script has only 2 replies"):
        model.invoke("c")
    assert [m[-1].content for m in model.calls] == ["a", "b", "c"]
    assert ScriptedChatModel().invoke("hello").content == "(echo) hello"
    assert ScriptedChatModel().label == "scripted model (no LLM)"


async def test_bind_tools_and_async() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    seen: list[list[dict[str, Any]]] = []

    def responder(messages: list[Any], tools: list[dict[str, Any]]) -> Any:
        seen.append(tools)
        return {"content": "", "tool_calls": [{"name": "add", "args": {"a": 1, "b": 2}}]}

    model = FakeToolCallingChatModel(responder=responder)
    reply = await model.bind_tools([add]).ainvoke("1+2?")
    assert reply.tool_calls[0]["name"] == "add" and reply.tool_calls[0]["id"]
    assert seen[0][0]["function"]["name"] == "add"
    with pytest.raises(AssertionError, match="unbound tool"):
        model.invoke("no tools bound")


def test_with_structured_output() -> None:
    model = ScriptedChatModel(responses=[{"name": "Ann", "age": 7}, '{"name": "Bo", "age": 3}'])
    structured = model.with_structured_output(Person)
    assert structured.invoke("who?") == Person(name="Ann", age=7)
    raw = model.with_structured_output(Person, include_raw=True).invoke("who else?")
    assert raw["parsed"] == Person(name="Bo", age=3)


def test_rule_following_model_reads_its_system_prompt() -> None:
    model = RuleFollowingChatModel(
        [("language", lambda system, q: "中文" if "Chinese" in system else "English")]
    )
    assert (
        model.invoke([("system", "user prefers Chinese"), ("user", "language?")]).content == "中文"
    )
    assert model.invoke([("user", "language?")]).content == "English"
    assert model.invoke([("user", "other")]).content == "ok"


def test_structured_fake_drives_the_llm_extractor_in_save_memory(store: MemoryStore) -> None:
    text = "The office plant is called Fernando and needs water on Mondays"
    fact = {
        "facts": [
            {
                "subject": "user",
                "predicate": "plant_name",
                "object": "Fernando",
                "kind": "stable_fact",
                "quote": "The office plant is called Fernando",
                "confidence": 0.95,
            }
        ]
    }
    extractor = ScriptedChatModel(responder=lambda messages, tools: fact)
    node = SaveMemory(store=store, llm_extractor=extractor)
    out = node(fake_state(human(text, id="m-9")), fake_runtime("alice"))
    assert extractor.calls, "the LLM extractor was not consulted"
    stored = store.list(scope=Scope("alice"), filters={"predicate": "plant_name"})
    assert [r.object for r in stored] == ["Fernando"], out["memory_writes"]
