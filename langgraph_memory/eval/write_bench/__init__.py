"""Write-path benchmark: should-be-written precision/recall, extracted (s, p, o)
precision/recall, and PII leaks.

Runs every utterance of a labelled JSONL set (default ``tests/data/write/dev/rules_dev.jsonl``)
through :class:`~langgraph_memory.write.WritePipeline` on a fresh in-memory store, one user per
utterance (``setup`` turns, when given, are processed first in the same thread). Each line::

    {"id": "w001", "text": "...", "lang": "zh", "category": "preference",
     "should_write": true, "expected": [["user", "drink", "coffee"]],
     "pii": ["email"], "pii_values": ["jane@example.com"],
     "setup": ["..."], "project_id": "p", "confirmed": false, "source": "user"}

* ``should_write``: the final turn changes semantic memory (insert, supersede, reinforce,
  restore or invalidate).
* ``(s, p, o)``: triples of the decisions that stored a value, compared case-insensitively.
* PII leaks: occurrences of any raw ``pii_values`` string (also digits-only) in any stored
  record (current or not, ledger included), in captured log output (messages and structured
  ``extra``) or in the reports returned to the caller. The target is 0.

Metrics for the sets written with the labelling guide (``tests/data/write/README.md``):

* ``kind acc`` — for each expected record of a turn that wrote something, the kind of the
  written record that matches it (else the nearest written one) equals the label; a
  correction counts when the written record is flagged ``correction``.
* ``constraint typed`` — the same, over expected constraints only.
* ``slot EM`` — expected records with a *typed* predicate of the guide (answer_language,
  location, employer…): a written record has that predicate and one of the accepted values
  — as said, or, for the predicates whose value the guide fixes as a canonical word
  (:data:`GUIDE_CANONICAL`), the record's canonical form. ``--by-predicate`` prints it per
  predicate for the dev group, with what failed (no record, wrong predicate, value too long
  or too short, other value, missing).
* ``open value EM`` — expected records with a free attribute (``daughter_birthday``…): a
  written record holds exactly the value (any predicate name).
* ``free-text match`` — must / must_not / likes / dislikes / note: one value contains the
  other.
* ``retracted`` — turns with ``retracts``: the old value is no longer current afterwards.

Without ``--data`` every dev set and every held-out set runs and both groups are also
pooled; held-out sets (``tests/data/write/heldout/``) are measured, never tuned on.

``python -m langgraph_memory bench write [--data PATH ...] [--rules-only] [--by-predicate]
[--out results.json]``

``--extractor llm`` runs every set twice, rules alone and rules + the LLM extractor (per
``--llm-mode``), and prints both side by side. ``--model local`` (default) is the small
local model of :mod:`langgraph_memory.eval.local_llm` (``local:qwen2.5-coder-1.5b`` for the
larger one); any ``provider:model`` string goes to ``init_chat_model``. ``--limit N`` runs at
most N items per group (dev, heldout), spread over the group's sets in file order (a slow
model on a small sample). Measuring on the held-out sets is allowed; tuning on them is not.

Modules (``bench write`` is :func:`.cli.main`):

* :mod:`.data` — the labelled sets: paths, :func:`load_set`, dev / held-out lists, sampling.
* :mod:`.drivers` — how a turn reaches the write path (``--via``), the LLM extractor's model,
  the log capture of the PII check (stateful: builds writers and agents).
* :mod:`.runner` — :func:`run`: one set through the write path, raw rows out.
* :mod:`.scoring` — pure: slot matching, kind metrics, :func:`summarize`, :func:`slot_breakdown`.
* :mod:`.report` — the printed tables; :mod:`.cli` — :func:`main`.
"""

from __future__ import annotations

from .cli import main
from .data import DEFAULT_DATA, DEFAULT_SETS, dev_sets, heldout_sets, load_set
from .runner import run
from .scoring import slot_breakdown, summarize

__all__ = [
    "DEFAULT_DATA",
    "DEFAULT_SETS",
    "dev_sets",
    "heldout_sets",
    "load_set",
    "main",
    "run",
    "slot_breakdown",
    "summarize",
]
