"""Replaying one LoCoMo conversation through the memory agent with a fake chat model, then asking
its questions: the running part of ``bench agent-locomo`` (stateful: a store per conversation)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from ..locomo import Question, Turn, turn_text
from .dates import parse_session_datetime
from .evidence import (
    EvidenceIndex,
    QuestionScore,
    evidence_rank,
    question_detail,
    recalled_lists,
    score_question,
)

if TYPE_CHECKING:
    from ...context.tokens import TokenCounter
    from ...core.records import MemoryRecord
    from ...embeddings import Embedder
    from ...store import MemoryStore
    from ...testing import ScriptedChatModel

FAKE_MODEL_LABEL = "fake chat model: scripted acknowledgement (no LLM)"


ACKNOWLEDGEMENT = "Thanks for sharing."


DEFAULT_K = 10


def fake_chat_model() -> ScriptedChatModel:
    """The fake chat model of the benchmark: the package's
    :class:`~langgraph_memory.testing.ScriptedChatModel`, always answering
    ``"Thanks for sharing."``; it records every prompt in ``model.calls``."""
    from ...testing import ScriptedChatModel

    return ScriptedChatModel(responder=lambda _m, _t: ACKNOWLEDGEMENT, label=FAKE_MODEL_LABEL)


def _prompt_system_text(calls: Sequence[Sequence[Any]]) -> str:
    """The system text of the last model call of a turn ('' when the model was not called)."""
    from ...testing import system_text

    return system_text(calls[-1]) if calls else ""


@dataclass
class ConversationResult:
    """Everything measured on one conversation."""

    conversation: str
    turns: int
    sessions: int
    records: int
    records_by_layer: dict[str, int]
    turns_without_timestamp: int
    replay_ms: list[float] = field(default_factory=list)
    question_ms: list[float] = field(default_factory=list)
    question_memory_tokens: list[int] = field(default_factory=list)
    replay_memory_tokens: list[int] = field(default_factory=list)
    scores: list[QuestionScore] = field(default_factory=list)
    state_keys: set[str] = field(default_factory=set)
    seconds: float = 0.0
    details: list[dict[str, Any]] = field(default_factory=list)
    """Per question (only with ``details=True``): question, evidence, scores and the memory
    part of the system prompt, for diffing two runs question by question."""


def current_records(store: MemoryStore, user_id: str) -> list[MemoryRecord]:
    """The user's current records, the write path's ledger excluded (as ``inspect`` shows)."""
    from ...lifecycle.admin_ops import user_records

    return [r for r in user_records(store, user_id, include_ledger=False) if r.is_current()]


def _memory_tokens(system_prompt: str, counter: TokenCounter) -> int:
    """Tokens the memory adds to the system prompt (everything beyond the base prompt)."""
    from ...read.prompt import DEFAULT_SYSTEM_PROMPT

    extra = system_prompt.replace(DEFAULT_SYSTEM_PROMPT, "", 1).strip()
    return int(counter.count_text(extra)) if extra else 0


def run_conversation(
    conv_id: str,
    turns: Sequence[Turn],
    questions: Sequence[Question],
    root: Path,
    *,
    k: int = DEFAULT_K,
    embedder: str | Embedder | None = None,
    progress: bool = False,
    details: bool = False,
) -> ConversationResult:
    """Replay one conversation through a fresh agent, then ask its questions (module doc);
    with ``details`` also keep :attr:`ConversationResult.details`."""
    from langchain_core.messages import HumanMessage

    from ...context.tokens import default_token_counter
    from ...graph.checkpoint import create_checkpointer
    from ...graph.prebuilt import create_memory_agent
    from ...graph.state import MemoryContext
    from ...store import MemoryStore

    started = time.perf_counter()
    counter = default_token_counter()
    root.mkdir(parents=True, exist_ok=True)
    store = MemoryStore(path=root / "store", embedder=embedder)
    checkpointer = create_checkpointer("sqlite", path=root / "cp.sqlite")
    model = fake_chat_model()
    agent = create_memory_agent(model, store=store, checkpointer=checkpointer)
    replay_ctx = MemoryContext(user_id=conv_id)
    ask_ctx = MemoryContext(user_id=conv_id, save=False, recall_k=k)
    result = ConversationResult(conv_id, len(turns), 0, 0, {}, 0)
    try:
        sessions: set[int] = set()
        bar = tqdm(total=len(turns), desc=f"{conv_id} replay", disable=not progress, unit="turn")
        for turn in turns:
            sessions.add(turn.session)
            when = parse_session_datetime(turn.date)
            kwargs: dict[str, Any] = {}
            if when is not None:
                kwargs["timestamp"] = when.isoformat()
            else:
                result.turns_without_timestamp += 1
            message = HumanMessage(
                content=turn_text(turn), id=turn.dia_id, additional_kwargs=kwargs
            )
            model.calls.clear()
            t0 = time.perf_counter()
            agent.invoke(
                {"messages": [message]},
                {"configurable": {"thread_id": f"{conv_id}-s{turn.session}"}},
                context=replay_ctx,
            )
            result.replay_ms.append((time.perf_counter() - t0) * 1e3)
            result.replay_memory_tokens.append(
                _memory_tokens(_prompt_system_text(model.calls), counter)
            )
            bar.update(1)
        bar.close()
        result.sessions = len(sessions)
        records = current_records(store, conv_id)
        result.records = len(records)
        by_layer: dict[str, int] = defaultdict(int)
        for r in records:
            by_layer[r.layer.value] += 1
        result.records_by_layer = dict(by_layer)
        index = EvidenceIndex(store, conv_id)
        from ...lifecycle.admin_ops import user_records

        index.prime(user_records(store, conv_id, include_ledger=True))
        texts = {t.dia_id: turn_text(t) for t in turns}
        for i, q in enumerate(
            tqdm(questions, desc=f"{conv_id} questions", disable=not progress, unit="q")
        ):
            model.calls.clear()
            t0 = time.perf_counter()
            state = agent.invoke(
                {"messages": [HumanMessage(content=q.question, id=f"q{i}")]},
                {"configurable": {"thread_id": f"{conv_id}-q{i}"}},
                context=ask_ctx,
            )
            result.question_ms.append((time.perf_counter() - t0) * 1e3)
            system = _prompt_system_text(model.calls)
            result.question_memory_tokens.append(_memory_tokens(system, counter))
            result.state_keys |= set(recalled_lists(state))
            score = score_question(
                q, system_prompt=system, state=state, index=index, turn_texts=texts
            )
            result.scores.append(score)
            if details:
                line = question_detail(conv_id, i, q, score, system)
                line["evidence_rank"] = evidence_rank(store, conv_id, q, index)
                result.details.append(line)
    finally:
        checkpointer.close()
        store.close()
    result.seconds = time.perf_counter() - started
    return result
