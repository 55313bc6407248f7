"""One long-lived WebSocket link to Home Assistant Core, plus its REST API over the same session.

Everything Home Agent does in the home goes through here, so the link is built to outlive
Home Assistant restarts: a background task connects, authenticates and reconnects with capped,
jittered back-off; commands are matched to answers by id; subscriptions are re-established on
every reconnect; an application-level ``ping`` notices a half-dead link that TCP would not.
Callers get :mod:`addon.errors` exceptions only, never aiohttp's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from addon.errors import (
    HomeAssistantAuthError,
    HomeAssistantCommandError,
    HomeAssistantError,
    HomeAssistantUnavailableError,
)
from addon.ha.dispatch import Dispatcher, ErrorCallback, EventCallback, Subscription
from addon.ha.protocol import (
    MAX_MESSAGE_BYTES,
    SUPPORTED_FEATURES_MESSAGE,
    authenticate,
    backoff_delay,
    decode_frame,
)
from addon.ha.rest import RestApi
from addon.health import ComponentHealth

_LOGGER = logging.getLogger(__name__)

ConnectListener = Callable[[], Awaitable[None]]
__all__ = ["ConnectListener", "EventCallback", "HomeAssistantClient", "Subscription"]
TOKEN_HINT = (
    "check the ha_token option or HA_TOKEN (standalone), or that the add-on has "
    "homeassistant_api enabled (Supervisor)"
)


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
        self._session = session
        self._websocket_url = websocket_url
        self._token = token
        self._command_timeout = command_timeout
        self._heartbeat_interval = heartbeat_interval
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        # A rejected token will not fix itself; trying again rarely still picks up a token
        # that was corrected in Home Assistant without restarting the add-on.
        self._auth_retry_interval = auth_retry_interval
        self._sleep = sleep
        # A connect listener (the home snapshot) runs several commands, each bounded by the
        # command timeout; three of those is the most a healthy one needs.
        self._listener_timeout = 3 * command_timeout
        self._rng = random.Random()
        self._task: asyncio.Task[None] | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._dispatcher = Dispatcher()
        self._rest = RestApi(session, rest_url, token, command_timeout)
        self._persistent: list[Subscription] = []
        self._listeners: list[ConnectListener] = []
        self._ready = asyncio.Event()
        self._rejected = asyncio.Event()
        self._last_error: str | None = None
        self._auth_failed = False
        self._ha_version: str | None = None
        self._stopping = False
        self._reached_ready = False

    # -- state ---------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Authenticated, subscriptions restored and connect listeners done."""
        return self._ready.is_set()

    @property
    def last_error(self) -> str | None:
        """Why the link is (or last was) down, for ``/health`` and the dashboard."""
        return self._last_error

    @property
    def auth_failed(self) -> bool:
        """Home Assistant rejected the token on the latest attempt."""
        return self._auth_failed

    @property
    def ha_version(self) -> str | None:
        """The version Home Assistant announced in ``auth_ok``."""
        return self._ha_version

    # The timeout is part of the contract: it turns into a domain error naming what failed.
    async def wait_connected(self, timeout: float) -> None:  # noqa: ASYNC109
        """Return once connected; raise the auth or unavailable error if that does not happen."""
        if not self._ready.is_set():
            waiters = {
                asyncio.ensure_future(self._ready.wait()),
                asyncio.ensure_future(self._rejected.wait()),
            }
            try:
                await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
                await asyncio.gather(*waiters, return_exceptions=True)
        if self._ready.is_set():
            return
        if self._auth_failed:
            raise HomeAssistantAuthError(f"Home Assistant rejected the access token; {TOKEN_HINT}")
        raise HomeAssistantUnavailableError(
            f"not connected to Home Assistant after {timeout:g} s "
            f"({self._last_error or 'still connecting'})"
        )

    async def health(self) -> ComponentHealth:
        """``ok`` when connected; otherwise ``degraded``, since restarting us cannot fix it."""
        if self.connected:
            return ComponentHealth("ok", f"connected to Home Assistant {self._ha_version or ''}")
        if self._auth_failed:
            return ComponentHealth(
                "degraded", f"Home Assistant rejected the access token; {TOKEN_HINT}"
            )
        if self._task is None:
            return ComponentHealth("degraded", "not started")
        return ComponentHealth("degraded", f"not connected: {self._last_error or 'connecting'}")

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
        if self._task is not None:
            return
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name="home-assistant-link")

    async def stop(self) -> None:
        """Close the link; pending commands fail with ``shutting down``."""
        self._stopping = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise
        self._drop_link("shutting down")
        for sub in self._persistent:
            sub.active = False
        self._persistent.clear()

    async def _run(self) -> None:
        """Connect, serve, and reconnect until cancelled by :meth:`stop`."""
        attempt = 0
        while True:
            self._reached_ready = False
            try:
                await self._connect_once()
                reason = "Home Assistant closed the connection"
            except HomeAssistantAuthError as err:
                self._on_auth_rejected(str(err))
                await self._sleep(self._auth_retry_interval)
                continue
            except (aiohttp.ClientError, OSError, TimeoutError, HomeAssistantError) as err:
                reason = str(err) or type(err).__name__
            except Exception as err:  # boundary: a bug must not end the link for good
                _LOGGER.exception("Unexpected error on the Home Assistant link")
                reason = f"unexpected error: {err!r}"
            self._last_error = reason
            if self._reached_ready:
                attempt = 0
                _LOGGER.warning("Lost the connection to Home Assistant (%s); reconnecting", reason)
            delay = backoff_delay(attempt, self._backoff_initial, self._backoff_max, self._rng)
            log = _LOGGER.warning if attempt == 0 and not self._reached_ready else _LOGGER.debug
            log(
                "Cannot connect to Home Assistant at %s (%s); attempt %d, next in %.1f s",
                self._websocket_url,
                reason,
                attempt + 1,
                delay,
            )
            attempt += 1
            await self._sleep(delay)

    async def _connect_once(self) -> None:
        """One connection from handshake to close; returns or raises when it ends."""
        try:
            async with asyncio.timeout(self._command_timeout):
                ws = await self._session.ws_connect(
                    self._websocket_url,
                    max_msg_size=MAX_MESSAGE_BYTES,
                    timeout=aiohttp.ClientWSTimeout(ws_close=self._command_timeout),
                )
        except aiohttp.WSServerHandshakeError as err:
            if err.status in (401, 403):
                raise HomeAssistantAuthError(f"HTTP {err.status} on the WebSocket") from err
            raise
        reader: asyncio.Task[None] | None = None
        try:
            async with asyncio.timeout(self._command_timeout):
                self._ha_version = await authenticate(ws, self._token)
            if self._auth_failed:
                _LOGGER.info("Home Assistant accepted the access token again")
            self._auth_failed = False
            self._rejected.clear()
            self._ws, self._dispatcher = ws, Dispatcher()
            reader = asyncio.create_task(self._read(ws), name="home-assistant-reader")
            await self._prepare(ws)
            self._reached_ready = True
            self._ready.set()
            _LOGGER.info(
                "Connected to Home Assistant %s at %s", self._ha_version, self._websocket_url
            )
            await self._watch(reader)
        finally:
            self._drop_link("connection to Home Assistant lost")
            if reader is not None:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
            await ws.close()

    def _on_auth_rejected(self, detail: str) -> None:
        """Log a rejected token once at error level; later rejections only at debug."""
        self._last_error = "Home Assistant rejected the access token"
        if not self._auth_failed:
            _LOGGER.error(
                "Home Assistant rejected the access token (%s); %s. Trying again every %.0f s",
                detail,
                TOKEN_HINT,
                self._auth_retry_interval,
            )
        else:
            _LOGGER.debug("Home Assistant still rejects the access token (%s)", detail)
        self._auth_failed = True
        self._rejected.set()

    async def _prepare(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        """Turn on coalescing, restore subscriptions, then run connect listeners."""
        await self._request(SUPPORTED_FEATURES_MESSAGE, limit=None)
        for sub in list(self._persistent):
            if not sub.active:
                continue
            try:
                await self._request(sub.message, limit=None, subscription=sub)
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
        if self._ws is not ws:
            raise HomeAssistantUnavailableError("connection lost while reconnecting")

    async def _watch(self, reader: asyncio.Task[None]) -> None:
        """Ping every heartbeat interval until the reader ends; a missing pong ends the link."""
        while True:
            done, _ = await asyncio.wait({reader}, timeout=self._heartbeat_interval)
            if done:
                reader.result()
                return
            try:
                await self._request({"type": "ping"}, limit=self._command_timeout)
            except HomeAssistantUnavailableError as err:
                raise HomeAssistantUnavailableError(f"no pong from Home Assistant: {err}") from err

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        """Dispatch every incoming message until the socket closes."""
        try:
            while True:
                msg = await ws.receive()
                if msg.type is aiohttp.WSMsgType.TEXT:
                    for message in decode_frame(msg.data):
                        self._dispatcher.dispatch(message)
                elif msg.type is aiohttp.WSMsgType.BINARY:
                    _LOGGER.warning(
                        "Ignoring a binary frame of %d bytes from Home Assistant", len(msg.data)
                    )
                elif msg.type is aiohttp.WSMsgType.ERROR:
                    raise HomeAssistantUnavailableError(f"WebSocket error: {msg.data}")
                elif msg.type in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSING,
                    aiohttp.WSMsgType.CLOSED,
                ):
                    return
        finally:
            self._drop_link("connection to Home Assistant lost")

    def _drop_link(self, reason: str) -> None:
        """Forget the socket; fail waiting commands; end per-connection subscriptions."""
        reason = "shutting down" if self._stopping else reason
        self._ws = None
        self._ready.clear()
        self._dispatcher.fail_all(reason)

    # -- commands ------------------------------------------------------------------------------

    async def command(
        self,
        message: dict[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - becomes an error naming the command
    ) -> Any:
        """Send ``message`` with a fresh id and return its ``result``.

        Raises HomeAssistantCommandError for ``success: false`` and HomeAssistantUnavailableError
        when not connected, when the link drops, or when no answer comes within ``timeout``
        (default: the client's command timeout). ``math.inf`` waits as long as the link lasts,
        for a command that may rightly take long (a script's ``call_service``); the heartbeat
        still ends it when Home Assistant stops answering.
        """
        return await self._request(message, limit=timeout)

    async def _request(
        self,
        message: dict[str, Any],
        *,
        limit: float | None,
        subscription: Subscription | None = None,
    ) -> Any:
        command_type = str(message.get("type", "?"))
        ws = self._ws
        if ws is None:
            raise HomeAssistantUnavailableError(
                f"not connected to Home Assistant ({self._last_error or 'not connected yet'}); "
                f"cannot send '{command_type}'"
            )
        dispatcher = self._dispatcher
        msg_id, future = dispatcher.open(command_type, subscription)
        limit = self._command_timeout if limit is None else limit
        answered = False
        try:
            async with asyncio.timeout(None if math.isinf(limit) else limit):
                await ws.send_str(json.dumps({**message, "id": msg_id}))
                result = await future
            answered = True
            return result
        except TimeoutError:
            raise HomeAssistantUnavailableError(
                f"Home Assistant did not answer '{command_type}' within {limit:g} s"
            ) from None
        except (aiohttp.ClientError, ConnectionError) as err:
            raise HomeAssistantUnavailableError(
                f"could not send '{command_type}' to Home Assistant: {err}"
            ) from err
        finally:
            dispatcher.close(msg_id)
            if subscription is not None and not answered:
                dispatcher.forget(subscription)

    async def subscribe(
        self,
        message: dict[str, Any],
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
        await self._request(sub.message, limit=None, subscription=sub)
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
        self._dispatcher.forget(sub)
        if wire_id is None:
            return
        try:
            await self._request({"type": "unsubscribe_events", "subscription": wire_id}, limit=None)
        except HomeAssistantUnavailableError as err:
            _LOGGER.debug("Unsubscribe %s skipped, link down: %s", sub.message.get("type"), err)

    async def call_service(
        self,
        domain: str,
        service: str,
        *,
        service_data: dict[str, Any] | None = None,
        target: dict[str, Any] | None = None,
        return_response: bool = False,
        timeout: float | None = None,  # noqa: ASYNC109 - see command()
    ) -> Any:
        """Call a service and wait for it; returns ``{"context": …}`` plus ``response`` if asked.

        ``timeout`` is as for :meth:`command`: Home Assistant answers only once the service has
        finished, so a caller that expects a long run (a script) passes a longer one or
        ``math.inf``.
        """
        message: dict[str, Any] = {"type": "call_service", "domain": domain, "service": service}
        if service_data is not None:
            message["service_data"] = service_data
        if target is not None:
            message["target"] = target
        if return_response:
            message["return_response"] = True
        return await self.command(message, timeout=timeout)

    async def fire_event(self, event_type: str, event_data: dict[str, Any]) -> None:
        """Fire ``event_type`` on Home Assistant's bus (needs an admin token)."""
        await self.command(
            {"type": "fire_event", "event_type": event_type, "event_data": event_data}
        )

    # -- REST ----------------------------------------------------------------------------------

    async def rest_get(
        self,
        path: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - becomes an error naming the request
    ) -> Any:
        """GET ``path`` (e.g. ``/config``) under the REST URL; JSON decoded when it is JSON."""
        return await self._rest.get(path, timeout)

    async def rest_post(self, path: str, payload: Any) -> Any:
        """POST ``payload`` as JSON to ``path`` under the REST URL; JSON decoded when it is JSON."""
        return await self._rest.post(path, payload, None)
