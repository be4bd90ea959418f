"""Plug a real chat model in with ``init_chat_model``.

Run: ``LGM_CHAT_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=... python examples/real_chat_model.py``
(needs the provider package, e.g. ``pip install langchain-openai``). Without an API key for
the chosen provider it says so and uses the scripted stand-in instead, so it also runs
offline; everything after choosing the model is the same code either way.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from langgraph_memory import MemoryStore
from langgraph_memory.graph.checkpoint import create_checkpointer
from langgraph_memory.graph.prebuilt import create_memory_agent
from langgraph_memory.graph.state import MemoryContext
from langgraph_memory.testing import SCRIPTED_LABEL, ScriptedChatModel

API_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google_genai": "GOOGLE_API_KEY",
    "mistralai": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
}


def choose_model(spec: str | None = None) -> tuple[Any, str]:
    """``init_chat_model(spec)`` when the provider's API key is set, else the scripted model."""
    spec = spec or os.environ.get("LGM_CHAT_MODEL", "openai:gpt-4o-mini")
    provider = spec.split(":", 1)[0]
    key = API_KEYS.get(provider)
    if key is None or os.environ.get(key):
        from langchain.chat_models import init_chat_model

        return init_chat_model(spec, temperature=0), spec
    print(f"{key} is not set: using the {SCRIPTED_LABEL} instead of {spec}")
    return ScriptedChatModel(
        responder=lambda m, t: "Noted — answering in short sentences."
    ), SCRIPTED_LABEL


def main(workdir: str | None = None, spec: str | None = None) -> int:
    model, label = choose_model(spec)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(workdir or tmp)
        with (
            MemoryStore(path=root / "memory") as store,
            create_checkpointer("sqlite", path=root / "checkpoints.sqlite") as checkpointer,
        ):
            agent = create_memory_agent(
                model,
                store=store,
                checkpointer=checkpointer,
                # a real model also extracts what the write rules miss (llm_mode="fallback")
                llm_extractor=None if label == SCRIPTED_LABEL else model,
            )
            ctx = MemoryContext(user_id="erin")
            agent.invoke(
                {"messages": [("user", "I prefer short answers.")]},
                {"configurable": {"thread_id": "one"}},
                context=ctx,
            )
            out = agent.invoke(
                {"messages": [("user", "How should you answer me?")]},
                {"configurable": {"thread_id": "two"}},
                context=ctx,
            )
            print(f"[{label}]", out["messages"][-1].content)
            ok = any("short answers" in r["text"] for r in out["recalled"])
            print("ok" if ok else "FAILED")
            return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
