"""Side-by-side benchmark against peer memory systems: ``python -m langgraph_memory bench peers``.

The same data and the same embedding model for every system (this package, LangGraph
``InMemoryStore`` and ``SqliteStore``, mem0 OSS); the full description of the sections is the
command's ``--help`` (:data:`.cli.DESCRIPTION`). Module map:

Systems (stateful: each opens a store of its own):

* :mod:`.systems` — one module per system behind :class:`~.systems.base.System`, and
  :func:`~.systems.registry.open_peer` / :func:`~.systems.registry.peer_info`.
* :mod:`.embedding` — :class:`CachedEmbedder` (bit-identical vectors for every system) and
  :func:`langchain_embeddings` (the ``Embeddings`` the peers take).

Measurements (one section of the result document each):

* :mod:`.locomo_recall` — ``locomo``: LoCoMo evidence recall per system and category.
* :mod:`.search_latency` — ``latency``: search p50/p95 per size and fill rate; ours also
  after ``optimize()``; with :mod:`.footprint` — first (cold) query, RSS per record.
* :mod:`.writes` — ``writes``: single and batch write throughput with real embedding.
* :mod:`.overhead` — ``graph_overhead``: our nodes' per-turn cost in a compiled graph.
* :mod:`.tokens` — ``tokens``: prompt tokens per turn, memory agent vs full history.

Putting it together (pure functions of a result document, except the runner):

* :mod:`.runner` — :func:`run`: data selection, every section, ``peers.json``.
* :mod:`.report` — :func:`report`: the tables; :mod:`.plots` — the PNG plots.
* :mod:`.cli` — :func:`main`, the command line; :mod:`._common` — the systems' display names,
  the machine note, the logger.
"""

from __future__ import annotations

from ._common import IMS, MEM0, OURS, OURS_DENSE, OURS_NEIGHBOR, OURS_NONE, OURS_OPT, SQLS
from .cli import main
from .embedding import CachedEmbedder, langchain_embeddings
from .report import report
from .runner import run
from .systems.inmemory import InMemoryStoreSystem
from .systems.mem0 import Mem0System
from .systems.ours import OursSystem
from .systems.registry import open_peer

__all__ = [
    "IMS",
    "MEM0",
    "OURS",
    "OURS_DENSE",
    "OURS_NEIGHBOR",
    "OURS_NONE",
    "OURS_OPT",
    "SQLS",
    "CachedEmbedder",
    "InMemoryStoreSystem",
    "Mem0System",
    "OursSystem",
    "langchain_embeddings",
    "main",
    "open_peer",
    "report",
    "run",
]
