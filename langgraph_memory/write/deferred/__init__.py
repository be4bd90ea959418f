"""The deferred LLM pass: one model call over recent turns of a thread, after the rules.

The rules and the clause classifier decide a turn at once; a chat model is slower and costs
money, so :class:`~langgraph_memory.write.BackgroundWriter` (``defer_llm=True``) runs it later,
once a thread has gone quiet, over the burst of turns it has not read yet (like LangMem's
``ReflectionExecutor``). The pass is also usable on its own::

    from langgraph_memory.write import DeferredTurn, WritePipeline, run_llm_pass

    pipeline = WritePipeline(store, llm_extractor=chat_model)
    turns = [DeferredTurn(text, scope=alice, turn_id=f"t{i}", thread_id="th")
             for i, text in enumerate(["I use vim, not emacs.", "Our team deploys on Fridays."])]
    for report in run_llm_pass(pipeline, turns):        # one model call for both turns
        print(report.turn_key, [(d.action, d.reason) for d in report.decisions])

Guarantees:

* The model sees only redacted text (every turn is redacted again here; redaction is
  idempotent), and never a turn that is small talk, tries to instruct the assistant, or holds a
  secret whose PII policy is ``refuse``.
* Every fact then passes the gates of a live turn: the PII and injection flags are recomputed
  from the user's words, a quote found in no single turn (or a fact the model marks inferred)
  is ``source=model`` and rejected, the clause classifier reviews it (veto, hedge, retype),
  kind, confidence and evidence are checked, project facts wait for confirmation and implicit
  preferences for repetition.
* A fact the model read in an earlier turn never replaces a value that a later turn set: it is
  ``skipped`` with the reason (the rules of the later turn ran first).
* Facts the rules already decided for that turn are not decided twice.
* Idempotent per turn: a ledger entry (``llm:<turn>``) records that the pass ran and what it
  decided; running it again answers ``duplicate_turn``. Records carry the write keys
  ``<turn>#llm<n>``, so a replay after a crash reinforces nothing twice.
* A model failure changes nothing stored: :func:`run_llm_pass` returns reports with
  ``llm_pass="failed"`` and the reason; the rules' results stand.

Modules: :mod:`.batch` (what the model sees: :class:`DeferredTurn`, :class:`LLMBatch`,
:func:`skip_reason`, :func:`wants_llm`, :func:`extract_batch`), :mod:`.apply` (gates and
persist: :func:`apply_batch`), :mod:`.run` (both: :func:`run_llm_pass`). When a thread is
quiet enough to run the pass is :mod:`~langgraph_memory.write.reflection`'s job.
"""

from .apply import aapply_batch, apply_batch
from .batch import DeferredTurn, LLMBatch, aextract_batch, extract_batch, skip_reason, wants_llm
from .run import arun_llm_pass, run_llm_pass

__all__ = [
    "DeferredTurn",
    "LLMBatch",
    "aapply_batch",
    "aextract_batch",
    "apply_batch",
    "arun_llm_pass",
    "extract_batch",
    "run_llm_pass",
    "skip_reason",
    "wants_llm",
]
