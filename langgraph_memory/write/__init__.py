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

* Redaction runs first (phone, e-mail, national IDs, bank cards, passwords, API keys — by
  checksum, shape or a context word, see :mod:`.pii_detect`; policy per type
  ``redact | hash | refuse``), so no detected PII reaches a candidate, a record, a log line, the
  journal or the LLM extractor.
* :class:`RuleExtractor` (zh + en) and the optional :class:`LLMExtractor`
  (``with_structured_output``) produce structured :class:`Candidate` s, never summaries. The
  LLM runs in the turn (``WriteConfig.llm_mode``) or, behind
  ``BackgroundWriter(..., defer_llm=True)``, once per quiet thread over its recent turns
  (:mod:`~langgraph_memory.write.deferred`, :func:`run_llm_pass`).
* The clause classifier decides, the rules extract: ``classify`` (pure: a learned model over
  the clause embedding, weights shipped, ``ClauseClassifier.predict``), ``decide`` (pure:
  ``apply_classifier`` vetoes chit-chat/event/question/one-off candidates, retypes
  prohibitions as constraints, extracts what no rule understood) and ``slots`` (pure: generic
  ``(subject, predicate, object)`` of a clause).
* :class:`WriteGate` decides ``write | pending | working | rejected`` with a reason; every
  decision is logged on ``langgraph_memory.write`` and returned in :class:`WriteReport`.
* :class:`Resolver` inserts, supersedes (history kept), reinforces duplicates, applies
  corrections (invalidate + source turn), restores re-asserted values, and merges concurrent
  writes through ``expected_version``.
* :func:`record_episode` / :class:`EpisodeRecorder` store a structured episodic record per
  ``task_id`` (at task end or every N steps).
* Idempotent per ``(thread_id, turn_id)``, also across pipeline instances and restarts.

README "Write path" has the picture.
"""

from .background import BackgroundWriter as BackgroundWriter  # exported from the root
from .background import LLMPassReport
from .deferred import DeferredTurn, LLMBatch, arun_llm_pass, run_llm_pass
from .episodic import EpisodeRecorder, arecord_episode, episode_subject, record_episode
from .extract.injection import detect_injection
from .extract.llm import LLMExtractor
from .extract.llm_schema import ExtractionResult, StructuredChatModel
from .extract.markers import is_hedged
from .extract.rule_extractor import RuleExtractor
from .gate import GateResult, WriteGate
from .pipeline import WritePipeline as WritePipeline  # exported from the root
from .pipeline import turn_key_of
from .redact import RedactionResult, Redactor, cn_id_checksum_ok, luhn_ok
from .resolve import Resolver
from .types import Candidate, WriteConfig, WriteDecision, WriteReport

__all__ = [
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
