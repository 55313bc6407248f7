"""Keeps a :class:`~addon.home.model.HomeModel` in step with Home Assistant, across restarts.

On every (re)connect, and after registry changes, it takes a full snapshot: a new
``subscribe_entities`` (whose first event is every state) plus the registries, exposure
settings and ``get_config``, fetched concurrently; builds a new model; applies the state
changes that arrived meanwhile; and swaps it in with no ``await`` in between, so readers see
either the old home or the new one, never half of each. Between snapshots, each
``subscribe_entities`` event is applied to the current model in place.

Registry changes arrive as ``area_registry_updated``, ``floor_registry_updated``,
``device_registry_updated`` and ``entity_registry_updated`` events; they are debounced, since
Home Assistant fires them in bursts (at start-up, or one per entity when a device is added).
Home Assistant 2025.4 has no event or subscription for exposure: ``homeassistant/expose_entity``
stores the setting in the entity registry's ``options``, which fires ``entity_registry_updated``,
so that refresh covers it. Two changes fire nothing and are only seen at the next snapshot:
exposing a YAML entity without a ``unique_id``, and ``expose_new_entities/set``.

Scripts' fields and descriptions come from ``get_services``. Editing a script reloads it, which
removes and registers its service again (``service_removed``, ``service_registered``) without
touching the entity registry, so those events, for the ``script`` domain only, refresh too.

The model never goes stale silently. A snapshot that fails, whether Home Assistant refused a
command (still starting) or answered something the build could not take in, is tried again
after a pause that doubles with each failure in a row, from ``retry_interval`` up to
``retry_max``. A state change that cannot be applied (the dispatcher reports the failed
callback) leaves the model wrong in a way nobody can see, so it brings a new snapshot too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from addon.errors import (
    HomeAssistantCommandError,
    HomeAssistantError,
    HomeAssistantUnavailableError,
)
from addon.ha.client import HomeAssistantClient, Subscription
from addon.home.exposure import KNOWN_ASSISTANTS
from addon.home.model import HomeModel

_LOGGER = logging.getLogger(__name__)

ChangeListener = Callable[[list[str], HomeModel], None]
REGISTRY_EVENTS = (
    "area_registry_updated",
    "floor_registry_updated",
    "device_registry_updated",
    "entity_registry_updated",
)
SERVICE_EVENTS = ("service_registered", "service_removed")
SCRIPT_DOMAIN = "script"
RETRY_MAX_S = 60.0


class _EntityFeed:
    """The callback of one ``subscribe_entities``: first event is the snapshot, then diffs.

    Diffs that arrive while the snapshot's model is being built are kept and applied in order
    once it is attached; after the feed is retired (a newer snapshot replaced it) events are
    ignored.
    """

    def __init__(self, notify: ChangeListener) -> None:
        self.snapshot: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._notify = notify
        self._buffer: list[dict[str, Any]] = []
        self._model: HomeModel | None = None
        self._retired = False

    def __call__(self, event: Any) -> None:
        if self._retired:
            return
        if not isinstance(event, dict):
            _LOGGER.warning("Ignoring a subscribe_entities event that is not an object: %r", event)
            return
        if not self.snapshot.done():
            self.snapshot.set_result(event)
        elif self._model is None:
            self._buffer.append(event)
        else:
            changed = self._model.apply_entity_diff(event)
            if changed:
                self._notify(changed, self._model)

    def attach(self, model: HomeModel) -> None:
        """Apply what arrived during the build; from now on diffs go straight to ``model``."""
        for event in self._buffer:
            model.apply_entity_diff(event)
        self._buffer.clear()
        self._model = model

    def retire(self) -> None:
        """Ignore every later event."""
        self._retired = True
        self._buffer.clear()


class HomeSync:
    """The current home model, rebuilt on connect and on registry changes, updated live."""

    def __init__(
        self,
        client: HomeAssistantClient,
        *,
        debounce: float = 0.5,
        debounce_max: float = 5.0,
        snapshot_timeout: float = 30.0,
        retry_interval: float = 10.0,
        retry_max: float = RETRY_MAX_S,
    ) -> None:
        self._client = client
        self._debounce = debounce
        # Start-up fires registry events for minutes on a big home; without a cap the trailing
        # debounce would keep postponing the refresh for all of that time.
        self._debounce_max = debounce_max
        self._first_request = 0.0
        self._snapshot_timeout = snapshot_timeout
        # Right after Home Assistant starts some commands are not registered yet; try again.
        self._retry_interval = retry_interval
        self._retry_max = retry_max
        self._failures = 0
        self._stopped = False
        self._model: HomeModel | None = None
        self._ready = asyncio.Event()
        self._feed: _EntityFeed | None = None
        self._entities_sub: Subscription | None = None
        self._registry_subs: list[Subscription] = []
        self._listeners: list[ChangeListener] = []
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._remove_connect_listener: Callable[[], None] | None = None
        self._refreshes = 0

    @property
    def model(self) -> HomeModel | None:
        """The current model; None until the first snapshot. Do not keep it across an await."""
        return self._model

    @property
    def live(self) -> bool:
        """Whether the model is receiving state changes (False while Home Assistant is away)."""
        return self._entities_sub is not None and self._entities_sub.active

    @property
    def refreshes(self) -> int:
        """How many snapshots have been swapped in; for tests and the dashboard."""
        return self._refreshes

    @property
    def settled(self) -> bool:
        """No refresh is scheduled, running or waiting to retry.

        Until the next event or reconnect the model is only updated in place, so tests check
        that an event did *not* cause a refresh by this, not by waiting a while and counting.
        """
        return self._timer is None and not self._tasks and not self._lock.locked()

    async def wait_ready(self, timeout: float) -> None:  # noqa: ASYNC109 - becomes a domain error
        """Return once a model exists, or raise HomeAssistantUnavailableError."""
        try:
            async with asyncio.timeout(timeout):
                await self._ready.wait()
        except TimeoutError:
            raise HomeAssistantUnavailableError(
                f"no home model from Home Assistant after {timeout:g} s "
                f"({self._client.last_error or 'still connecting'})"
            ) from None

    def add_change_listener(self, listener: ChangeListener) -> Callable[[], None]:
        """Call ``listener(entity_ids, model)`` after each change; returns its remover.

        It runs synchronously inside the WebSocket reader, so it must be quick.
        """
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def start(self) -> None:
        """Snapshot on every (re)connect; call before the client starts, or it snapshots now."""
        self._remove_connect_listener = self._client.add_connect_listener(self._on_connect)
        if self._client.connected:
            await self._on_connect()

    async def stop(self) -> None:
        """Stop refreshing and end the subscriptions."""
        self._stopped = True
        if self._remove_connect_listener is not None:
            self._remove_connect_listener()
            self._remove_connect_listener = None
        if self._timer is not None:
            self._timer.cancel()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._feed is not None:
            self._feed.retire()
        for sub in [*self._registry_subs, self._entities_sub]:
            if sub is not None:
                await self._end(sub)
        self._registry_subs.clear()

    async def _on_connect(self) -> None:
        """Watch the registries, then take a snapshot; both die with this connection."""
        self._registry_subs = [
            await self._client.subscribe(
                {"type": "subscribe_events", "event_type": event_type},
                self._on_registry_event,
                resubscribe=False,
            )
            for event_type in REGISTRY_EVENTS
        ]
        self._registry_subs += [
            await self._client.subscribe(
                {"type": "subscribe_events", "event_type": event_type},
                self._on_service_event,
                resubscribe=False,
            )
            for event_type in SERVICE_EVENTS
        ]
        try:
            await self.refresh()
        except HomeAssistantUnavailableError:
            raise  # the link dropped meanwhile; the next connect takes a snapshot anyway
        except asyncio.CancelledError:
            # The client gave up waiting for this snapshot (a slow home): try again later.
            self._schedule(self._retry_interval)
            raise
        except Exception as err:  # boundary: the link must come up even if the home cannot
            self._retry_later("on connect", err)

    def _on_registry_event(self, event: Any) -> None:
        _LOGGER.debug(
            "%s: refreshing the home model",
            event.get("event_type") if isinstance(event, dict) else event,
        )
        self._schedule(self._debounce)

    def _on_service_event(self, event: Any) -> None:
        """Refresh when a script's service changes; other domains' services do not matter."""
        data = event.get("data") if isinstance(event, dict) else None
        if isinstance(data, dict) and data.get("domain") == SCRIPT_DOMAIN:
            self._on_registry_event(event)

    def _schedule(self, delay: float) -> None:
        """Refresh after ``delay``; a newer request restarts the wait, up to ``debounce_max``."""
        if self._stopped:
            return
        loop = asyncio.get_running_loop()
        if self._timer is None:
            self._first_request = loop.time()
        elif loop.time() - self._first_request >= self._debounce_max:
            return  # the pending refresh is due soon and will see this change too
        else:
            self._timer.cancel()
        self._timer = loop.call_later(delay, self._start_refresh)

    def _start_refresh(self) -> None:
        self._timer = None
        task = asyncio.get_running_loop().create_task(self._refresh_in_background())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refresh_in_background(self) -> None:
        try:
            await self.refresh()
        except HomeAssistantUnavailableError as err:
            # The next connect takes a snapshot anyway.
            _LOGGER.debug("Home model refresh skipped, Home Assistant unavailable: %s", err)
        except Exception as err:  # boundary: a background task has nobody else to tell
            self._retry_later("in the background", err)

    def _retry_later(self, when: str, err: Exception) -> None:
        """Log a failed snapshot and schedule the next try, backing off while failures last.

        A refusal from Home Assistant is expected while it starts (a warning); anything else is
        a fault in what it answered or in the build (an error, with the traceback).
        """
        delay = min(self._retry_max, self._retry_interval * 2**self._failures)
        self._failures += 1
        if isinstance(err, HomeAssistantError):
            _LOGGER.warning(
                "Could not read the home from Home Assistant %s (%s, failure %d in a row); "
                "trying again in %g s",
                when,
                err,
                self._failures,
                delay,
            )
        else:
            _LOGGER.error(
                "Building the home model %s failed (failure %d in a row; %s); trying again in %g s",
                when,
                self._failures,
                "the last model stays in use" if self._model is not None else "no model yet",
                delay,
                exc_info=err,
            )
        self._schedule(delay)

    def _on_feed_error(self, err: Exception) -> None:
        """A state change could not be applied: the model may be wrong, so take a new one."""
        _LOGGER.warning("A state change could not be applied (%s); taking a new snapshot", err)
        self._schedule(self._debounce)

    async def refresh(self) -> None:
        """Take a full snapshot and swap the new model in; one at a time."""
        async with self._lock:
            feed = _EntityFeed(self._notify)
            sub = await self._client.subscribe(
                {"type": "subscribe_entities"},
                feed,
                resubscribe=False,
                on_error=self._on_feed_error,
            )
            try:
                model = await self._build(feed)
            except BaseException:
                feed.retire()
                await self._end(sub)
                raise
            old_model, old_feed, old_sub = self._model, self._feed, self._entities_sub
            # No await from here to the swap: readers see the old home or the new one.
            feed.attach(model)
            if old_feed is not None:
                old_feed.retire()
            self._model, self._feed, self._entities_sub = model, feed, sub
            self._refreshes += 1
            self._failures = 0
            self._ready.set()
            _LOGGER.info(
                "Home model ready: %d entities (%d exposed to Assist), %d areas",
                len(model.entity_ids()),
                len(model.exposed_entities()),
                len(model.areas),
            )
            changed = _changed_states(old_model, model)
            if changed:
                self._notify(changed, model)
            if old_sub is not None:
                await self._end(old_sub)

    async def _build(self, feed: _EntityFeed) -> HomeModel:
        """Fetch everything concurrently with the snapshot and build a model."""
        command = self._client.command
        (
            config,
            areas,
            floors,
            devices,
            entities,
            exposure,
            scripts,
            *expose_new,
        ) = await asyncio.gather(
            command({"type": "get_config"}),
            command({"type": "config/area_registry/list"}),
            command({"type": "config/floor_registry/list"}),
            command({"type": "config/device_registry/list"}),
            command({"type": "config/entity_registry/list"}),
            command({"type": "homeassistant/expose_entity/list"}),
            self._script_services(),
            *(
                command({"type": "homeassistant/expose_new_entities/get", "assistant": name})
                for name in KNOWN_ASSISTANTS
            ),
        )
        details = await command(
            {
                "type": "config/entity_registry/get_entries",
                "entity_ids": [entry["entity_id"] for entry in entities],
            }
        )
        try:
            async with asyncio.timeout(self._snapshot_timeout):
                snapshot = await feed.snapshot
        except TimeoutError:
            # The link answers commands but the snapshot never came: worth retrying, unlike a
            # dropped link (which reconnecting fixes), so not an "unavailable" error.
            raise HomeAssistantCommandError(
                "snapshot_timeout",
                f"no subscribe_entities snapshot within {self._snapshot_timeout:g} s",
            ) from None
        return HomeModel.build(
            config=config,
            areas=areas,
            floors=floors,
            devices=devices,
            entities=entities,
            entity_details=details,
            exposure=exposure.get("exposed_entities", {}),
            states=snapshot.get("a", {}),
            expose_new={
                name: bool(answer.get("expose_new"))
                for name, answer in zip(KNOWN_ASSISTANTS, expose_new, strict=True)
            },
            scripts=scripts,
        )

    async def _script_services(self) -> dict[str, Any]:
        """``get_services``' scripts; if Home Assistant refuses, scripts are offered without fields.

        Fields only refine the script tools, so a refusal here must not keep the whole home
        from loading the way a missing registry does.
        """
        try:
            services = await self._client.command({"type": "get_services"})
        except HomeAssistantCommandError as err:
            _LOGGER.warning("Could not read the scripts' fields from Home Assistant: %s", err)
            return {}
        scripts = services.get(SCRIPT_DOMAIN) if isinstance(services, dict) else None
        return scripts if isinstance(scripts, dict) else {}

    async def _end(self, sub: Subscription) -> None:
        """Unsubscribe; a subscription Home Assistant already forgot is not a problem."""
        try:
            await sub.unsubscribe()
        except HomeAssistantError as err:
            _LOGGER.debug("Unsubscribing %s: %s", sub.message.get("type"), err)

    def _notify(self, entity_ids: list[str], model: HomeModel) -> None:
        for listener in list(self._listeners):
            try:
                listener(entity_ids, model)
            except Exception:  # boundary: one listener's bug must not stop the others
                _LOGGER.exception("Home change listener %r failed", listener)


def _changed_states(old: HomeModel | None, new: HomeModel) -> list[str]:
    """Entity ids whose state differs between two models (all of them if there was none)."""
    if old is None:
        return new.entity_ids()
    ids = dict.fromkeys([*old.entity_ids(), *new.entity_ids()])
    return [entity_id for entity_id in ids if old.state(entity_id) != new.state(entity_id)]
