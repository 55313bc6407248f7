"""Read-side queries for the web UI: lists, details and aggregates, never writes."""

from addon.store.queries.conversations import (
    HANDLED_BY,
    ConversationFilters,
    Cursor,
    known_devices,
    list_conversations,
)
from addon.store.queries.dashboard import (
    Bucket,
    HandledShare,
    Resolution,
    TurnSummary,
    confirmations_since,
    conversations_since,
    handled_share,
    latency_buckets,
    recent_failures,
    recent_flags,
)
from addon.store.queries.detail import conversation_detail, conversation_turns
from addon.store.queries.turn_links import turn_summaries

__all__ = [
    "HANDLED_BY",
    "Bucket",
    "ConversationFilters",
    "Cursor",
    "HandledShare",
    "Resolution",
    "TurnSummary",
    "confirmations_since",
    "conversation_detail",
    "conversation_turns",
    "conversations_since",
    "handled_share",
    "known_devices",
    "latency_buckets",
    "list_conversations",
    "recent_failures",
    "recent_flags",
    "turn_summaries",
]
