"""What happens to memory over time: lifecycle transitions, TTL and capacity sweeps, the audit
log, forgetting a user everywhere, and the admin CLI.
"""

from .ops import AuditLog, enforce_capacity, sweep, touch, transition

__all__ = ["AuditLog", "enforce_capacity", "sweep", "touch", "transition"]
