"""Contract: our intents do in a real Home Assistant 2025.4.4 exactly what Home Assistant's own do.

How the suite stays fast and fair:

* **Two demo homes side by side**, booted once for the module from the session's onboarded
  template (with the ``shopping_list`` to-do list): the *reference* home is driven through
  Home Assistant's own ``POST /api/intent/handle``; the *ours* home through our resolver and
  :class:`LiveExecutor` over the WebSocket, with a :class:`HomeModel` that
  :class:`HomeSync` builds from that home's own registries. Both get the same floors, areas
  and exposure first (:func:`contract.arrange_home`).
* **No reset between cases; lockstep instead.** Demo entities keep internal state a REST
  ``POST /api/states`` cannot restore, so rather than restoring, every case runs on both homes
  in the same order (the table in :mod:`contract_cases` is a script: pause before unpause,
  …). Before each case the test *checks* that both homes show the same states (waiting up to a
  few seconds for timers such as a vacuum docking), so every case starts from the same known
  states on both sides; after it, once nothing is opening, closing, locking or unlocking, it
  compares every light, switch, cover, valve, lock, climate, media player, fan, vacuum and
  to-do list (state and attributes, minus position clocks and image tokens) and the
  ``success``/``failed`` targets.
* **Virtual against live**: each case's starting model is kept; a second test replays the case
  on a :class:`VirtualExecutor` over that copy and checks it ends where the live home ended,
  for the entities the case touched.

Home Assistant's ``/api/intent/handle`` applies no exposure filter (it passes no assistant),
while Assist and its LLM API do; the cases therefore only target exposed entities, and
separate tests check that an unexposed lock is never acted on by our side, whatever it is
called. Query answers are compared by type and targets: Home Assistant's REST answer carries
no states.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.actions.handlers import handle_intent
from addon.home.actions.live import LiveExecutor
from addon.home.actions.response import IntentResult
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.home.model.release import Release
from devtools.home_assistant import HomeAssistantProcess
from tests.home.actions.contract import (
    UNEXPOSED_LOCK,
    Outcome,
    Snapshot,
    arrange_home,
    differences,
    home_assistant_outcome,
    loosely,
    our_outcome,
    plain,
    settled,
    snapshot,
    with_failures,
)
from tests.home.actions.contract_cases import CASES, Case

pytestmark = [pytest.mark.homeassistant, pytest.mark.asyncio(loop_scope="module")]

# What the virtual executor models per domain, beyond the state itself.
MODELLED = {
    "light": (
        "brightness",
        "color_mode",
        "hs_color",
        "rgb_color",
        "xy_color",
        "color_temp_kelvin",
        "color_temp",
        "rgbw_color",
    ),
    "cover": ("current_position",),
    "climate": ("temperature", "fan_mode"),
    "media_player": ("volume_level", "is_volume_muted", "media_track", "media_episode"),
    "fan": ("percentage",),
}


@dataclass(slots=True)
class Record:
    """What a case left for the virtual comparison."""

    before: HomeModel
    result: IntentResult
    after: Snapshot


@dataclass(slots=True)
class Rig:
    """Both homes, our client and model of the *ours* home, and the records of each case."""

    reference: HomeAssistantProcess
    ours: HomeAssistantProcess
    session: aiohttp.ClientSession
    sync: HomeSync
    live: LiveExecutor
    records: dict[str, Record] = field(default_factory=dict)

    def model(self) -> HomeModel:
        assert self.sync.model is not None
        return self.sync.model


@pytest.fixture(scope="module")
def homes(
    home_assistant_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[HomeAssistantProcess, HomeAssistantProcess]]:
    """Two fresh demo homes with a shopping list, booted in parallel (about 4 s)."""
    root = tmp_path_factory.mktemp("contract")
    pair = tuple(
        HomeAssistantProcess.from_template(home_assistant_template, root / n, shopping_list=True)
        for n in ("reference", "ours")
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda process: process.start(), pair))
    try:
        yield pair[0], pair[1]
    finally:
        for process in pair:
            process.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def rig(homes: tuple[HomeAssistantProcess, HomeAssistantProcess]) -> AsyncIterator[Rig]:
    """Both homes arranged alike, and our client, model and live executor on the *ours* one."""
    reference, ours = homes
    await asyncio.gather(arrange_home(reference), arrange_home(ours))
    session = aiohttp.ClientSession()
    client = HomeAssistantClient(session, ours.websocket_url, f"{ours.url}/api", ours.token)
    sync = HomeSync(client)
    await sync.start()
    await client.start()
    await sync.wait_ready(30.0)
    try:
        yield Rig(reference, ours, session, sync, LiveExecutor(client))
    finally:
        await sync.stop()
        await client.stop()
        await session.close()


async def same_start(rig: Rig, patience: float = 5.0) -> None:
    """Wait until both homes show the same states; fail with the differences if they never do."""
    deadline = time.monotonic() + patience
    while True:
        left, right = await asyncio.gather(settled(rig.reference), settled(rig.ours))
        found = differences(left, right)
        if not found:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"the homes differ before the case: {found}")
        await asyncio.sleep(0.25)


async def reference_outcome(rig: Rig, case: Case) -> Outcome:
    """Home Assistant's outcome: its intent handler, or the later handler's service call."""
    if case.reference is None:
        return await home_assistant_outcome(rig.reference, rig.session, case.intent, case.slots)
    ref = case.reference
    await rig.reference.websocket_command(
        {
            "type": "call_service",
            "domain": ref.domain,
            "service": ref.service,
            "service_data": ref.data,
            "target": {"entity_id": list(ref.entity_ids)},
        }
    )
    states = await snapshot(rig.reference)
    entities = [("entity", states[e][1]["friendly_name"], e) for e in ref.entity_ids]
    areas = [("area", name, area_id) for area_id, name in ref.areas]
    return Outcome("action_done", tuple(sorted(areas + entities)))


async def our_live_result(rig: Rig, case: Case) -> tuple[HomeModel, IntentResult]:
    """Our handling on the *ours* home, from a fresh model; returns the model it started from."""
    await rig.sync.refresh()
    before = rig.model().copy()
    result = await handle_intent(case.intent, case.slots, model=rig.model(), executor=rig.live)
    await rig.live.drain()
    return before, result


def skip_if_newer(case: Case, ha_version: str) -> None:
    """Skip a case whose intent this release's Home Assistant does not have."""
    if case.since is not None and Release.parse(ha_version) < Release.parse(case.since):
        pytest.skip(f"{case.intent} arrived in Home Assistant {case.since}")


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_same_outcome_and_states_as_home_assistant(
    rig: Rig, case: Case, ha_version: str
) -> None:
    """The case gives the same targets and leaves the same states as Home Assistant's handler."""
    skip_if_newer(case, ha_version)
    await same_start(rig)
    expected, (before, result) = await asyncio.gather(
        reference_outcome(rig, case), our_live_result(rig, case)
    )
    # Covers move a step a second without saying so; wait for them to stop.
    steady = 1.1 if any(t.id and t.id.startswith("cover.") for t in result.success) else 0.0
    after_reference, after_ours = await asyncio.gather(
        settled(rig.reference, steady=steady), settled(rig.ours, steady=steady)
    )
    rig.records[case.id] = Record(before, result, after_ours)
    if case.ha_misattributes_failures:
        assert loosely(our_outcome(result)) == loosely(expected), result.message
    else:
        expected = with_failures(expected, case.ha_reports_success_for)
        assert our_outcome(result) == expected, result.message
    assert differences(after_reference, after_ours) == []


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_virtual_executor_ends_where_the_live_one_did(
    rig: Rig, case: Case, ha_version: str
) -> None:
    """Replayed on a copy of its starting model, the case ends in the live end states."""
    skip_if_newer(case, ha_version)
    record = rig.records.get(case.id)
    if record is None:
        pytest.fail("the live run of this case did not complete")
    virtual = VirtualExecutor(record.before)
    result = await handle_intent(case.intent, case.slots, model=virtual.model, executor=virtual)
    assert our_outcome(result) == our_outcome(record.result)
    touched = {target.id for target in (*result.success, *result.failed) if target.id}
    found = []
    for entity_id in sorted(touched & set(record.after)):
        live_state, live_attributes = record.after[entity_id]
        current = virtual.model.state(entity_id)
        assert current is not None
        shown: dict[str, Any] = {"state": current.state}
        expected: dict[str, Any] = {"state": live_state}
        if case.virtual == "full":
            for key in MODELLED.get(entity_id.partition(".")[0], ()):
                if key in live_attributes:
                    expected[key] = live_attributes[key]
                    shown[key] = plain(current.attributes.get(key))
        if shown != expected:
            found.append(f"{entity_id}: virtual {shown} != live {expected}")
    assert found == []


async def _state_of(process: HomeAssistantProcess, entity_id: str) -> str:
    return str((await process.state(entity_id))["state"])


async def test_unexposed_lock_by_name_is_never_acted_on(rig: Rig) -> None:
    """Naming the unexposed lock gets no_valid_targets, and the lock does not move."""
    await rig.sync.refresh()
    result = await handle_intent(
        "HassTurnOn", {"name": "Poorly Installed Door"}, model=rig.model(), executor=rig.live
    )
    await rig.live.drain()
    assert result.error_code is not None
    assert result.error_code.value == "no_valid_targets"
    assert await _state_of(rig.ours, UNEXPOSED_LOCK) == "unlocked"


async def test_unexposed_lock_by_entity_id_is_never_acted_on(rig: Rig) -> None:
    """Passing the unexposed lock's entity id as the name does not reach it either."""
    await rig.sync.refresh()
    result = await handle_intent(
        "HassTurnOn", {"name": UNEXPOSED_LOCK}, model=rig.model(), executor=rig.live
    )
    await rig.live.drain()
    assert result.is_error
    assert await _state_of(rig.ours, UNEXPOSED_LOCK) == "unlocked"


async def test_domain_wide_call_skips_the_unexposed_lock(rig: Rig) -> None:
    """All locks by domain: the exposed ones are acted on, the unexposed one is not."""
    await rig.sync.refresh()
    result = await handle_intent(
        "HassTurnOff", {"domain": ["lock"]}, model=rig.model(), executor=rig.live
    )
    await rig.live.drain()
    assert UNEXPOSED_LOCK not in {target.id for target in result.success}
    assert "lock.front_door" in {target.id for target in result.success}
    await settled(rig.ours)
    assert await _state_of(rig.ours, UNEXPOSED_LOCK) == "unlocked"


async def test_live_call_answers_while_the_lock_motor_runs(rig: Rig) -> None:
    """Like HA's 0.2 s wait: the intent answers before the demo lock's 2 s motor finishes."""
    await rig.sync.refresh()
    result = await handle_intent(
        "HassTurnOn", {"name": "Front Door"}, model=rig.model(), executor=rig.live
    )
    assert [target.id for target in result.success] == ["lock.front_door"]
    # Still "locking" when the answer is in: the intent did not wait for the motor.
    assert await _state_of(rig.ours, "lock.front_door") == "locking"
    await rig.live.drain()
    assert await _state_of(rig.ours, "lock.front_door") == "locked"


async def test_live_executor_reads_states_and_services(rig: Rig) -> None:
    """The live executor reads a state back and knows which services exist."""
    read = await rig.live.state("light.ceiling_lights")
    assert read is not None
    assert read.entity_id == "light.ceiling_lights"
    assert await rig.live.state("light.nowhere") is None
    assert await rig.live.has_service("lock", "lock")
    assert not await rig.live.has_service("vacuum", "turn_on")
