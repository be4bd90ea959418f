"""End-to-end LoCoMo benchmark through the agent: ``python -m langgraph_memory bench agent-locomo``.

Unlike ``bench locomo`` (which stores every turn directly), this replays LoCoMo through the
real graph, so what is measured is what the write path keeps and what reaches the prompt:

1. per conversation (``user_id`` = the conversation id, e.g. ``conv-26``), a
   :func:`~langgraph_memory.graph.prebuilt.create_memory_agent` over a fresh embedded store and a
   SQLite checkpointer, with a **fake chat model** (a scripted acknowledgement, no LLM);
2. every turn is sent in order as ``HumanMessage("<speaker>: <text>", id=<dia_id>,
   additional_kwargs={"timestamp": <session date, ISO-8601>})``, one thread per session;
3. every question (categories 1-4) is asked in a new thread of the same user with
   ``MemoryContext(save=False, recall_k=K)``.

Reported per question: ``evidence_in_prompt_any/all`` (the headline: an evidence turn is
backing a record whose ``[id]`` is in the system prompt the model received), ``recalled_any/all``
(the same from the record lists in the returned state: ``recalled``, ``episodes``, ...), and,
as a cross-check, ``evidence_text_in_prompt_any/all`` (the turn's own text is quoted in the
prompt). Also records written per 100 turns (current records, write-path ledger excluded),
memory tokens per prompt and whole-turn latency (``invoke`` wall time) of replay and question
turns.

The data set (CC BY-NC 4.0) is read from ``../shared/bench/locomo10.json`` or ``--data``; it is
never copied into the repository.

Modules (``bench agent-locomo`` is :func:`.cli.main`):

* :mod:`.selection` — which conversations, sessions and questions run; the dev split.
* :mod:`.dates` — pure: LoCoMo session dates to datetimes (the turns' timestamps).
* :mod:`.replay` — stateful: one conversation through the agent (fake model), then its
  questions; :func:`run_conversation`.
* :mod:`.evidence` — pure scoring of one question (:func:`score_question`), plus the plain
  search rank of its evidence (:func:`evidence_rank`, reads the store).
* :mod:`.summary` — pure: :func:`summarise` and the splits.
* :mod:`.runner` — :func:`run`; :mod:`.report` — the tables; :mod:`.cli` — :func:`main`.
"""

from __future__ import annotations

from .cli import main
from .dates import parse_session_datetime
from .evidence import (
    PROBE_DEPTH,
    STATE_RECALL_KEYS,
    EvidenceIndex,
    QuestionScore,
    evidence_rank,
    prompt_record_ids,
    question_detail,
    recalled_lists,
    score_question,
)
from .replay import (
    ACKNOWLEDGEMENT,
    FAKE_MODEL_LABEL,
    current_records,
    fake_chat_model,
    run_conversation,
)
from .runner import run
from .selection import select
from .summary import summarise

__all__ = [
    "ACKNOWLEDGEMENT",
    "FAKE_MODEL_LABEL",
    "PROBE_DEPTH",
    "STATE_RECALL_KEYS",
    "EvidenceIndex",
    "QuestionScore",
    "current_records",
    "evidence_rank",
    "fake_chat_model",
    "main",
    "parse_session_datetime",
    "prompt_record_ids",
    "question_detail",
    "recalled_lists",
    "run",
    "run_conversation",
    "score_question",
    "select",
    "summarise",
]
