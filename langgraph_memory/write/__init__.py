"""Write path: what a turn adds to long-term memory (redact → extract → gate → resolve).

::

    from langgraph_memory import MemoryStore, Scope
    from langgraph_memory.write import WritePipeline, BackgroundWriter

    pipeline = WritePipeline(store)                     # WriteConfig() defaults
    report = pipeline.process_turn("以后都用中文回答", scope=Scope(user_id="alice"),
                                   turn_id="t1", thread_id="th1")
    for d in report.decisions:          # one per candidate, with its reason
        print(d.action, d.candidate.key())  # inserted ('user', 'answer_language', 'Chinese')

    writer = BackgroundWriter(pipeline, journal_path="memory.journal")   # non-blocking
    writer.enqueue("I prefer tea", scope="alice", turn_id="t2", thread_id="th1")
    writer.flush(); writer.close()

Pure transformations (text and candidates in, candidates and verdicts out; no store):

* :mod:`.redact` / :mod:`.pii_detect` — PII first (phone, e-mail, national IDs, bank cards,
  passwords, API keys — by checksum, shape or a context word; policy per type
  ``redact | hash | refuse``), so no detected PII reaches a candidate, a record, a log line,
  the journal or the LLM extractor. :mod:`.message_redaction` applies it to messages.
* :mod:`.extract` (:class:`RuleExtractor` zh + en, :class:`LLMExtractor` via
  ``with_structured_output``), :mod:`.slots` (generic ``(subject, predicate, object)`` of a
  clause), :mod:`.segment`, :mod:`.lexicon`, :mod:`.extract.one_off` (instructions bound to
  the task: about the artifact in front of the user, or the conditions of a request said
  with no word that makes them last) — structured :class:`Candidate` s, never summaries.
* :mod:`.classify` (a learned clause model, weights shipped) and :mod:`.decide` (vetoes
  chit-chat/event/question/one-off candidates, retypes prohibitions as constraints, extracts
  what no rule understood); :mod:`.premises` (the durable part of a long sentence: a premise
  inside a question or a task, never a whole long sentence as a note); :mod:`.guide_kinds`
  (kinds the words fix: health limits are constraints, a rule said as a note is a rule,
  someone else's rule in a story is none); :mod:`.past_state` (a value said of a state that
  has ended: "I used to live in Rome", "我以前在北京住过");
  :mod:`.script` (traditional Chinese and colloquial 俺/咱/搁 read as simplified standard
  words, stored as said).
* :mod:`.candidates` — one turn's candidates: rules, LLM (``WriteConfig.llm_mode``), classifier,
  flagged and capped. :mod:`.remember` — the agent's explicit write as a candidate.
* :mod:`.gate` — :class:`WriteGate`: ``write | pending | working | rejected`` with a reason.
* :mod:`.matching` (which stored record a value or correction names), :mod:`.fact_record`
  (a candidate as a semantic record), :mod:`.conversation` (episode records, noise),
  :mod:`.types` (:class:`Candidate`, :class:`WriteDecision`, :class:`WriteReport`,
  :class:`WriteConfig`).

Stateful operations (read and write the store):

* :mod:`.pipeline` — :class:`WritePipeline`: orchestrates one turn; idempotent per
  ``(thread_id, turn_id)``, also across pipeline instances and restarts.
* :mod:`.apply` — one candidate through the gate into :mod:`.resolve` (:class:`Resolver`:
  insert, supersede with history, reinforce, restore, merge concurrent writes through
  ``expected_version``) or :mod:`.corrections` (invalidate + source turn, "scratch that").
* :mod:`.ledger` — the write ledger (processed turns, deferred LLM passes, pending items),
  kept in the store. :mod:`.locks` — the per-user write lock.
* :mod:`.turn_episode` / :mod:`.importer` — turns kept as conversation episodes; importing
  past conversations. :mod:`.episodic` — :func:`record_episode` / :class:`EpisodeRecorder`,
  one structured record per ``task_id``.
* :mod:`.background` — :class:`BackgroundWriter`: a durable journal (:mod:`.journal`,
  POSIX file lock) in front of the pipeline; ``defer_llm=True`` runs the LLM extractor once
  per quiet thread (:mod:`.reflection` schedules, :mod:`.deferred` runs
  :func:`run_llm_pass`).

Names below are imported on first use, so ``import langgraph_memory.write`` loads no
extractor, model or POSIX-only module. README "Write path" has the picture.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.redact import RedactionResult, Redactor, cn_id_checksum_ok, luhn_ok
    from .background import BackgroundWriter as BackgroundWriter
    from .background_llm import LLMPassReport
    from .deferred.batch import DeferredTurn, LLMBatch
    from .deferred.run import arun_llm_pass, run_llm_pass
    from .episodic import EpisodeRecorder, arecord_episode, episode_subject, record_episode
    from .extract.injection import detect_injection
    from .extract.llm import LLMExtractor
    from .extract.llm_schema import ExtractionResult, StructuredChatModel
    from .extract.markers import is_hedged
    from .extract.rule_extractor import RuleExtractor
    from .gate import GateResult, WriteGate
    from .ledger import turn_key_of
    from .pipeline import WritePipeline as WritePipeline
    from .resolve import Resolver
    from .types import Candidate, WriteConfig, WriteDecision, WriteReport

_HOME = {
    "BackgroundWriter": "background",
    "LLMPassReport": "background_llm",
    "DeferredTurn": "deferred.batch",
    "LLMBatch": "deferred.batch",
    "arun_llm_pass": "deferred.run",
    "run_llm_pass": "deferred.run",
    "EpisodeRecorder": "episodic",
    "arecord_episode": "episodic",
    "episode_subject": "episodic",
    "record_episode": "episodic",
    "ExtractionResult": "extract.llm_schema",
    "LLMExtractor": "extract.llm",
    "RuleExtractor": "extract.rule_extractor",
    "StructuredChatModel": "extract.llm_schema",
    "detect_injection": "extract.injection",
    "is_hedged": "extract.markers",
    "GateResult": "gate",
    "WriteGate": "gate",
    "turn_key_of": "ledger",
    "WritePipeline": "pipeline",
    "RedactionResult": "langgraph_memory.core.redact",
    "Redactor": "langgraph_memory.core.redact",
    "cn_id_checksum_ok": "langgraph_memory.core.redact",
    "luhn_ok": "langgraph_memory.core.redact",
    "Resolver": "resolve",
    "Candidate": "types",
    "WriteConfig": "types",
    "WriteDecision": "types",
    "WriteReport": "types",
}
"""The module of each name this package exports."""


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = home if home.startswith("langgraph_memory.") else f"{__name__}.{home}"
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


__all__ = [  # BackgroundWriter and WritePipeline are exported from the package root
    "Candidate",
    "DeferredTurn",
    "EpisodeRecorder",
    "ExtractionResult",
    "GateResult",
    "LLMBatch",
    "LLMExtractor",
    "LLMPassReport",
    "RedactionResult",
    "Redactor",
    "Resolver",
    "RuleExtractor",
    "StructuredChatModel",
    "WriteConfig",
    "WriteDecision",
    "WriteGate",
    "WriteReport",
    "arecord_episode",
    "arun_llm_pass",
    "cn_id_checksum_ok",
    "detect_injection",
    "episode_subject",
    "is_hedged",
    "luhn_ok",
    "record_episode",
    "run_llm_pass",
    "turn_key_of",
]
