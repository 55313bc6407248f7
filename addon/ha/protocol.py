"""Home Assistant WebSocket protocol details that do not depend on a live connection.

Kept apart from :mod:`addon.ha.client` so the framing and back-off rules can be read (and
reasoned about) without the connection state machine around them. The message shapes follow
Home Assistant Core's ``websocket_api`` (``http.py``, ``auth.py``, ``commands.py``, 2025.4).
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any

_LOGGER = logging.getLogger(__name__)

# Large homes send multi-megabyte registries and snapshots in one message; aiohttp's 4 MiB
# default would drop the link exactly when the home is biggest.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# After auth Home Assistant may join several queued messages into one JSON array per frame.
SUPPORTED_FEATURES_MESSAGE: dict[str, Any] = {
    "type": "supported_features",
    "features": {"coalesce_messages": 1},
}
# How much of an odd frame goes into a log line: enough to recognise it, never a whole registry.
EXCERPT_CHARS = 200

AUTH_REQUIRED = "auth_required"
AUTH_OK = "auth_ok"
AUTH_INVALID = "auth_invalid"


def excerpt(text: str | bytes) -> str:
    """A short, single-line piece of ``text`` for a log line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    flat = text.replace("\n", " ")
    return flat if len(flat) <= EXCERPT_CHARS else flat[:EXCERPT_CHARS] + "…"


def decode_frame(data: str) -> list[dict[str, Any]]:
    """The messages in one text frame: one object, or an array of them when coalesced.

    A frame that is not JSON, or array items that are not objects, are logged and skipped:
    one bad message must not take the link down with it.
    """
    try:
        decoded = json.loads(data)
    except ValueError as err:
        _LOGGER.warning(
            "Ignoring a frame from Home Assistant that is not JSON (%s): %s", err, excerpt(data)
        )
        return []
    items = decoded if isinstance(decoded, list) else [decoded]
    messages: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, dict):
            messages.append(item)
        else:
            _LOGGER.warning(
                "Ignoring a message from Home Assistant that is not an object: %s",
                excerpt(json.dumps(item)),
            )
    return messages


def backoff_delay(attempt: int, initial: float, maximum: float, rng: random.Random) -> float:
    """Seconds to wait before reconnect ``attempt`` (0-based): capped exponential with jitter.

    The jitter (50-100 % of the step) keeps several add-ons, or several restarts, from
    reconnecting to a Home Assistant that just came back in lock-step.
    """
    step = min(maximum, initial * (2.0 ** min(attempt, 32)))
    return step * rng.uniform(0.5, 1.0)
