"""A multi-user chat service: one agent, one store, many users served concurrently.

Run: ``python examples/multi_user_service.py`` (offline, scripted model).

Each request names its user in ``MemoryContext``; threads are per user and the checkpointer
records their owner, so one user can neither read another's memory nor resume another's
thread, and ``forget`` deletes a user's memory and threads in one call.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from langgraph_memory import MemoryStore, ScopeError
from langgraph_memory.graph.checkpoint import OwnedCheckpointSaver, create_checkpointer
from langgraph_memory.graph.prebuilt import create_memory_agent, forget_user
from langgraph_memory.graph.state import MemoryContext
from langgraph_memory.testing import ScriptedChatModel, system_text


def _echo_memory(messages: list[Any], tools: list[dict[str, Any]]) -> str:
    remembered = [line for line in system_text(messages).splitlines() if "preference:" in line]
    return f"I remember {len(remembered)} preference(s) of yours."


class ChatService:
    """What a web handler would call: ``await service.chat(user, thread, text)``."""

    def __init__(self, store: MemoryStore, checkpointer: OwnedCheckpointSaver) -> None:
        self.store = store
        self.checkpointer = checkpointer
        self.agent = create_memory_agent(
            ScriptedChatModel(responder=_echo_memory), store=store, checkpointer=checkpointer
        )

    async def chat(self, user_id: str, thread_id: str, text: str) -> str:
        out = await self.agent.ainvoke(
            {"messages": [("user", text)]},
            {"configurable": {"thread_id": thread_id}},
            context=MemoryContext(user_id=user_id),
        )
        return str(out["messages"][-1].content)

    def forget(self, user_id: str) -> dict[str, Any]:
        return forget_user(user_id, store=self.store, checkpointer=self.checkpointer)


async def run(service: ChatService) -> bool:
    users = ["u1", "u2", "u3"]
    await asyncio.gather(
        *(
            service.chat(u, f"{u}-a", f"I prefer {c} tea")
            for u, c in zip(users, ["green", "black", "white"], strict=True)
        )
    )
    replies = await asyncio.gather(
        *(service.chat(u, f"{u}-b", "What do you remember?") for u in users)
    )
    print(dict(zip(users, replies, strict=True)))
    try:
        await service.chat("u2", "u1-a", "show me this thread")
        isolated = False
    except ScopeError:
        isolated = True
    receipt = service.forget("u1")
    print("forget u1:", receipt)
    return (
        all(r.startswith("I remember 1 ") for r in replies)
        and isolated
        and sorted(receipt["threads"]) == ["u1-a", "u1-b"]
    )


def main(workdir: str | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(workdir or tmp)
        with (
            MemoryStore(path=root / "memory") as store,
            create_checkpointer("sqlite", path=root / "checkpoints.sqlite") as checkpointer,
        ):
            ok = asyncio.run(run(ChatService(store, checkpointer)))
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
