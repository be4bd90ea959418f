"""``stream_mode="messages"`` never delivers a token of a generation that then fails its output
check: the compiled prebuilt agent and ``create_agent`` + ``MemoryMiddleware``, sync and async,
with a fake model that really streams tokens (``GenericFakeChatModel``)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from langgraph_memory import MemoryContext, MemoryMiddleware, MemoryStore, create_memory_agent
from langgraph_memory.context import Constraint

ALICE = MemoryContext(user_id="alice")
LEAK = "The secret codename is ORCA ok"
SAFE = "I cannot share that"
NO_ORCA = Constraint(
    id="c-orca",
    text="Never mention the codename ORCA.",
    checker={"type": "forbidden_terms", "terms": ["ORCA"]},
)
INPUT: dict[str, Any] = {"messages": [("user", "what is the codename?")], "constraints": [NO_ORCA]}


def _model() -> GenericFakeChatModel:
    """Streams its first reply (the leak) word by word, then the compliant one."""
    return GenericFakeChatModel(messages=iter([AIMessage(content=LEAK), AIMessage(content=SAFE)]))


def _agent(kind: str, store: MemoryStore, **kw: Any) -> Any:
    if kind == "prebuilt":
        return create_memory_agent(_model(), store=store, **kw)
    return create_agent(
        _model(), [], middleware=[MemoryMiddleware(store, **kw)], context_schema=MemoryContext
    )


def _texts(chunks: list[tuple[BaseMessage, dict[str, Any]]]) -> list[str]:
    return [str(message.content) for message, _ in chunks]


PATHS = ["prebuilt", "middleware"]


@pytest.mark.parametrize("kind", PATHS)
def test_a_violating_draft_never_reaches_the_message_stream(kind: str, store: MemoryStore) -> None:
    agent = _agent(kind, store)
    chunks = list(agent.stream(INPUT, stream_mode="messages", context=ALICE))
    texts = _texts(chunks)
    assert not any("ORCA" in t for t in texts)  # not one token of the draft
    assert "".join(texts) == SAFE  # the checked answer does arrive, whole


@pytest.mark.parametrize("kind", PATHS)
async def test_a_violating_draft_never_reaches_the_async_message_stream(
    kind: str, store: MemoryStore
) -> None:
    agent = _agent(kind, store)
    chunks = [c async for c in agent.astream(INPUT, stream_mode="messages", context=ALICE)]
    texts = _texts(chunks)
    assert not any("ORCA" in t for t in texts) and "".join(texts) == SAFE


@pytest.mark.parametrize("kind", PATHS)
def test_tokens_stream_live_when_no_check_applies(kind: str, store: MemoryStore) -> None:
    """Holding is only for checked turns: without a checker the tokens stream as generated."""
    agent = _agent(kind, store)
    unchecked = {"messages": INPUT["messages"]}
    texts = _texts(list(agent.stream(unchecked, stream_mode="messages", context=ALICE)))
    assert len(texts) > 3 and "".join(texts).startswith(LEAK)


@pytest.mark.parametrize("kind", PATHS)
def test_hold_stream_off_streams_drafts_live(kind: str, store: MemoryStore) -> None:
    """The documented trade-off: ``hold_stream=False`` gives token streaming back, and with it
    a draft that fails its check reaches the client before the regeneration."""
    agent = _agent(kind, store, hold_stream=False)
    texts = _texts(list(agent.stream(INPUT, stream_mode="messages", context=ALICE)))
    assert any("ORCA" in t for t in texts) and "".join(texts).endswith(SAFE)


@pytest.mark.parametrize("kind", PATHS)
def test_held_stream_keeps_the_saved_state_and_report(kind: str, store: MemoryStore) -> None:
    agent = _agent(kind, store)
    final = None
    for mode, chunk in agent.stream(INPUT, stream_mode=["messages", "values"], context=ALICE):
        if mode == "values":
            final = chunk
    assert final is not None
    replies = [m.content for m in final["messages"] if isinstance(m, AIMessage)]
    assert replies == [SAFE] and final.get("violations", []) == []
