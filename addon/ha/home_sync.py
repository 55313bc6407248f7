"""Keeps a :class:`~addon.home.model.live.HomeModel` in step with Home Assistant, across restarts.

On every (re)connect, and after registry changes, it takes a full snapshot: a new
``subscribe_entities`` (whose first event is every state) plus the registries, exposure
settings and ``get_config``, fetched concurrently; builds a new model; applies the state
changes that arrived meanwhile; and swaps it in with no ``await`` in between, so readers see
either the old home or the new one, never half of each. Between snapshots, each
``subscribe_entities`` event is applied to the current model in place.

Registry changes arrive as ``area_registry_updated``, ``floor_registry_updated``,
``device_registry_updated`` and ``entity_registry_updated`` events. One entity's change (an
``entity_registry_updated`` naming it: a rename, an area move, aliases, exposure) is fetched
alone and patched in (:mod:`addon.ha.entity_patches`, :meth:`HomeModel.with_entries`); the
others are debounced into a snapshot, since Home Assistant fires them in bursts (at start-up,
or one per entity when a device is added). Home Assistant 2025.4 has no event or subscription
for exposure: ``homeassistant/expose_entity`` stores the setting in the entity registry's
``options``, which fires ``entity_registry_updated``, so the patch covers it. Two changes fire
nothing and are only seen at the next snapshot: exposing a YAML entity without a
``unique_id``, and ``expose_new_entities/set``.

Read your writes: a turn takes its model from :meth:`HomeSync.fresh`, which waits (1 s at
most) until every change Home Assistant reported is in it. State changes never wait.

The snapshot is :func:`addon.ha.snapshot.build_model`; scripts' fields come from
``get_services``, or from each script's config when one broken integration makes Home Assistant
refuse that (:mod:`addon.ha.script_fields`). Editing a script reloads it (``service_removed``,
``service_registered``) without touching the entity registry, so those events, for scripts only,
refresh too.

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

from addon.errors import (
    HomeAssistantError,
    HomeAssistantUnavailableError,
)
from addon.ha.client import HomeAssistantClient, Subscription
from addon.ha.entity_feed import EntityFeed
from addon.ha.entity_patches import EntityPatches, Entries, patched_ids
from addon.ha.routines import RELOAD_EVENTS
from addon.ha.script_fields import SCRIPT_DOMAIN, ScriptFieldsReader
from addon.ha.snapshot import build_model, exposed_entities
from addon.home.model.live import HomeModel
from addon.home.model.records import RegistryEntry
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)

ENTITY_REGISTRY_EVENT = "entity_registry_updated"
REGISTRY_EVENTS = (
    "area_registry_updated",
    "floor_registry_updated",
    "device_registry_updated",
    "entity_registry_updated",
)
SERVICE_EVENTS = ("service_registered", "service_removed")
RETRY_MAX_S = 60.0
FRESH_WAIT_S = 1.0
"""The longest a turn waits for a change Home Assistant reported to reach the model."""


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
        fresh_wait: float = FRESH_WAIT_S,
    ) -> None:
        self._client = client
        self.fresh_wait = fresh_wait
        """How long :meth:`fresh` waits at most (tests on a loaded machine may lengthen it)."""
        self._debounce = debounce
        # Start-up fires registry events for minutes on a big home; without a cap the trailing
        # debounce would keep postponing the refresh for all of that time.
        self._debounce_max = debounce_max
        self._first_request = 0.0
        self._snapshot_timeout = snapshot_timeout
        # One for the life of the link, so a lasting get_services failure is logged once.
        self._script_fields = ScriptFieldsReader()
        # Right after Home Assistant starts some commands are not registered yet; try again.
        self._retry_interval = retry_interval
        self._retry_max = retry_max
        self._failures = 0
        self._stopped = False
        self._model: HomeModel | None = None
        self._ready = asyncio.Event()
        self._feed: EntityFeed | None = None
        self._entities_sub: Subscription | None = None
        self._registry_subs: list[Subscription] = []
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._remove_connect_listener: Callable[[], None] | None = None
        self._refreshes = 0
        # Snapshots asked for by reported changes, and how many of those the model has seen.
        self._wanted = 0
        self._seen = 0
        self._waiters: list[asyncio.Future[None]] = []
        self._patched_during_build: dict[str, RegistryEntry | None] | None = None
        self._patches = EntityPatches(
            client, apply=self._apply_entries, failed=self._patch_failed, settled=self._wake
        )

    @property
    def model(self) -> HomeModel | None:
        """The current model; None until the first snapshot. Do not keep it across an await."""
        return self._model

    @property
    def live(self) -> bool:
        """Whether the model is receiving state changes (False while Home Assistant is away)."""
        return self._entities_sub is not None and self._entities_sub.active

    async def recheck_exposure(self) -> HomeModel | None:
        """The home again if Home Assistant's exposure list changed since we read it, else None.

        A turn calls this when a target it needed was not exposed to Assist: exposing an
        entity without a ``unique_id`` fires no event, so the person who was just told to expose
        it, and did, would otherwise hear "not exposed" until the next snapshot. One command
        when nothing changed; a snapshot when something did. Home Assistant away or refusing:
        None, and the turn says what it found.
        """
        model = self._model
        if model is None or not self.live:
            return None
        try:
            listed = await self._client.command({"type": "homeassistant/expose_entity/list"})
        except HomeAssistantError as err:
            _LOGGER.warning("Could not read Home Assistant's exposure list again: %s", err)
            return None
        if model.lists_exposure(exposed_entities(listed)):
            return None
        _LOGGER.info("Exposure changed without an event (an entity without a unique ID)")
        try:
            await self.refresh()
        except HomeAssistantError as err:
            _LOGGER.warning("Could not take a new snapshot after an exposure change: %s", err)
            return None
        return self._model

    @property
    def refreshes(self) -> int:
        """How many snapshots have been swapped in; for tests and the dashboard."""
        return self._refreshes

    @property
    def patches(self) -> int:
        """How many registry patches have been applied; for tests and the freshness bench."""
        return self._patches.applied

    @property
    def behind(self) -> bool:
        """Whether a change Home Assistant reported has not reached the model yet."""
        return self._wanted > self._seen or self._patches.pending

    async def fresh(self) -> HomeModel | None:
        """The model once the changes Home Assistant reported are in it (bounded wait).

        First a ``ping``: Home Assistant answers on the same connection, in order, so every
        event it sent before the pong (a registry change whose acknowledgement someone already
        has, a state change) has been taken in by then. Then it waits for the patches and the
        snapshot those events asked for, starting a debounced snapshot at once. It returns at
        once when there is no model yet or the link is down (nothing can arrive), and without
        waiting for a snapshot while snapshots are failing (waiting would not help). After
        ``fresh_wait`` it returns the model as it is and logs what it was still waiting for: a
        turn is answered late by at most that much, never not at all. A turn that comes while
        the link is up but the first snapshot is still being taken (the add-on or Home
        Assistant just started) waits for that snapshot, as long, rather than being answered
        without the home.
        """
        if self._model is None and self._client.connected:
            try:
                await self.wait_ready(self.fresh_wait)
            except HomeAssistantUnavailableError as err:
                _LOGGER.warning("Answering without the home: %s", err)
        if self._model is None or not self.live:
            return self._model
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with asyncio.timeout(self.fresh_wait):
                await self._client.command({"type": "ping"})
                # A failed snapshot or a dropped link ends the wait: no news is coming soon.
                while self.behind and not self._failures and self.live:
                    if self._timer is not None:
                        # A turn is waiting for this change: no reason to wait out the debounce.
                        self._timer.cancel()
                        self._start_refresh()
                    waiter = loop.create_future()
                    self._waiters.append(waiter)
                    await waiter
        except TimeoutError:
            _LOGGER.warning(
                "The home model is still behind Home Assistant after %.0f ms (%s): answering "
                "with it as it is",
                (loop.time() - started) * 1000,
                self._pending_what(),
            )
        except HomeAssistantError as err:  # the link dropped: nothing more is coming now
            _LOGGER.debug("Not waiting for Home Assistant's changes: %s", err)
        if self.behind and self._failures:
            _LOGGER.warning(
                "The home model may be behind Home Assistant (%s; the last %d snapshots "
                "failed): answering with it as it is",
                self._pending_what(),
                self._failures,
            )
        return self._model

    def _pending_what(self) -> str:
        parts = []
        if self._wanted > self._seen:
            running = self._lock.locked() or bool(self._tasks)
            parts.append(f"a snapshot {'running' if running else 'scheduled'}")
        if self._patches.pending:
            parts.append(f"registry entries of {self._patches.waiting or 'some'} entities")
        return ", ".join(parts) or "no answer to a ping yet"

    def _wake(self) -> None:
        """Let every :meth:`fresh` look again (a snapshot or a patch landed, or gave up)."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    @property
    def settled(self) -> bool:
        """No refresh is scheduled, running or waiting to retry.

        Until the next event or reconnect the model is only updated in place, so tests check
        that an event did *not* cause a refresh by this, not by waiting a while and counting.
        """
        return (
            self._timer is None
            and not self._tasks
            and not self._lock.locked()
            and not self._patches.pending
        )

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
        await self._patches.stop()
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
        handlers = [(name, self._on_registry_event) for name in REGISTRY_EVENTS]
        handlers += [(name, self._on_service_event) for name in SERVICE_EVENTS]
        # What automations and scenes do is read with the snapshot (addon.ha.routines).
        handlers += [(name, self._on_registry_event) for name in RELOAD_EVENTS]
        self._registry_subs = [
            await self._client.subscribe(
                {"type": "subscribe_events", "event_type": event_type}, handler, resubscribe=False
            )
            for event_type, handler in handlers
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

    def _on_registry_event(self, event: JsonValue) -> None:
        event_type = event.get("event_type") if isinstance(event, dict) else event
        if event_type == ENTITY_REGISTRY_EVENT and self._model is not None:
            entity_ids = patched_ids(event)
            if entity_ids is not None:
                _LOGGER.debug("%s for %s: patching the home model", event_type, entity_ids)
                self._patches.add(entity_ids)
                return
        _LOGGER.debug("%s: refreshing the home model", event_type)
        self._want_snapshot()

    def _want_snapshot(self) -> None:
        """A reported change needs a whole snapshot: turns wait for it (see :meth:`fresh`)."""
        self._wanted += 1
        self._schedule(self._debounce)

    def _apply_entries(self, entries: Entries) -> None:
        """Swap in the model with these registry entries; no await, like a snapshot's swap."""
        if self._patched_during_build is not None:
            # The snapshot being built may predate these; they are applied to it too.
            self._patched_during_build.update(entries)
        model = self._model
        if model is None:
            return
        patched = model.with_entries(entries)
        if patched is not model and self._feed is not None:
            self._feed.attach(patched)
            self._model = patched
            _LOGGER.debug("Home model patched: %s", sorted(entries))

    def _patch_failed(self, why: str) -> None:
        _LOGGER.warning("Could not patch the home model (%s); taking a new snapshot", why)
        self._want_snapshot()

    def _on_service_event(self, event: JsonValue) -> None:
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
        self._want_snapshot()

    async def refresh(self) -> None:
        """Take a full snapshot and swap the new model in; one at a time."""
        async with self._lock:
            wanted = self._wanted
            self._patched_during_build = {}
            try:
                await self._snapshot(wanted)
            finally:
                self._patched_during_build = None
                self._wake()

    async def _snapshot(self, wanted: int) -> None:
        """Build and swap in one snapshot that sees the first ``wanted`` reported changes."""
        feed = EntityFeed()
        sub = await self._client.subscribe(
            {"type": "subscribe_entities"},
            feed,
            resubscribe=False,
            on_error=self._on_feed_error,
        )
        try:
            model = await build_model(
                self._client, feed, self._snapshot_timeout, self._script_fields
            )
        except BaseException:
            feed.retire()
            await self._end(sub)
            raise
        old_feed, old_sub = self._feed, self._entities_sub
        # No await from here to the swap: readers see the old home or the new one.
        if self._patched_during_build:
            model = model.with_entries(self._patched_during_build)
        feed.attach(model)
        if old_feed is not None:
            old_feed.retire()
        self._model, self._feed, self._entities_sub = model, feed, sub
        self._refreshes += 1
        self._seen = max(self._seen, wanted)
        self._failures = 0
        self._ready.set()
        _LOGGER.info(
            "Home model ready: %d entities (%d exposed to Assist), %d areas",
            len(model.entity_ids()),
            len(model.exposed_entities()),
            len(model.areas),
        )
        if old_sub is not None:
            await self._end(old_sub)

    async def _end(self, sub: Subscription) -> None:
        """Unsubscribe; a subscription Home Assistant already forgot is not a problem."""
        try:
            await sub.unsubscribe()
        except HomeAssistantError as err:
            _LOGGER.debug("Unsubscribing %s: %s", sub.message.get("type"), err)
