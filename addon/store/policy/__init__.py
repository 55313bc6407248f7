"""The confirmation policy and the rules per person and per satellite: their rows and edits."""

from addon.store.policy.actor_rules import RuleRecords
from addon.store.policy.confirmation_policy import PolicyRecords

__all__ = [
    "PolicyRecords",
    "RuleRecords",
]
