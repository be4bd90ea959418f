"""Section 5 of the peers benchmark: prompt tokens per turn of the memory agent against
full-history prompting on LoCoMo."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from tqdm import tqdm

from ...context.tokens import default_token_counter
from ...embeddings import Embedder
from ...graph.prebuilt import create_memory_agent
from ...graph.state import MemoryContext
from ...read.prompt import DEFAULT_SYSTEM_PROMPT
from ...store import MemoryStore
from ...testing import ScriptedChatModel
from ..common import percentile
from ..locomo import Turn
from ..node_timer import NodeTimer


def _exchanges(turns: Sequence[Turn]) -> list[tuple[str, str, str]]:
    """``(message id, human text, reply text)``: speaker A's consecutive turns become one human
    message, speaker B's following turns the scripted reply; a session's first message carries
    the session date, as in ``bench context``."""
    speaker_a = turns[0].speaker
    out: list[tuple[str, str, str]] = []
    human: list[str] = []
    reply: list[str] = []
    hid = ""
    last_session: int | None = None

    def line(t: Turn) -> str:
        nonlocal last_session
        text = f"{t.speaker}: {t.text}" + (f" [shares a photo: {t.caption}]" if t.caption else "")
        if t.session != last_session and t.date:
            text = f"[{t.date}] {text}"
        last_session = t.session
        return text

    for t in turns:
        if t.speaker == speaker_a:
            if reply:
                out.append((hid, "\n".join(human), "\n".join(reply)))
                human, reply = [], []
            if not human:
                hid = t.dia_id
            human.append(line(t))
        elif human:
            reply.append(line(t))
    if human:
        out.append((hid, "\n".join(human), "\n".join(reply)))
    return out


def run_tokens(
    turns: Sequence[Turn],
    conversations: int,
    max_exchanges: int | None,
    budget: int,
    embedder: Embedder,
    root: Path,
    progress: bool,
) -> dict[str, Any]:
    """Prompt tokens per turn: the memory agent vs full-history prompting."""
    counter = default_token_counter()
    by_conv: dict[str, list[Turn]] = defaultdict(list)
    for t in turns:
        by_conv[t.conversation].append(t)
    per_conv: list[dict[str, Any]] = []
    load_ms: list[float] = []
    save_ms: list[float] = []
    for conv in list(by_conv)[:conversations]:
        exchanges = _exchanges(by_conv[conv])[:max_exchanges]
        replies = iter([r for _, _, r in exchanges])
        model = ScriptedChatModel(responder=lambda m, t, it=replies: next(it, ""))
        store = MemoryStore(path=root / f"tokens-{conv}", embedder=embedder)
        timer = NodeTimer(["load_memory", "save_memory"])
        try:
            agent = create_memory_agent(
                model, store=store, checkpointer=InMemorySaver(), compaction_budget_tokens=budget
            )
            system = SystemMessage(DEFAULT_SYSTEM_PROMPT)
            base = counter.count_messages([system])
            full_total = base
            agent_tokens: list[int] = []
            full_tokens: list[int] = []
            for mid, text, reply in tqdm(exchanges, desc=f"tokens {conv}", disable=not progress):
                human = HumanMessage(content=text, id=mid)
                agent.invoke(
                    {"messages": [human]},
                    {"configurable": {"thread_id": conv}, "callbacks": [timer.handler]},
                    context=MemoryContext(user_id=conv, context_budget_tokens=budget),
                )
                prompt: list[BaseMessage] = model.last_prompt
                agent_tokens.append(counter.count_messages(prompt))
                full_total += counter.count_messages([system, human]) - base
                full_tokens.append(full_total)
                full_total += counter.count_messages([system, AIMessage(content=reply)]) - base
            model.calls.clear()
        finally:
            store.close()
        load_ms += timer.times.get("load_memory", [])
        save_ms += timer.times.get("save_memory", [])
        per_conv.append(
            {
                "conversation": conv,
                "turns": len(agent_tokens),
                "memory_agent_tokens": agent_tokens,
                "full_history_tokens": full_tokens,
                "mean_memory_agent": sum(agent_tokens) / max(1, len(agent_tokens)),
                "mean_full_history": sum(full_tokens) / max(1, len(full_tokens)),
                "max_memory_agent": max(agent_tokens, default=0),
                "final_full_history": full_tokens[-1] if full_tokens else 0,
            }
        )
    agent_all = [x for c in per_conv for x in c["memory_agent_tokens"]]
    full_all = [x for c in per_conv for x in c["full_history_tokens"]]
    mean_agent = sum(agent_all) / max(1, len(agent_all))
    mean_full = sum(full_all) / max(1, len(full_all))
    return {
        "budget_tokens": budget,
        "counter": "default_token_counter()",
        "agent": "create_memory_agent(ScriptedChatModel replying with the other speaker's real "
        "turns), InMemorySaver, compaction budget as above, recall k=5",
        "conversations": per_conv,
        "mean_memory_agent": mean_agent,
        "mean_full_history": mean_full,
        "full_over_agent": mean_full / mean_agent if mean_agent else float("nan"),
        "load_memory_p50_ms": percentile(load_ms, 50),
        "load_memory_p95_ms": percentile(load_ms, 95),
        "save_memory_p50_ms": percentile(save_ms, 50),
        "save_memory_p95_ms": percentile(save_ms, 95),
    }
