"""What happens to memory over time: lifecycle transitions, TTL and capacity sweeps, the audit
log, forgetting a user everywhere, and the admin CLI.
"""

from .._moved import moved_module

# ``langgraph_memory.lifecycle`` was one module in 0.1; its names are read from ``ops`` now.
__getattr__, __dir__ = moved_module(__name__, "langgraph_memory.lifecycle.ops")
