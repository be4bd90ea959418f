"""Moved to :mod:`langgraph_memory.graph.checkpoint`; this path warns and goes in 0.3."""

from ._moved import moved_module

__getattr__, __dir__ = moved_module(__name__, "langgraph_memory.graph.checkpoint")
