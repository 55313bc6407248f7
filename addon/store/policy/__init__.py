"""The confirmation policy: its rows, the compiled policy, edits, deletes and their audit trail."""

from addon.store.policy.confirmation_policy import PolicyRecords

__all__ = [
    "PolicyRecords",
]
