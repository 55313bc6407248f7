"""HomeSync against the scripted server: snapshot, live diffs, debounced registry refresh."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.model.live import HomeModel
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.ha.waiting import until

REGISTRY_EVENT_TYPES = ("area_registry_updated", "entity_registry_updated")
KITCHEN_AREA = {"area_id": "kitchen", "name": "Kitchen", "aliases": [], "floor_id": None}
KITCHEN_LIGHT = {"entity_id": "light.kitchen", "area_id": "kitchen", "platform": "demo"}
KITCHEN_STATE = {"s": "on", "a": {"friendly_name": "Kitchen Light"}, "c": "ctx1", "lc": 1.0}
WAKE_UP = {
    "name": "Wake up",
    "description": "Opens the day",
    "fields": {"minutes": {"required": True, "selector": {"number": {"min": 0.0, "max": 60.0}}}},
    "response": {"optional": True},
}


class ScriptedHome:
    """Answers HomeSync's commands on the fake server with a one-light home in HA's shapes."""

    def __init__(self, fake_ha: FakeHomeAssistant) -> None:
        self.area_name = "Kitchen"
        self.state = dict(KITCHEN_STATE)
        self.hold_details = asyncio.Event()
        self.hold_details.set()
        self.entity_subscriptions: list[tuple[FakeConnection, int]] = []
        self.fail_next: set[str] = set()
        self.withhold_snapshots = 0
        self.scripts: dict[str, Any] = {"wake_up": WAKE_UP}
        # expose_entity/list's answer; exposing an entity with no unique id changes only this.
        self.exposed: dict[str, Any] = {"light.kitchen": {"conversation": True}}
        # get_entries' answers (extended_dict), by entity id; a test edits them as the UI would.
        self.entries: dict[str, dict[str, Any]] = {
            "light.kitchen": {
                **KITCHEN_LIGHT,
                "aliases": [],
                "options": {"conversation": {"should_expose": True}},
            }
        }
        answers = {
            "get_config": lambda: {"location_name": "Scripted", "language": "en"},
            "config/area_registry/list": lambda: [{**KITCHEN_AREA, "name": self.area_name}],
            "config/floor_registry/list": list,
            "config/device_registry/list": list,
            "config/entity_registry/list": lambda: [KITCHEN_LIGHT],
            "homeassistant/expose_entity/list": lambda: {"exposed_entities": self.exposed},
            "homeassistant/expose_new_entities/get": lambda: {"expose_new": True},
            "get_services": lambda: {
                "light": {"turn_on": {"name": "Turn on", "fields": {}}},
                "script": {**self.scripts, "reload": {"name": "Reload", "fields": {}}},
            },
        }
        for command_type, answer in answers.items():
            fake_ha.handlers[command_type] = self._answer_with(command_type, answer)
        fake_ha.handlers["config/entity_registry/get_entries"] = self._details
        fake_ha.handlers["subscribe_entities"] = self._subscribe_entities

    def _answer_with(self, command_type: str, answer: Any) -> Any:
        async def handle(connection: FakeConnection, message: dict[str, Any]) -> None:
            if command_type in self.fail_next:
                self.fail_next.discard(command_type)
                await connection.error(message["id"], "unknown_command", "Unknown command.")
            else:
                await connection.result(message["id"], answer())

        return handle

    async def _details(self, connection: FakeConnection, message: dict[str, Any]) -> None:
        await self.hold_details.wait()
        if "config/entity_registry/get_entries" in self.fail_next:
            self.fail_next.discard("config/entity_registry/get_entries")
            await connection.error(message["id"], "unknown_error", "Scripted failure.")
            return
        entries = self.entries
        details = {entity_id: entries.get(entity_id) for entity_id in message["entity_ids"]}
        await connection.result(message["id"], details)

    async def _subscribe_entities(
        self, connection: FakeConnection, message: dict[str, Any]
    ) -> None:
        connection.subscriptions[message["id"]] = message
        self.entity_subscriptions.append((connection, message["id"]))
        if self.withhold_snapshots:
            self.withhold_snapshots -= 1
            await connection.result(message["id"])
            return
        await connection.send(
            [
                {"id": message["id"], "type": "result", "success": True, "result": None},
                {
                    "id": message["id"],
                    "type": "event",
                    "event": {"a": {"light.kitchen": self.state}},
                },
            ]
        )

    async def send_diff(self, event: dict[str, Any]) -> None:
        """Send a subscribe_entities event on the newest entity subscription."""
        connection, sub_id = self.entity_subscriptions[-1]
        await connection.event(sub_id, event)

    async def fire_registry_event(
        self, connection: FakeConnection, event_type: str, data: dict[str, Any] | None = None
    ) -> None:
        """Send an event to the subscription for ``event_type``."""
        await self.fire_registry_burst(connection, [(event_type, data)])

    @staticmethod
    async def fire_registry_burst(
        connection: FakeConnection, events: list[tuple[str, dict[str, Any] | None]]
    ) -> None:
        """Send several events in one coalesced frame, as Home Assistant batches them.

        The client handles a frame's messages with no await in between, so no time passes
        between them whatever the machine's load: a debounce must see them as one burst.
        """
        frame = [
            {"id": sub_id, "type": "event", "event": {"event_type": event_type, "data": data or {}}}
            for event_type, data in events
            for sub_id, message in connection.subscriptions.items()
            if message.get("event_type") == event_type
        ]
        await connection.send(frame)


@pytest.fixture
def home(fake_ha: FakeHomeAssistant) -> ScriptedHome:
    """The one-light home on the scripted server."""
    return ScriptedHome(fake_ha)


@pytest.fixture
async def linked(make_client: MakeClient, home: ScriptedHome) -> HomeAssistantClient:
    """A client not yet started, with the scripted home in place."""
    return await make_client(start=False)


@pytest.fixture
async def sync(linked: HomeAssistantClient) -> AsyncIterator[HomeSync]:
    """A HomeSync whose client has connected and whose first model is built."""
    home_sync = HomeSync(linked, debounce=0.1, retry_interval=0.2)
    await home_sync.start()
    await linked.start()
    await linked.wait_connected(5.0)
    yield home_sync
    await home_sync.stop()


def _entity_subscriptions(connection: FakeConnection) -> int:
    return sum(m["type"] == "subscribe_entities" for m in connection.subscriptions.values())


def _current(sync: HomeSync) -> HomeModel:
    assert sync.model is not None
    return sync.model


def _state(model: HomeModel, entity_id: str) -> str | None:
    state = model.state(entity_id)
    return None if state is None else state.state


async def test_an_exposure_recheck_with_nothing_changed_takes_no_snapshot(sync: HomeSync) -> None:
    """A turn told "not exposed" asks again; the same list answers None and costs one command."""
    before = sync.refreshes
    assert await sync.recheck_exposure() is None
    assert sync.refreshes == before


async def test_an_exposure_change_nobody_announced_is_read_on_a_recheck(
    sync: HomeSync, home: ScriptedHome
) -> None:
    """An entity without a unique id exposed (no event): the recheck takes a new snapshot."""
    before = sync.refreshes
    home.exposed = {**home.exposed, "lock.front_door": {"conversation": True}}
    newer = await sync.recheck_exposure()
    assert newer is not None
    assert newer is sync.model
    assert sync.refreshes == before + 1
    assert await sync.recheck_exposure() is None


async def test_model_is_built_before_connected(sync: HomeSync) -> None:
    """Once the client is connected the model holds the snapshot's states and areas."""
    model = _current(sync)
    state = model.state("light.kitchen")
    assert state is not None
    assert (state.state, model.areas["kitchen"].name, sync.live) == ("on", "Kitchen", True)


async def test_a_diff_updates_the_model_in_place(sync: HomeSync, home: ScriptedHome) -> None:
    """A state change event changes the model itself: no new snapshot, the same model."""
    model = _current(sync)
    await home.send_diff({"c": {"light.kitchen": {"+": {"s": "off", "lc": 2.0}}}})
    await until(lambda: _state(model, "light.kitchen") == "off")
    assert (_current(sync) is model, sync.refreshes) == (True, 1)


async def test_diffs_during_build_are_applied(
    linked: HomeAssistantClient, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """A change that arrives while the registries are still loading is not lost."""
    home.hold_details.clear()
    home_sync = HomeSync(linked)
    await home_sync.start()
    await linked.start()
    await until(lambda: bool(home.entity_subscriptions))
    await home.send_diff({"c": {"light.kitchen": {"+": {"s": "off", "lc": 2.0}}}})
    home.hold_details.set()
    await home_sync.wait_ready(5.0)
    state = _current(home_sync).state("light.kitchen")
    assert state is not None
    assert state.state == "off"
    await home_sync.stop()


async def test_registry_events_are_debounced_into_one_refresh(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """A burst of registry events leads to a single new snapshot with the new names."""
    home.area_name = "Cookhouse"
    burst = [(event_type, None) for event_type in REGISTRY_EVENT_TYPES * 3]
    await home.fire_registry_burst(fake_ha.latest, burst)
    await until(lambda: _current(sync).areas["kitchen"].name == "Cookhouse")
    await until(lambda: sync.settled)
    assert sync.refreshes == 2


async def test_old_snapshot_subscription_is_ended(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """After a refresh only one subscribe_entities stays open on the server."""
    await home.fire_registry_event(fake_ha.latest, "area_registry_updated")
    await until(lambda: sync.refreshes == 2)
    await until(lambda: _entity_subscriptions(fake_ha.latest) == 1)


async def test_failed_snapshot_is_retried(linked: HomeAssistantClient, home: ScriptedHome) -> None:
    """When a command fails (Home Assistant still starting) the snapshot is tried again."""
    home.fail_next.add("homeassistant/expose_entity/list")
    home_sync = HomeSync(linked, retry_interval=0.1)
    await home_sync.start()
    await linked.start()
    await home_sync.wait_ready(5.0)
    assert home_sync.refreshes == 1
    await home_sync.stop()


async def test_reconnect_takes_new_snapshot(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant, linked: HomeAssistantClient
) -> None:
    """After the link drops and returns the model is rebuilt from a new snapshot."""
    home.state = {**KITCHEN_STATE, "s": "off"}
    await fake_ha.drop_all()
    await fake_ha.wait_for_connection(2)
    await linked.wait_connected(5.0)
    state = _current(sync).state("light.kitchen")
    assert (sync.refreshes, state and state.state, sync.live) == (2, "off", True)


async def test_endless_registry_events_still_refresh(
    linked: HomeAssistantClient, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """Events closer together than the debounce do not postpone the refresh past its cap."""
    home_sync = HomeSync(linked, debounce=0.2, debounce_max=0.5)
    await home_sync.start()
    await linked.start()
    await home_sync.wait_ready(5.0)
    home.area_name = "Cookhouse"
    for _ in range(15):  # 1.5 s of events, 0.1 s apart
        await home.fire_registry_event(fake_ha.latest, "area_registry_updated")
        await asyncio.sleep(0.1)
        if _current(home_sync).areas["kitchen"].name == "Cookhouse":
            break
    assert _current(home_sync).areas["kitchen"].name == "Cookhouse"
    await home_sync.stop()


async def test_a_reconnect_brings_what_changed_meanwhile(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant, linked: HomeAssistantClient
) -> None:
    """A state that changed while the link was down is in the snapshot taken on reconnect."""
    home.state = {**KITCHEN_STATE, "s": "off"}
    await fake_ha.drop_all()
    await fake_ha.wait_for_connection(2)
    await linked.wait_connected(5.0)
    await until(lambda: sync.refreshes == 2)
    assert _state(_current(sync), "light.kitchen") == "off"


async def test_a_turn_while_the_first_snapshot_is_taken_waits_for_it(
    linked: HomeAssistantClient, home: ScriptedHome
) -> None:
    """Connected, no model yet (the first snapshot is tried again): ``fresh`` waits for it."""
    home.withhold_snapshots = 1
    home_sync = HomeSync(linked, snapshot_timeout=0.5, retry_interval=0.1, fresh_wait=30.0)
    await home_sync.start()
    await linked.start()
    await until(lambda: linked.connected)
    assert home_sync.model is None
    model = await home_sync.fresh()
    assert (model is not None, len(home.entity_subscriptions)) == (True, 2)
    await home_sync.stop()


async def test_with_home_assistant_away_a_turn_does_not_wait(
    linked: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Not connected at all: nothing is coming soon, so ``fresh`` answers None at once."""
    home_sync = HomeSync(linked, fresh_wait=30.0)
    await home_sync.start()
    assert await asyncio.wait_for(home_sync.fresh(), 5.0) is None
    await home_sync.stop()


async def test_missing_snapshot_is_retried(linked: HomeAssistantClient, home: ScriptedHome) -> None:
    """A subscribe_entities that never sends its snapshot times out and is tried again."""
    home.withhold_snapshots = 1
    home_sync = HomeSync(linked, snapshot_timeout=0.2, retry_interval=0.1)
    await home_sync.start()
    await linked.start()
    await home_sync.wait_ready(5.0)
    assert len(home.entity_subscriptions) == 2
    await home_sync.stop()


async def test_scripts_fields_arrive_with_the_snapshot(sync: HomeSync) -> None:
    """get_services' scripts are in the model, without the script integration's own services."""
    scripts = _current(sync).scripts
    assert list(scripts) == ["wake_up"]
    assert (scripts["wake_up"].description, scripts["wake_up"].fields[0].key) == (
        "Opens the day",
        "minutes",
    )


async def test_each_domains_services_arrive_with_the_snapshot(sync: HomeSync) -> None:
    """get_services' service names, per domain, are in the model (the Safety page offers them)."""
    assert dict(_current(sync).services) == {
        "light": ("turn_on",),
        "script": ("reload", "wake_up"),
    }


async def test_a_reloaded_script_refreshes_its_fields(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """A script's service registered again (an edit reloads it) brings its new description."""
    home.scripts = {"wake_up": {**WAKE_UP, "description": "Starts the morning"}}
    data = {"domain": "script", "service": "wake_up"}
    reload = [("service_removed", data), ("service_registered", data)]
    await home.fire_registry_burst(fake_ha.latest, reload)
    await until(lambda: _current(sync).scripts["wake_up"].description == "Starts the morning")
    await until(lambda: sync.settled)
    assert sync.refreshes == 2


async def test_other_domains_services_do_not_refresh(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant, linked: HomeAssistantClient
) -> None:
    """Services of other integrations come and go without a new snapshot."""
    data = {"domain": "light", "service": "turn_on"}
    await home.fire_registry_event(fake_ha.latest, "service_registered", data)
    await linked.command({"type": "get_config"})  # answered after the event: it was handled
    assert (sync.settled, sync.refreshes) == (True, 1)


async def test_refused_get_services_still_builds_the_model(
    linked: HomeAssistantClient, home: ScriptedHome
) -> None:
    """Without get_services the home loads at once; scripts then simply have no fields."""
    home.fail_next.add("get_services")
    home_sync = HomeSync(linked, retry_interval=0.1)
    await home_sync.start()
    await linked.start()
    await home_sync.wait_ready(5.0)
    model = _current(home_sync)
    assert (home_sync.refreshes, dict(model.scripts), model.state("light.kitchen") is not None) == (
        1,
        {},
        True,
    )
    assert dict(model.services) == {}
    await home_sync.stop()
