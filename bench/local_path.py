"""Latency of commands handled locally, end to end through the agent, beside bare hassil.

Three measurements on the same sentences, side by side in each round:

* agent, end to end (the headline): ``Agent.process`` with ``local_first`` on and no model
  (``llm=None``), the virtual executor acting on the agent's own copy of the home as the live
  executor, and a real SQLite store (migrated, in a temporary directory). This is everything a
  locally answered turn costs: finding the conversation (a new id each turn, so one history
  read from the store), ``run_local_turn`` (recognise, act, speak) and the store write of the
  turn with its tool call. The sub-row "of which store write" is the turn's wall time minus the
  ``total`` the agent records before writing (read back from the stored turn). The outcome
  check the agent starts after the reply is awaited between turns, outside the timed window.
* local path: the core of it without the agent around it, ``LocalMatcher.recognize`` →
  ``handle_intent`` with the virtual executor on another copy of the home → ``render_speech``,
  with its three steps as sub-rows.
* the floor: hassil's ``recognize_best`` alone, with every English intent and the whole
  unfiltered name list, the way the facts file measured it (about 3 ms).
* misses: ``LocalMatcher.recognize`` (and bare hassil) on sentences no template matches, which
  every turn the model answers pays before the model is asked.

The home is demo-like: Home Assistant's ``demo`` entity names and areas, padded with room
sensors and unexposed helpers to about 100 entities. Everything is warmed up first (template
parsing, the first slot lists, Jinja compilation, the store's connection pool), so the numbers
are steady-state. Target: agent end to end p50 ≤ 10 ms. The last line is one JSON object:
``p50_ms`` is the agent figure, ``hassil_p50_ms`` bare hassil, ``miss_p50_ms`` a miss.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from hassil import Intents
from hassil.intents import SlotList, TextSlotList
from hassil.recognize import recognize_best
from home_assistant_intents import get_intents
from sqlalchemy import select

from addon.agent.conversation import ConversationRequest
from addon.agent.service import Agent
from addon.config.settings import Options
from addon.home.actions.handlers import handle_intent
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.home.model.source import FixedHome as StaticHome
from addon.local.matcher import LocalMatcher, answered_locally
from addon.local.responses import render_speech
from addon.store.database import Store
from addon.store.models import Turn
from addon.store.turns import ConversationRecords

ROUNDS = 25
TARGET_P50_MS = 10.0

SENTENCES = (
    "turn on the kitchen lights",
    "turn off the bed light",
    "turn off the living room lights",
    "turn on the lights in the office",
    "turn off the lights upstairs",
    "set the office rgbw lights brightness to 50%",
    "set bedroom brightness to 30%",
    "set the kitchen lights to red",
    "what is the temperature in the bedroom",
    "set the heatpump to 21 degrees",
    "lock the front door",
    "unlock the kitchen door",
    "open the garage door",
    "close the kitchen window",
    "turn on the decorative lights",
    "turn off the ac",
    "turn on the living room fan",
    "next track on the walkman",
    "set the walkman volume to 40%",
    "add milk to the shopping list",
    "what time is it",
)

MISSES = (
    "could you brighten things up with the Kitchen Lamp",
    "what's the weather like tomorrow",
    "tell me a joke",
    "question 17",
    "what's the capital of France",
    "remind me to call mum at five",
)


# --- The demo-like home ---------------------------------------------------------------------

FLOORS: list[dict[str, Any]] = [
    {"floor_id": "ground_floor", "name": "Ground Floor", "aliases": ["Downstairs"], "level": 0},
    {"floor_id": "first_floor", "name": "First Floor", "aliases": ["Upstairs"], "level": 1},
    {"floor_id": "outside", "name": "Outside", "aliases": [], "level": None},
]
AREAS = [
    ("living_room", "Living Room", "ground_floor", ["Lounge"]),
    ("kitchen", "Kitchen", "ground_floor", []),
    ("garage", "Garage", "ground_floor", []),
    ("bedroom", "Bedroom", "first_floor", ["Master Bedroom"]),
    ("office", "Office", "first_floor", ["Study"]),
    ("garden", "Garden", "outside", []),
]
_LIGHT = {"supported_color_modes": ["hs", "color_temp"], "color_mode": "hs", "brightness": 180}
_COVER = {"supported_features": 15, "current_position": 50}
_CLIMATE = {
    "hvac_modes": ["off", "heat", "cool", "auto"],
    "current_temperature": 22,
    "temperature": 21,
    "supported_features": 385,
}
_MEDIA = {"supported_features": 152511, "volume_level": 0.3}
_FAN = {"supported_features": 49, "percentage": 33}
_VALVE = {"supported_features": 7, "current_position": 0}

# entity_id, name, area, state, attributes, exposed explicitly (None: Home Assistant's default)
DEMO: list[tuple[str, str, str | None, str, dict[str, Any], bool | None]] = [
    ("light.bed_light", "Bed Light", "bedroom", "off", _LIGHT, None),
    ("light.ceiling_lights", "Ceiling Lights", "living_room", "on", _LIGHT, None),
    ("light.kitchen_lights", "Kitchen Lights", "kitchen", "on", _LIGHT, None),
    ("light.office_rgbw_lights", "Office RGBW Lights", "office", "on", _LIGHT, None),
    ("light.living_room_rgbww_lights", "Living Room RGBWW Lights", "living_room", "on", _LIGHT,
     None),
    ("light.entrance_color_white_lights", "Entrance Color + White Lights", None, "on", _LIGHT,
     None),
    ("switch.decorative_lights", "Decorative Lights", "living_room", "on", {}, None),
    ("switch.ac", "AC", "office", "off", {}, None),
    ("cover.kitchen_window", "Kitchen Window", "kitchen", "open", _COVER, None),
    ("cover.hall_window", "Hall Window", "living_room", "open", _COVER, None),
    ("cover.living_room_window", "Living Room Window", "living_room", "open", _COVER, None),
    ("cover.garage_door", "Garage Door", "garage", "closed",
     {"supported_features": 3, "device_class": "garage"}, None),
    ("cover.pergola_roof", "Pergola Roof", "garden", "open", _COVER, None),
    ("climate.heatpump", "HeatPump", "living_room", "heat", _CLIMATE, None),
    ("climate.hvac", "Hvac", "office", "cool", _CLIMATE, None),
    ("climate.ecobee", "Ecobee", "bedroom", "heat", _CLIMATE, None),
    ("lock.front_door", "Front Door", None, "locked", {"supported_features": 0}, True),
    ("lock.kitchen_door", "Kitchen Door", "kitchen", "unlocked", {"supported_features": 0}, True),
    ("lock.poorly_installed_door", "Poorly Installed Door", None, "unlocked", {}, True),
    ("lock.openable_lock", "Openable Lock", None, "locked", {"supported_features": 1}, True),
    ("fan.living_room_fan", "Living Room Fan", "living_room", "on", _FAN, None),
    ("fan.ceiling_fan", "Ceiling Fan", "bedroom", "off", _FAN, None),
    ("fan.percentage_full_fan", "Percentage Full Fan", None, "off", _FAN, None),
    ("fan.percentage_limited_fan", "Percentage Limited Fan", None, "off", _FAN, None),
    ("fan.preset_only_limited_fan", "Preset Only Limited Fan", None, "off", {}, None),
    ("media_player.living_room", "Living Room", "living_room", "playing", _MEDIA, None),
    ("media_player.bedroom", "Bedroom", "bedroom", "playing", _MEDIA, None),
    ("media_player.walkman", "Walkman", None, "playing", _MEDIA, None),
    ("media_player.kitchen", "Kitchen", "kitchen", "playing", _MEDIA, None),
    ("media_player.lounge_room", "Lounge room", None, "playing", _MEDIA, None),
    ("media_player.browse", "Browse", None, "playing", _MEDIA, None),
    ("vacuum.0_ground_floor", "0_Ground_floor", None, "docked", {"supported_features": 0}, None),
    ("vacuum.1_first_floor", "1_First_floor", None, "docked", {"supported_features": 0}, None),
    ("vacuum.2_second_floor", "2_Second_floor", None, "docked", {"supported_features": 0}, None),
    ("vacuum.3_third_floor", "3_Third_floor", None, "docked", {"supported_features": 0}, None),
    ("vacuum.4_fourth_floor", "4_Fourth_floor", None, "docked", {"supported_features": 0}, None),
    ("vacuum.5_fifth_floor", "5_Fifth_floor", None, "docked", {"supported_features": 0}, None),
    ("valve.front_garden", "Front Garden", "garden", "closed", _VALVE, True),
    ("valve.orchard", "Orchard", "garden", "closed", _VALVE, True),
    ("valve.back_garden", "Back Garden", "garden", "closed", _VALVE, True),
    ("valve.trees", "Trees", "garden", "closed", _VALVE, True),
    ("weather.demo_weather_south", "Demo Weather South", None, "sunny",
     {"temperature": 21.6, "temperature_unit": "°C"}, True),
    ("weather.demo_weather_north", "Demo Weather North", None, "rainy",
     {"temperature": -3.5, "temperature_unit": "°C"}, True),
    ("humidifier.humidifier", "Humidifier", "bedroom", "on", {"humidity": 68}, None),
    ("humidifier.dehumidifier", "Dehumidifier", "garage", "on", {"humidity": 54}, None),
    ("humidifier.hygrostat", "Hygrostat", None, "on", {"humidity": 50}, None),
    ("water_heater.demo_water_heater", "Demo Water Heater", "garage", "eco", {}, None),
    ("water_heater.demo_water_heater_celsius", "Demo Water Heater Celsius", None, "eco", {}, None),
    ("todo.shopping_list", "Shopping List", "kitchen", "2", {"supported_features": 1}, None),
    ("sensor.outside_temperature", "Outside Temperature", "garden", "15.6",
     {"device_class": "temperature", "unit_of_measurement": "°C"}, None),
    ("sensor.outside_humidity", "Outside Humidity", "garden", "54",
     {"device_class": "humidity", "unit_of_measurement": "%"}, None),
    ("sensor.carbon_monoxide", "Carbon monoxide", "kitchen", "54",
     {"device_class": "carbon_monoxide", "unit_of_measurement": "ppm"}, None),
    ("sensor.carbon_dioxide", "Carbon dioxide", "living_room", "54",
     {"device_class": "carbon_dioxide", "unit_of_measurement": "ppm"}, None),
    ("sensor.power_consumption", "Power consumption", None, "100",
     {"device_class": "power", "unit_of_measurement": "W"}, None),
    ("sensor.total_energy_kwh", "Total energy kWh", None, "0.5",
     {"device_class": "energy", "unit_of_measurement": "kWh"}, None),
    ("binary_sensor.basement_floor_wet", "Basement Floor Wet", None, "off",
     {"device_class": "moisture"}, None),
    ("binary_sensor.movement_backyard", "Movement Backyard", "garden", "on",
     {"device_class": "motion"}, None),
    ("update.demo_update_no_install", "Demo Update No Install", None, "on", {}, None),
    ("update.demo_no_update", "Demo No Update", None, "off", {}, None),
    ("number.volume", "Volume", None, "42", {}, None),
    ("number.pwm", "PWM", None, "0.42", {}, None),
    ("select.speed", "Speed", None, "ridiculous_speed", {}, None),
    ("button.push", "Push", "office", "unknown", {}, None),
    ("siren.siren", "Siren", None, "on", {}, None),
    ("event.doorbell", "Doorbell", None, "unknown", {"device_class": "doorbell"}, None),
]  # fmt: skip


def padding() -> list[tuple[str, str, str | None, str, dict[str, Any], bool | None]]:
    """Per-room sensors and unexposed helpers that bring the demo to about 100 entities."""
    rows: list[tuple[str, str, str | None, str, dict[str, Any], bool | None]] = []
    for area_id, name, _floor, _aliases in AREAS:
        rows += [
            (f"sensor.{area_id}_temperature", f"{name} Temperature", area_id, "20.5",
             {"device_class": "temperature", "unit_of_measurement": "°C"}, None),
            (f"sensor.{area_id}_humidity", f"{name} Humidity", area_id, "48",
             {"device_class": "humidity", "unit_of_measurement": "%"}, None),
            (f"binary_sensor.{area_id}_motion", f"{name} Motion", area_id, "off",
             {"device_class": "motion"}, None),
            (f"binary_sensor.{area_id}_window", f"{name} Window Contact", area_id, "off",
             {"device_class": "window"}, None),
            (f"sensor.{area_id}_battery", f"{name} Sensor Battery", area_id, "87",
             {"device_class": "battery", "unit_of_measurement": "%"}, None),
        ]  # fmt: skip
    return rows


def demo_home() -> HomeModel:
    """The demo-like home, built from the dicts Home Assistant's WebSocket API would send."""
    rows = DEMO + padding()
    entities = [{"entity_id": row[0], "area_id": row[2], "platform": "demo"} for row in rows]
    details = {
        row[0]: {
            "aliases": [],
            "options": {} if row[5] is None else {"conversation": {"should_expose": row[5]}},
        }
        for row in rows
    }
    states = {
        row[0]: {"s": row[3], "a": {**row[4], "friendly_name": row[1]}, "lc": 0.0} for row in rows
    }
    return HomeModel.build(
        config={"location_name": "Demo", "language": "en"},
        areas=[
            {"area_id": area_id, "name": name, "floor_id": floor, "aliases": aliases}
            for area_id, name, floor, aliases in AREAS
        ],
        floors=FLOORS,
        devices=[],
        entities=entities,
        entity_details=details,
        exposure={},
        states=states,
    )


# --- Measurement helpers --------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass
class Samples:
    """Timings in milliseconds, by name, in the order names were first recorded."""

    ms: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, value_ms: float) -> None:
        """Record one timing."""
        self.ms.setdefault(name, []).append(value_ms)

    def p(self, name: str, q: float) -> float:
        """The q-th percentile of ``name``'s timings."""
        return percentile(self.ms.get(name, []), q)

    def table(self) -> str:
        """One row per name: count, p50 and p95."""
        width = max(len(name) for name in self.ms)
        lines = [f"{'path':<{width}}  {'n':>5}  {'p50 ms':>8}  {'p95 ms':>8}"]
        for name, values in self.ms.items():
            lines.append(
                f"{name:<{width}}  {len(values):>5}  {self.p(name, 50):>8.3f}  "
                f"{self.p(name, 95):>8.3f}"
            )
        return "\n".join(lines)


async def timed(samples: Samples, name: str, step: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``step`` and record how long it took under ``name``."""
    start = time.perf_counter()
    value = await step()
    samples.add(name, (time.perf_counter() - start) * 1000.0)
    return value


# --- The two paths --------------------------------------------------------------------------


@dataclass
class LocalPath:
    """Text → spoken answer for locally recognised commands, on a virtual copy of the home."""

    matcher: LocalMatcher
    live: HomeModel
    virtual: HomeModel
    executor: VirtualExecutor

    async def answer(self, text: str, samples: Samples | None = None) -> str | None:
        """The spoken answer, or None when the sentence would go to the model."""
        start = time.perf_counter()
        match = self.matcher.recognize(text, self.live)
        if match is None:
            return None
        recognized = time.perf_counter()
        result = await handle_intent(
            match.intent,
            match.slots,
            model=self.virtual,
            executor=self.executor,
            language=match.language,
        )
        handled = time.perf_counter()
        speech = render_speech(match, result) if answered_locally(result) else None
        done = time.perf_counter()
        if samples is not None:
            samples.add("local path, end to end", (done - start) * 1000.0)
            samples.add("  recognize", (recognized - start) * 1000.0)
            samples.add("  handle_intent (virtual)", (handled - recognized) * 1000.0)
            samples.add("  render_speech", (done - handled) * 1000.0)
        return speech


@dataclass
class AgentPath:
    """Whole turns through ``Agent.process``: local first, no model, a real store."""

    agent: Agent
    store: Store
    turns: int = 0

    async def answer(self, text: str, samples: Samples | None = None) -> str:
        """The agent's reply; records the turn's timings when ``samples`` is given."""
        self.turns += 1
        request = ConversationRequest(text, source="http", conversation_id=f"local-{self.turns}")
        start = time.perf_counter()
        result = await self.agent.process(request)
        wall_ms = (time.perf_counter() - start) * 1000.0
        await self.agent.drain()  # the outcome check, off the reply's path
        if result.handled_by != "local":
            raise SystemExit(f"the agent did not answer {text!r} locally: {result}")
        if samples is not None:
            async with self.store.sessionmaker() as session:
                timings = await session.scalar(
                    select(Turn.timings).where(Turn.id == result.turn_id)
                )
            samples.add("agent, end to end", wall_ms)
            samples.add("  of which store write", wall_ms - (timings or {}).get("total", wall_ms))
        return result.reply


def bare_hassil(home: HomeModel) -> Callable[[str], Any]:
    """Bare ``recognize_best``: all English intents and the whole, unfiltered name list."""
    data = get_intents("en")
    if data is None:
        raise SystemExit("home-assistant-intents ships no English sentences")
    intents = Intents.from_dict(data)
    names = [
        (text, text, {"domain": e.domain}) for e in home.exposed_entities() for text in e.names
    ]
    lists: dict[str, SlotList] = {
        "name": TextSlotList.from_tuples(names, allow_template=False, name="name"),
        "area": TextSlotList.from_tuples(
            [(t, t) for a in home.areas.values() for t in (a.name, *a.aliases)],
            allow_template=False,
            name="area",
        ),
        "floor": TextSlotList.from_tuples(
            [(t, f.name) for f in home.floors.values() for t in (f.name, *f.aliases)],
            allow_template=False,
            name="floor",
        ),
    }

    def recognize(text: str) -> Any:
        return recognize_best(text, intents, slot_lists=lists, best_slot_name="name", language="en")

    return recognize


async def main() -> None:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="local_path_") as work:
        store = await Store.open(Path(work) / "local_path.db")
        try:
            await measure(store)
        finally:
            await store.close()


async def measure(store: Store) -> None:
    home = demo_home()
    virtual = home.copy()
    path = LocalPath(LocalMatcher("en"), home, virtual, VirtualExecutor(virtual))
    hassil = bare_hassil(home)
    # Its own matcher: a matcher keeps the slot lists of one home model object, and sharing one
    # with the local path (which reads another copy) would rebuild them on every call.
    agent_home = home.copy()
    agent_matcher = LocalMatcher("en")
    agent_matcher.prepare()
    agent = AgentPath(
        Agent(
            options=Options.model_validate({"local_first": True}),
            records=ConversationRecords(store),
            home=StaticHome(agent_home),
            live_executor=VirtualExecutor(agent_home),
            llm=None,
            local=agent_matcher,
            outcome_delay=0.0,
        ),
        store,
    )

    # Warm-up, not measured: the first parse of the templates, the slot lists, Jinja.
    start = time.perf_counter()
    path.matcher.prepare()
    first_parse_ms = (time.perf_counter() - start) * 1000.0
    local: list[str] = []
    for text in SENTENCES:
        hassil(text)
        speech = await path.answer(text)
        if speech is None:
            print(f"left to the model (not measured): {text!r}")
        else:
            local.append(text)
            print(f"{text!r} → {speech!r}")
            await agent.answer(text)
    for text in MISSES:
        hassil(text)
        if path.matcher.recognize(text, path.live) is not None:
            raise SystemExit(f"{text!r} was meant to be left to the model")

    samples = Samples()
    gc.collect()
    for _ in range(ROUNDS):
        for text in local:
            await agent.answer(text, samples)
            await path.answer(text, samples)
            start = time.perf_counter()
            hassil(text)
            samples.add("hassil recognize_best (bare)", (time.perf_counter() - start) * 1000.0)
        for text in MISSES:
            start = time.perf_counter()
            path.matcher.recognize(text, path.live)
            samples.add("miss: recognize → model", (time.perf_counter() - start) * 1000.0)
            start = time.perf_counter()
            hassil(text)
            samples.add("miss: hassil (bare)", (time.perf_counter() - start) * 1000.0)

    p50 = samples.p("agent, end to end", 50)
    local_p50 = samples.p("local path, end to end", 50)
    hassil_p50 = samples.p("hassil recognize_best (bare)", 50)
    miss_p50 = samples.p("miss: recognize → model", 50)
    entities = len(home.entity_ids())
    exposed = len(home.exposed_entities())
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print(
        f"home: {entities} entities ({exposed} exposed); {len(local)} sentences and "
        f"{len(MISSES)} misses × {ROUNDS}"
    )
    print(f"warm-up (excluded): first template parse {first_parse_ms:.0f} ms")
    print(samples.table())
    print(f"ratio, agent p50 / hassil p50: {p50 / hassil_p50:.2f}")
    print(f"ratio, local path p50 / hassil p50: {local_p50 / hassil_p50:.2f}")
    print(f"ratio, agent p50 / local path p50: {p50 / local_p50:.2f}")
    verdict = "PASS" if p50 <= TARGET_P50_MS else "FAIL"
    print(
        f"target: agent end to end p50 ≤ {TARGET_P50_MS:.0f} ms "
        f"({p50 / TARGET_P50_MS:.2f}× the target): {verdict}"
    )
    print(
        json.dumps(
            {
                "bench": "local_path",
                "p50_ms": round(p50, 3),
                "hassil_p50_ms": round(hassil_p50, 3),
                "miss_p50_ms": round(miss_p50, 3),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
