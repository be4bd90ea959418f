"""The prebuilt memory agent with a tool, across two threads of one user.

Run: ``python examples/prebuilt_agent.py`` (offline: the model is a scripted stand-in that
calls the tool and then answers from the memory that reached its prompt).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from langchain_core.messages import ToolMessage

from langgraph_memory import MemoryStore
from langgraph_memory.graph.checkpoint import create_checkpointer
from langgraph_memory.graph.prebuilt import create_memory_agent
from langgraph_memory.graph.state import MemoryContext
from langgraph_memory.testing import ScriptedChatModel, last_human_text, system_text


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"18°C and cloudy in {city}"


def scripted(messages: list[Any], tools: list[dict[str, Any]]) -> Any:
    """Stand-in for an LLM: call the weather tool, then answer using remembered units."""
    if isinstance(messages[-1], ToolMessage):
        units = "Fahrenheit" if "fahrenheit" in system_text(messages).lower() else "Celsius"
        return f"{messages[-1].content} (you prefer {units})."
    if "weather" in last_human_text(messages).lower():
        return {"content": "", "tool_calls": [{"name": "get_weather", "args": {"city": "Oslo"}}]}
    return "Noted."


def main(workdir: str | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(workdir or tmp)
        with (
            MemoryStore(path=root / "memory") as store,
            create_checkpointer("sqlite", path=root / "checkpoints.sqlite") as checkpointer,
        ):
            agent = create_memory_agent(
                ScriptedChatModel(responder=scripted),
                [get_weather],
                store=store,
                checkpointer=checkpointer,
            )
            dave = MemoryContext(user_id="dave")
            agent.invoke(
                {"messages": [("user", "I prefer temperatures in Fahrenheit.")]},
                {"configurable": {"thread_id": "monday"}},
                context=dave,
            )
            out = agent.invoke(
                {"messages": [("user", "What's the weather in Oslo?")]},
                {"configurable": {"thread_id": "tuesday"}},
                context=dave,
            )
            answer = out["messages"][-1].content
            print("assistant:", answer)
            ok = "Fahrenheit" in answer
            print("ok" if ok else "FAILED")
            return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
