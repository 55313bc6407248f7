"""Automations the agent drafted: each draft, its approval and what became of it."""

from addon.store.automations.automation_drafts import DraftRecords, StoredDraft

__all__ = [
    "DraftRecords",
    "StoredDraft",
]
