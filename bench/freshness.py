"""Read your writes: 100 registry changes in the real Home Assistant, each commanded at once.

Boots Home Assistant 2025.4.4 with the family house (devtools/homes/family_house.yaml, built by
the synthetic_home integration) and Home Agent with no model in this process, as the side-by-side
harness does (devtools/side_by_side.py). Then, 100 times, a random registry change to a light or
switch, made over Home Assistant's WebSocket API as the UI makes it, and at once, with no pause,
a command naming the changed thing, handed to the agent directly (``Agent.process``, as an
endpoint does; through Home Assistant's own conversation API the hop alone takes longer than
the change takes to arrive, which would hide a stale model):

* rename (``config/entity_registry/update`` ``name``): "turn on the <new name>";
* alias (``aliases``): "turn on the <new alias>";
* area move (``area_id``): "turn on the <name> in the <new area>";
* exposure (``homeassistant/expose_entity``): "turn on the <name>", which must act once the
  entity is exposed and must not once it is hidden.

A **stale turn** is one whose outcome is not what the changed home calls for: the entity did
not turn on (or turned on although hidden), or the reply was a failure when it should act.
**Lag** is from Home Assistant's acknowledgement of the change (the WebSocket result) to Home
Agent's model showing it, watched in this process every millisecond (an upper bound: the
watcher shares the event loop with the turn it races, and waits while the turn matches).
Also printed: what a turn pays for the check when nothing is pending (``HomeSync.fresh``'s
ping). Targets (issue 22): ``stale_turns`` 0, ``lag_p95_ms`` ≤ 300. Prints each stale turn,
the figures, then one JSON line. Run as ``.venv/bin/python bench/freshness.py`` (under a
minute, most of it booting).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from addon import keys
from addon.agent.conversation import ConversationRequest
from addon.eval.tasks import load_task_file
from addon.home.model.live import HomeModel
from addon.home.model.names import normalize_name
from devtools.home_assistant import build_template
from devtools.side_by_side import HOMES_DIR, HomeRun, booted, configure_logging

HOME_FILE = HOMES_DIR / "family_house.yaml"
TURNS = 100
SEED = 22
KINDS = ("rename", "alias", "move", "expose")
DOMAINS = ("light", "switch")
WORDS = (
    "amber", "birch", "cedar", "dune", "ember", "fjord", "garnet", "hazel", "indigo", "juniper",
    "kestrel", "lagoon", "maple", "nectar", "opal", "pebble", "quartz", "russet", "saffron",
    "tundra", "umber", "velvet", "willow", "yarrow", "zephyr",
)  # fmt: skip
THINGS = ("lantern", "beacon", "sconce", "glow", "torch", "flare", "spark", "candle")
TARGET_LAG_P95_MS = 300.0
SEE_TIMEOUT_S = 10.0
LAG_POLL_S = 0.001
IDLE_FRESH_CALLS = 200


class HaSocket:
    """One authenticated WebSocket to Home Assistant, kept open: a command's result is its ack."""

    def __init__(self, session: aiohttp.ClientSession, url: str, token: str) -> None:
        self._session, self._url, self._token = session, url, token
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._next = 0

    async def open(self) -> None:
        """Connect and authenticate."""
        self._ws = await self._session.ws_connect(self._url)
        await self._ws.receive_json()
        await self._ws.send_json({"type": "auth", "access_token": self._token})
        auth = await self._ws.receive_json()
        if auth.get("type") != "auth_ok":
            raise RuntimeError(f"Home Assistant refused the token: {auth}")

    async def command(self, message: dict[str, Any]) -> Any:
        """Send one command; return its result once Home Assistant has answered it."""
        assert self._ws is not None
        self._next += 1
        await self._ws.send_json({"id": self._next, **message})
        while True:
            answer = await self._ws.receive_json()
            if answer.get("id") == self._next and answer.get("type") == "result":
                if not answer.get("success"):
                    raise RuntimeError(f"{message['type']} failed: {answer.get('error')}")
                return answer.get("result")

    async def close(self) -> None:
        """Close the socket."""
        if self._ws is not None:
            await self._ws.close()


@dataclass(slots=True)
class Thing:
    """What the bench believes about one entity: Home Assistant's registry after each change."""

    entity_id: str
    name: str
    area_id: str | None
    aliases: list[str] = field(default_factory=list)
    exposed: bool = True


@dataclass(frozen=True, slots=True)
class Change:
    """One registry change, the command that names its result, and what the model must show."""

    kind: str
    thing: Thing
    message: dict[str, Any]
    sentence: str
    should_act: bool
    shown: Callable[[HomeModel], bool]


@dataclass(slots=True)
class Turn:
    """What one change and its command came to."""

    change: Change
    lag_ms: float | None
    acted: bool
    reply: str
    failed: bool

    @property
    def stale(self) -> bool:
        """The outcome the old home would give, not the changed one."""
        if self.change.should_act:
            return not self.acted or self.failed
        return self.acted


class Changes:
    """Random changes over the house's lights and switches, with names nobody else has."""

    def __init__(self, run: HomeRun, seed: int) -> None:
        self._random = random.Random(seed)
        home = run.task_file.home
        model = run.app[keys.HOME_SYNC].model
        assert model is not None
        # Home Assistant's area ids (the integration names areas; the ids follow the names).
        registry_ids = {area.id: model.find_areas(area.name)[0].area_id for area in home.areas}
        self.areas = {registry_ids[area.id]: area.name for area in home.areas}
        self.things = [
            Thing(
                entity.entity_id,
                entity.name or entity.entity_id,
                registry_ids[entity.area] if entity.area else None,
            )
            for entity in home.entities
            if entity.entity_id.partition(".")[0] in DOMAINS
        ]
        self._used = {normalize_name(name) for name in self.areas.values()}
        self._used.update(normalize_name(thing.name) for thing in self.things)

    def _fresh_name(self) -> str:
        while True:
            name = f"{self._random.choice(WORDS)} {self._random.choice(THINGS)}"
            if normalize_name(name) not in self._used:
                self._used.add(normalize_name(name))
                return name

    def next(self) -> Change:
        """One random change (a hidden entity is exposed again first)."""
        hidden = [thing for thing in self.things if not thing.exposed]
        kind = "expose" if hidden else self._random.choice(KINDS)
        thing = hidden[0] if hidden else self._random.choice(self.things)
        entity_id = thing.entity_id
        if kind == "rename":
            thing.name = self._fresh_name()
            key = normalize_name(thing.name)
            return Change(
                kind,
                thing,
                {
                    "type": "config/entity_registry/update",
                    "entity_id": entity_id,
                    "name": thing.name,
                },
                f"turn on the {thing.name}",
                True,
                lambda model: _has(model, entity_id, lambda e: key in e.name_keys),
            )
        if kind == "alias":
            alias = self._fresh_name()
            thing.aliases = [alias]
            return Change(
                kind,
                thing,
                {
                    "type": "config/entity_registry/update",
                    "entity_id": entity_id,
                    "aliases": [alias],
                },
                f"turn on the {alias}",
                True,
                lambda model: _has(model, entity_id, lambda e: alias in e.aliases),
            )
        if kind == "move":
            area_id = self._random.choice([a for a in self.areas if a != thing.area_id])
            thing.area_id = area_id
            return Change(
                kind,
                thing,
                {
                    "type": "config/entity_registry/update",
                    "entity_id": entity_id,
                    "area_id": area_id,
                },
                f"turn on the {thing.name} in the {self.areas[area_id]}",
                True,
                lambda model: _has(model, entity_id, lambda e: e.area_id == area_id),
            )
        thing.exposed = not thing.exposed
        exposed = thing.exposed
        return Change(
            "expose" if exposed else "hide",
            thing,
            {
                "type": "homeassistant/expose_entity",
                "assistants": ["conversation"],
                "entity_ids": [entity_id],
                "should_expose": exposed,
            },
            f"turn on the {thing.name}",
            exposed,
            lambda model: model.is_exposed(entity_id) == exposed,
        )


def _has(model: HomeModel, entity_id: str, test: Callable[[Any], bool]) -> bool:
    entity = model.entity(entity_id)
    return entity is not None and test(entity)


async def _lag(run: HomeRun, change: Change, acked: float) -> float | None:
    """Milliseconds from the ack until Home Agent's model shows the change (None: never)."""
    sync = run.app[keys.HOME_SYNC]
    deadline = acked + SEE_TIMEOUT_S
    while time.perf_counter() < deadline:
        model = sync.model
        if model is not None and change.shown(model):
            return (time.perf_counter() - acked) * 1000
        await asyncio.sleep(LAG_POLL_S)
    return None


async def _until_off(run: HomeRun, thing: Thing) -> None:
    """Turn the entity off in Home Assistant, and wait until Home Agent's mirror shows it."""
    await run.home.request(
        "POST",
        "/api/services/synthetic_home/set_state",
        {"entity_id": thing.entity_id, "state": "off"},
    )
    sync = run.app[keys.HOME_SYNC]
    async with asyncio.timeout(SEE_TIMEOUT_S):
        while True:
            state = sync.model.state(thing.entity_id) if sync.model is not None else None
            if state is not None and state.state == "off":
                return
            await asyncio.sleep(0.01)


async def one_turn(run: HomeRun, socket: HaSocket, change: Change) -> Turn:
    """Make the change; at its ack, send the command (and watch the model) at once."""
    await _until_off(run, change.thing)
    await socket.command(change.message)
    acked = time.perf_counter()
    watcher = asyncio.create_task(_lag(run, change, acked))
    result = await run.app[keys.AGENT].process(
        ConversationRequest(change.sentence, source="http", language="en")
    )
    lag_ms = await watcher
    state = await run.home.state(change.thing.entity_id)
    failed = result.handled_by == "failed"
    return Turn(change, lag_ms, state["state"] == "on", result.reply, failed)


async def idle_fresh_ms(run: HomeRun, times: int) -> list[float]:
    """What ``fresh()`` costs a turn when nothing is pending: the ping's round trip."""
    sync = run.app[keys.HOME_SYNC]
    costs = []
    for _ in range(times):
        started = time.perf_counter()
        await sync.fresh()
        costs.append((time.perf_counter() - started) * 1000)
    return costs


async def bench(turns: int, seed: int) -> tuple[list[Turn], list[float]]:
    """Boot the house, run ``turns`` changes through it, then time ``fresh()`` at rest."""
    task_file = load_task_file(HOME_FILE)
    with tempfile.TemporaryDirectory(prefix="freshness-") as scratch:
        root = Path(scratch)
        template = await asyncio.to_thread(build_template, root / "template", demo=False)
        async with booted(task_file, template, root) as run, aiohttp.ClientSession() as session:
            socket = HaSocket(session, run.home.websocket_url, run.home.token)
            await socket.open()
            changes = Changes(run, seed)
            try:
                done = [await one_turn(run, socket, changes.next()) for _ in range(turns)]
                return done, await idle_fresh_ms(run, IDLE_FRESH_CALLS)
            finally:
                await socket.close()


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


class _BoundedWaits(logging.Handler):
    """Counts the turns that stopped waiting at the bound (Home Agent logs each one)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "still behind" in record.getMessage():
            self.count += 1


def main() -> None:
    configure_logging()
    waits = _BoundedWaits()
    sync_logger = logging.getLogger("addon.ha.home_sync")
    sync_logger.setLevel(logging.WARNING)
    sync_logger.addHandler(waits)
    turns, idle = asyncio.run(bench(TURNS, SEED))
    stale = [turn for turn in turns if turn.stale]
    for turn in stale:
        print(
            f"   STALE {turn.change.kind:<6} {turn.change.thing.entity_id:<28}"
            f" {turn.change.sentence!r} -> {turn.reply!r}"
        )
    lags = [turn.lag_ms for turn in turns if turn.lag_ms is not None]
    unseen = len(turns) - len(lags)
    p95 = percentile(lags, 0.95) if lags else float("inf")
    print(f"{'kind':<8} {'turns':>5} {'stale':>5} {'lag p50 ms':>10} {'lag max ms':>10}")
    for kind in ("rename", "alias", "move", "expose", "hide"):
        mine = [turn for turn in turns if turn.change.kind == kind]
        kind_lags = [turn.lag_ms for turn in mine if turn.lag_ms is not None]
        if mine:
            print(
                f"{kind:<8} {len(mine):>5} {sum(turn.stale for turn in mine):>5}"
                f" {percentile(kind_lags, 0.5) if kind_lags else float('nan'):>10.1f}"
                f" {max(kind_lags) if kind_lags else float('nan'):>10.1f}"
            )
    print(
        f"lag p50 {percentile(lags, 0.5) if lags else float('nan'):.1f} ms, p95 {p95:.1f} ms,"
        f" max {max(lags) if lags else float('nan'):.1f} ms; never seen: {unseen};"
        f" turns that stopped waiting at the 1 s bound: {waits.count}"
    )
    print(
        f"fresh() with nothing pending (the ping a turn pays): p50 {percentile(idle, 0.5):.2f} ms,"
        f" p95 {percentile(idle, 0.95):.2f} ms"
    )
    verdict = "PASS" if not stale and p95 <= TARGET_LAG_P95_MS else "FAIL"
    print(f"target: 0 stale turns, lag p95 ≤ {TARGET_LAG_P95_MS:g} ms: {verdict}")
    print(
        json.dumps(
            {
                "bench": "freshness",
                "stale_turns": len(stale),
                "turns": len(turns),
                "lag_p95_ms": round(p95, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
