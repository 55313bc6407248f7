"""The WebSocket connection to Home Assistant Core: connect, authenticate, serve, reconnect.

:class:`Link` owns the socket and the background loop around it (capped, jittered back-off; a
long pause after a rejected token; an application-level ``ping`` that notices a half-dead link
TCP would not) and sends requests on the current socket, matching answers by id through its
:class:`~addon.ha.dispatch.Dispatcher`. What a fresh connection needs before it counts as
ready (coalescing, subscriptions, connect listeners) is the client's, handed in as ``prepare``:
:class:`~addon.ha.client.HomeAssistantClient` is the face the rest of the add-on uses.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

import aiohttp

from addon.errors import (
    HomeAssistantAuthError,
    HomeAssistantError,
    HomeAssistantUnavailableError,
)
from addon.ha.dispatch import Dispatcher, Subscription
from addon.ha.protocol import MAX_MESSAGE_BYTES, authenticate, backoff_delay, decode_frame
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)

TOKEN_HINT = (
    "check the ha_token option or HA_TOKEN (standalone), or that the add-on has "
    "homeassistant_api enabled (Supervisor)"
)


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """How long the link waits: for an answer, between pings, between attempts."""

    command_timeout: float = 10.0
    heartbeat_interval: float = 20.0
    backoff_initial: float = 0.5
    backoff_max: float = 10.0
    auth_retry_interval: float = 300.0
    """A rejected token will not fix itself; trying again rarely still picks up a token that was
    corrected in Home Assistant without restarting the add-on."""


class Link:
    """One long-lived WebSocket link for one token, reconnecting until stopped."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        websocket_url: str,
        token: str,
        *,
        prepare: Callable[[], Awaitable[None]],
        timing: LinkTiming,
        sleep: Callable[[float], Awaitable[None]],
    ) -> None:
        self._session = session
        self.websocket_url = websocket_url
        self._token = token
        self._prepare = prepare
        self._timing = timing
        self._command_timeout = timing.command_timeout
        self._sleep = sleep
        self._rng = random.Random()
        self._task: asyncio.Task[None] | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._dispatcher = Dispatcher()
        self._ready = asyncio.Event()
        self._rejected = asyncio.Event()
        self.last_error: str | None = None
        self.auth_failed = False
        self.ha_version: str | None = None
        self._stopping = False
        self._reached_ready = False

    @property
    def ready(self) -> bool:
        """Authenticated and prepared."""
        return self._ready.is_set()

    @property
    def started(self) -> bool:
        """The connect loop is running."""
        return self._task is not None

    def dispatcher(self) -> Dispatcher:
        """The current connection's bookkeeping of waiting commands and subscriptions."""
        return self._dispatcher

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
        if self.auth_failed:
            raise HomeAssistantAuthError(f"Home Assistant rejected the access token; {TOKEN_HINT}")
        raise HomeAssistantUnavailableError(
            f"not connected to Home Assistant after {timeout:g} s "
            f"({self.last_error or 'still connecting'})"
        )

    def start(self) -> None:
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
                await self._sleep(self._timing.auth_retry_interval)
                continue
            except (aiohttp.ClientError, OSError, TimeoutError, HomeAssistantError) as err:
                reason = str(err) or type(err).__name__
            except Exception as err:  # boundary: a bug must not end the link for good
                _LOGGER.exception("Unexpected error on the Home Assistant link")
                reason = f"unexpected error: {err!r}"
            self.last_error = reason
            if self._reached_ready:
                attempt = 0
                _LOGGER.warning("Lost the connection to Home Assistant (%s); reconnecting", reason)
            delay = backoff_delay(
                attempt, self._timing.backoff_initial, self._timing.backoff_max, self._rng
            )
            log = _LOGGER.warning if attempt == 0 and not self._reached_ready else _LOGGER.debug
            log(
                "Cannot connect to Home Assistant at %s (%s); attempt %d, next in %.1f s",
                self.websocket_url,
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
                    self.websocket_url,
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
                self.ha_version = await authenticate(ws, self._token)
            if self.auth_failed:
                _LOGGER.info("Home Assistant accepted the access token again")
            self.auth_failed = False
            self._rejected.clear()
            self._ws, self._dispatcher = ws, Dispatcher()
            reader = asyncio.create_task(self._read(ws), name="home-assistant-reader")
            await self._prepare()
            if self._ws is not ws:
                raise HomeAssistantUnavailableError("connection lost while reconnecting")
            self._reached_ready = True
            self._ready.set()
            _LOGGER.info(
                "Connected to Home Assistant %s at %s", self.ha_version, self.websocket_url
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
        self.last_error = "Home Assistant rejected the access token"
        if not self.auth_failed:
            _LOGGER.error(
                "Home Assistant rejected the access token (%s); %s. Trying again every %.0f s",
                detail,
                TOKEN_HINT,
                self._timing.auth_retry_interval,
            )
        else:
            _LOGGER.debug("Home Assistant still rejects the access token (%s)", detail)
        self.auth_failed = True
        self._rejected.set()

    async def _watch(self, reader: asyncio.Task[None]) -> None:
        """Ping every heartbeat interval until the reader ends; a missing pong ends the link."""
        while True:
            done, _ = await asyncio.wait({reader}, timeout=self._timing.heartbeat_interval)
            if done:
                reader.result()
                return
            try:
                await self.request({"type": "ping"}, limit=self._command_timeout)
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

    async def request(
        self,
        message: Mapping[str, JsonValue],
        *,
        limit: float | None,
        subscription: Subscription | None = None,
    ) -> JsonValue:
        """Send ``message`` with a fresh id on the current socket and return its ``result``."""
        command_type = str(message.get("type", "?"))
        ws = self._ws
        if ws is None:
            raise HomeAssistantUnavailableError(
                f"not connected to Home Assistant ({self.last_error or 'not connected yet'}); "
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
