"""Home Assistant WebSocket protocol details: framing, the auth handshake, back-off.

Kept apart from :mod:`addon.ha.client` so these rules can be read (and reasoned about) without
the connection state machine around them. The message shapes follow
Home Assistant Core's ``websocket_api`` (``http.py``, ``auth.py``, ``commands.py``, 2025.4).
"""

from __future__ import annotations

import json
import logging
import random

import aiohttp

from addon.errors import HomeAssistantAuthError, HomeAssistantUnavailableError
from addon.text import JsonObject

_LOGGER = logging.getLogger(__name__)

# Large homes send multi-megabyte registries and snapshots in one message; aiohttp's 4 MiB
# default would drop the link exactly when the home is biggest.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# After auth Home Assistant may join several queued messages into one JSON array per frame.
SUPPORTED_FEATURES_MESSAGE: JsonObject = {
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


def decode_frame(data: str) -> list[JsonObject]:
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
    messages: list[JsonObject] = []
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


async def authenticate(ws: aiohttp.ClientWebSocketResponse, token: str) -> str | None:
    """Run ``auth_required``, ``auth``, ``auth_ok``; returns Home Assistant's version.

    Raises HomeAssistantAuthError on ``auth_invalid``. The token goes on the wire only, never
    into a message or log line.
    """
    first = await _receive_auth_message(ws)
    if first.get("type") != AUTH_REQUIRED:
        raise HomeAssistantUnavailableError(f"expected auth_required, got {first.get('type')!r}")
    await ws.send_str(json.dumps({"type": "auth", "access_token": token}))
    reply = await _receive_auth_message(ws)
    if reply.get("type") == AUTH_INVALID:
        raise HomeAssistantAuthError(str(reply.get("message") or "invalid access token"))
    if reply.get("type") != AUTH_OK:
        raise HomeAssistantUnavailableError(f"expected auth_ok, got {reply.get('type')!r}")
    return str(reply.get("ha_version") or "") or None


async def _receive_auth_message(ws: aiohttp.ClientWebSocketResponse) -> JsonObject:
    msg = await ws.receive()
    if msg.type is not aiohttp.WSMsgType.TEXT:
        raise HomeAssistantUnavailableError(f"connection ended during auth ({msg.type.name})")
    messages = decode_frame(msg.data)
    if len(messages) != 1:
        raise HomeAssistantUnavailableError(f"unexpected auth frame: {excerpt(msg.data)}")
    return messages[0]
