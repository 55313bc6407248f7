"""Home Assistant Core as the add-on sees it: commands, subscriptions and REST for one token.

Everything Home Agent does in the home goes through here, so it is built to outlive Home
Assistant restarts: the connection itself (connect, authenticate, reconnect with back-off,
heartbeat) is :class:`~addon.ha.link.Link`'s; this client re-establishes subscriptions and runs
the connect listeners on every reconnect, before it counts as connected. Callers get
:mod:`addon.errors` exceptions only, never aiohttp's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping

import aiohttp

from addon.errors import (
    HomeAssistantCommandError,
    HomeAssistantError,
    HomeAssistantUnavailableError,
)
from addon.ha.dispatch import ErrorCallback, EventCallback, Subscription
from addon.ha.link import TOKEN_HINT, Link, LinkTiming
from addon.ha.protocol import (
    SUPPORTED_FEATURES_MESSAGE,
)
from addon.ha.rest import RestApi
from addon.health import ComponentHealth
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)

ConnectListener = Callable[[], Awaitable[None]]
__all__ = ["ConnectListener", "EventCallback", "HomeAssistantClient", "Subscription"]


class HomeAssistantClient:
    """Home Assistant's WebSocket API (commands, subscriptions) and REST API for one token.

    ``connected`` turns True only after authentication, ``supported_features``, every
    subscription re-established and every connect listener awaited, in that order; commands
    work from authentication on, so connect listeners can use them. ``wait_connected`` therefore
    returns with the home model (a connect listener) already fresh.

    ``sleep`` is how the link waits between attempts (the back-off, and the long pause after a
    rejected token). It is :func:`asyncio.sleep`; tests pass one that records each pause and
    ends it when they say, so "not retried for 300 s" is checked without waiting 300 s.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        websocket_url: str,
        rest_url: str,
        token: str,
        *,
        command_timeout: float = 10.0,
        heartbeat_interval: float = 20.0,
        backoff_initial: float = 0.5,
        backoff_max: float = 10.0,
        auth_retry_interval: float = 300.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        # A connect listener (the home snapshot) runs several commands, each bounded by the
        # command timeout; three of those is the most a healthy one needs.
        self._listener_timeout = 3 * command_timeout
        self._link = Link(
            session,
            websocket_url,
            token,
            prepare=self._prepare,
            timing=LinkTiming(
                command_timeout=command_timeout,
                heartbeat_interval=heartbeat_interval,
                backoff_initial=backoff_initial,
                backoff_max=backoff_max,
                auth_retry_interval=auth_retry_interval,
            ),
            sleep=sleep,
        )
        self._rest = RestApi(session, rest_url, token, command_timeout)
        self._persistent: list[Subscription] = []
        self._listeners: list[ConnectListener] = []

    # -- state ---------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Authenticated, subscriptions restored and connect listeners done."""
        return self._link.ready

    @property
    def last_error(self) -> str | None:
        """Why the link is (or last was) down, for ``/health`` and the dashboard."""
        return self._link.last_error

    @property
    def auth_failed(self) -> bool:
        """Home Assistant rejected the token on the latest attempt."""
        return self._link.auth_failed

    @property
    def ha_version(self) -> str | None:
        """The version Home Assistant announced in ``auth_ok``."""
        return self._link.ha_version

    # The timeout is part of the contract: it turns into a domain error naming what failed.
    async def wait_connected(self, timeout: float) -> None:  # noqa: ASYNC109
        """Return once connected; raise the auth or unavailable error if that does not happen."""
        await self._link.wait_connected(timeout)

    async def health(self) -> ComponentHealth:
        """``ok`` when connected; otherwise ``degraded``, since restarting us cannot fix it."""
        if self.connected:
            return ComponentHealth("ok", f"connected to Home Assistant {self.ha_version or ''}")
        if self.auth_failed:
            return ComponentHealth(
                "degraded", f"Home Assistant rejected the access token; {TOKEN_HINT}"
            )
        if not self._link.started:
            return ComponentHealth("degraded", "not started")
        return ComponentHealth("degraded", f"not connected: {self.last_error or 'connecting'}")

    def add_connect_listener(self, listener: ConnectListener) -> Callable[[], None]:
        """Await ``listener`` after every (re)connect, before ``connected`` turns True.

        A listener that fails is logged and does not stop the connection. Returns a function
        that removes the listener.
        """
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the background connect loop; returns at once, connected or not."""
        self._link.start()

    async def stop(self) -> None:
        """Close the link; pending commands fail with ``shutting down``."""
        await self._link.stop()
        for sub in self._persistent:
            sub.active = False
        self._persistent.clear()

    async def _prepare(self) -> None:
        """Turn on coalescing, restore subscriptions, then run connect listeners."""
        await self._link.request(SUPPORTED_FEATURES_MESSAGE, limit=None)
        for sub in list(self._persistent):
            if not sub.active:
                continue
            try:
                await self._link.request(sub.message, limit=None, subscription=sub)
            except HomeAssistantCommandError as err:
                _LOGGER.warning(
                    "Could not re-establish subscription %s (%s); will try at the next reconnect",
                    sub.message.get("type"),
                    err,
                )
        for listener in list(self._listeners):
            try:
                async with asyncio.timeout(self._listener_timeout):
                    await listener()
            except TimeoutError:
                _LOGGER.warning(
                    "Connect listener %r took over %.0f s", listener, self._listener_timeout
                )
            except HomeAssistantError as err:
                _LOGGER.warning("Connect listener %r failed: %s", listener, err)
            except Exception:  # boundary: one listener's bug must not keep the link down
                _LOGGER.exception("Connect listener %r failed", listener)

    # -- commands ------------------------------------------------------------------------------

    async def command(
        self,
        message: Mapping[str, JsonValue],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - becomes an error naming the command
    ) -> JsonValue:
        """Send ``message`` with a fresh id and return its ``result``.

        Raises HomeAssistantCommandError for ``success: false`` and HomeAssistantUnavailableError
        when not connected, when the link drops, or when no answer comes within ``timeout``
        (default: the client's command timeout). ``math.inf`` waits as long as the link lasts,
        for a command that may rightly take long (a script's ``call_service``); the heartbeat
        still ends it when Home Assistant stops answering.
        """
        return await self._link.request(message, limit=timeout)

    async def subscribe(
        self,
        message: Mapping[str, JsonValue],
        callback: EventCallback,
        *,
        resubscribe: bool = True,
        on_error: ErrorCallback | None = None,
    ) -> Subscription:
        """Send a subscribe command; ``callback`` gets each event's ``event`` payload.

        The callback runs on the reader task and must not block; it may schedule work. If it
        raises, the event is dropped and ``on_error`` (if given) gets the exception.
        """
        sub = Subscription(self, message, callback, resubscribe=resubscribe, on_error=on_error)
        await self._link.request(sub.message, limit=None, subscription=sub)
        if resubscribe:
            self._persistent.append(sub)
        return sub

    async def unsubscribe(self, sub: Subscription) -> None:
        """End ``sub``; when the link is down Home Assistant has already dropped it."""
        if not sub.active:
            return
        sub.active = False
        if sub in self._persistent:
            self._persistent.remove(sub)
        wire_id = sub.wire_id
        self._link.dispatcher().forget(sub)
        if wire_id is None:
            return
        try:
            await self._link.request(
                {"type": "unsubscribe_events", "subscription": wire_id}, limit=None
            )
        except HomeAssistantUnavailableError as err:
            _LOGGER.debug("Unsubscribe %s skipped, link down: %s", sub.message.get("type"), err)

    async def call_service(
        self,
        domain: str,
        service: str,
        *,
        service_data: Mapping[str, JsonValue] | None = None,
        target: Mapping[str, JsonValue] | None = None,
        return_response: bool = False,
        timeout: float | None = None,  # noqa: ASYNC109 - see command()
    ) -> JsonValue:
        """Call a service and wait for it; returns ``{"context": …}`` plus ``response`` if asked.

        ``timeout`` is as for :meth:`command`: Home Assistant answers only once the service has
        finished, so a caller that expects a long run (a script) passes a longer one or
        ``math.inf``.
        """
        message: JsonObject = {"type": "call_service", "domain": domain, "service": service}
        if service_data is not None:
            message["service_data"] = dict(service_data)
        if target is not None:
            message["target"] = dict(target)
        if return_response:
            message["return_response"] = True
        return await self.command(message, timeout=timeout)

    async def fire_event(self, event_type: str, event_data: Mapping[str, JsonValue]) -> None:
        """Fire ``event_type`` on Home Assistant's bus (needs an admin token)."""
        await self.command(
            {"type": "fire_event", "event_type": event_type, "event_data": dict(event_data)}
        )

    # -- REST ----------------------------------------------------------------------------------

    async def rest_get(
        self,
        path: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - becomes an error naming the request
    ) -> JsonValue:
        """GET ``path`` (e.g. ``/config``) under the REST URL; JSON decoded when it is JSON."""
        return await self._rest.get(path, timeout)

    async def rest_post(self, path: str, payload: JsonValue) -> JsonValue:
        """POST ``payload`` as JSON to ``path`` under the REST URL; JSON decoded when it is JSON."""
        return await self._rest.post(path, payload, None)

    async def rest_delete(self, path: str) -> JsonValue:
        """DELETE ``path`` under the REST URL; JSON decoded when it is JSON."""
        return await self._rest.delete(path, None)
