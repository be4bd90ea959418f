"""The read path after retrieval: turning ranked hits into what the model sees (conversation
excerpts, the memory block's budget).
"""
