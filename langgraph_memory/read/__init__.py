"""The read path after retrieval: turning ranked hits into what the model sees (conversation
excerpts, the memory block's budget).
"""

from .conversation import memory_parts

__all__ = ["memory_parts"]
