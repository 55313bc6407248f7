"""Matching Home Assistant's messages to the commands and subscriptions that wait for them.

Home Assistant answers by id, in whatever order its handlers finish, and pushes events under the
id of the subscribe command. One :class:`Dispatcher` holds that bookkeeping for one connection;
:class:`~addon.ha.client.HomeAssistantClient` owns the socket and the reconnect loop around it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from addon.errors import HomeAssistantCommandError, HomeAssistantUnavailableError
from addon.ha.protocol import excerpt
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)

EventCallback = Callable[[JsonValue], None]
# Told when the subscription's callback raised: the events it missed may matter (a state diff).
ErrorCallback = Callable[[Exception], None]


class SubscriptionOwner(Protocol):
    """What a subscription needs from its client to end itself."""

    async def unsubscribe(self, subscription: Subscription) -> None:
        """End ``subscription``."""


class Subscription:
    """A subscription to Home Assistant events; ``await unsubscribe()`` ends it.

    With ``resubscribe`` (the default) the client sends the same subscribe message again on
    every reconnect, so the callback keeps receiving events across Home Assistant restarts.
    Without it the subscription ends with the connection it was made on (``active`` turns
    False); :class:`~addon.ha.home_sync.HomeSync` uses that to take a fresh snapshot each time.

    A callback that raises is logged and the event dropped, so one bad event cannot break the
    link; ``on_error``, if given, is then told, for a subscriber whose state an event it could
    not take in leaves wrong (``HomeSync`` takes a new snapshot).
    """

    __slots__ = ("_owner", "active", "callback", "message", "on_error", "resubscribe", "wire_id")

    def __init__(
        self,
        owner: SubscriptionOwner,
        message: Mapping[str, JsonValue],
        callback: EventCallback,
        *,
        resubscribe: bool,
        on_error: ErrorCallback | None = None,
    ) -> None:
        self._owner = owner
        self.message = dict(message)
        self.callback = callback
        self.on_error = on_error
        self.resubscribe = resubscribe
        self.wire_id: int | None = None
        self.active = True

    async def unsubscribe(self) -> None:
        """Stop the callback now and tell Home Assistant, if the link is up."""
        await self._owner.unsubscribe(self)


@dataclass(slots=True)
class _Pending:
    """A command waiting for its answer; the type is kept for log messages."""

    command_type: str
    future: asyncio.Future[JsonValue]


class Dispatcher:
    """Ids, waiting commands and live subscriptions of one connection."""

    def __init__(self) -> None:
        self._next_id = 1
        self._pending: dict[int, _Pending] = {}
        self._subscriptions: dict[int, Subscription] = {}

    def open(
        self, command_type: str, subscription: Subscription | None = None
    ) -> tuple[int, asyncio.Future[JsonValue]]:
        """Take the next id and a future for its answer.

        A subscription is registered here, before the command is sent, because Home Assistant
        may put the first event in the same frame as the result.
        """
        msg_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[JsonValue] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = _Pending(command_type, future)
        if subscription is not None:
            subscription.wire_id = msg_id
            self._subscriptions[msg_id] = subscription
        return msg_id, future

    def close(self, msg_id: int) -> None:
        """Stop waiting for ``msg_id``; a later answer is logged as late."""
        pending = self._pending.pop(msg_id, None)
        if pending is not None and pending.future.done() and not pending.future.cancelled():
            pending.future.exception()  # mark retrieved; the caller has it if it mattered

    def forget(self, subscription: Subscription) -> None:
        """Stop delivering events to ``subscription`` on this connection."""
        if subscription.wire_id is not None:
            self._subscriptions.pop(subscription.wire_id, None)
            subscription.wire_id = None

    def fail_all(self, reason: str) -> None:
        """The connection ended: fail waiting commands and detach every subscription."""
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(HomeAssistantUnavailableError(reason))
        for subscription in self._subscriptions.values():
            subscription.wire_id = None
            if not subscription.resubscribe:
                subscription.active = False
        self._subscriptions.clear()

    def dispatch(self, message: JsonObject) -> None:
        """Route one message; anything odd is logged and dropped, never raised."""
        msg_id, msg_type = message.get("id"), message.get("type")
        if msg_type == "event":
            sub = self._subscriptions.get(msg_id) if isinstance(msg_id, int) else None
            if sub is None:
                self._log_stray(message, "event for a subscription that is not active")
                return
            try:
                sub.callback(message.get("event"))
            except Exception as err:  # boundary: a subscriber's bug must not break the link
                _LOGGER.exception(
                    "Callback for subscription %s (id %s) failed on %s",
                    sub.message.get("type"),
                    msg_id,
                    excerpt(json.dumps(message)),
                )
                self._tell_failed(sub, err)
        elif msg_type in ("result", "pong"):
            pending = self._pending.get(msg_id) if isinstance(msg_id, int) else None
            if pending is None:
                self._log_stray(message, f"{msg_type} for a command no longer waiting")
            elif pending.future.done():
                return
            elif msg_type == "pong" or message.get("success"):
                pending.future.set_result(message.get("result"))
            else:
                error = message.get("error")
                if not isinstance(error, dict):
                    error = {}
                pending.future.set_exception(
                    HomeAssistantCommandError(
                        str(error.get("code", "unknown_error")),
                        str(error.get("message", "no message")),
                    )
                )
        else:
            _LOGGER.warning(
                "Ignoring a message of unexpected type %r from Home Assistant: %s",
                msg_type,
                excerpt(json.dumps(message)),
            )

    @staticmethod
    def _tell_failed(sub: Subscription, err: Exception) -> None:
        """Tell the subscriber its callback failed; its own failure there is only logged."""
        if sub.on_error is None:
            return
        try:
            sub.on_error(err)
        except Exception:  # boundary: as for the callback itself
            _LOGGER.exception("Error handler of subscription %s failed", sub.message.get("type"))

    def _log_stray(self, message: JsonObject, what: str) -> None:
        """Late answers (timed out, unsubscribed) are expected; ids never issued are not."""
        msg_id = message.get("id")
        issued = isinstance(msg_id, int) and 0 < msg_id < self._next_id
        _LOGGER.log(
            logging.DEBUG if issued else logging.WARNING,
            "Ignoring %s (id %r%s): %s",
            what,
            msg_id,
            "" if issued else ", never issued",
            excerpt(json.dumps(message)),
        )
