"""What the confirmation check costs a turn that is not held, at 1,000 entities.

A turn that acts passes its calls through the turn's :class:`ConfirmingExecutor`, whose
:class:`Holds` looks each entity up in the compiled policy (entity, device class, domain) and
names it from the home model (and, for an actor a rule names, judges each entity by the rule:
:mod:`addon.home.actions.permissions`). Measured here: building the turn's ``Holds`` and
executor and passing one call that is not held (``light.turn_off`` on every exposed light of a
synthetic 1,000-entity home, the widest ordinary call) through them, with the default policy (locks,
alarm panels, garage/gate/door covers) beside the same with the policy empty. The inner
executor does nothing, so only the check is timed; rounds alternate them. A third variant
adds a satellite's rule (locks read only) that every light passes. Target: the difference of
each to the empty policy's p50 ≤ 0.1 ms. The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from addon.home.actions.actor import Actor
from addon.home.actions.confirmation import (
    ConfirmationPolicy,
    ConfirmingExecutor,
    Holds,
)
from addon.home.actions.executor import (
    ExecutorName,
    HandedAnswer,
    HandedSentence,
    ReadState,
    ScriptRun,
    ServiceCall,
)
from addon.home.actions.impact import ImpactCache
from addon.home.actions.permissions import Access, ActorRule, ActorRules
from addon.home.model.live import HomeModel
from devtools.synthetic import synthetic_home
from tests.fixtures.policy import default_policy

SIZE = 1_100
"""Asked of the synthetic home: about 1,000 entities once registry-only ones are left out."""
ROUNDS = 2_000
WARMUP = 200
TARGET_P50_MS = 0.1


class NoExecutor:
    """An executor that does nothing, so the timing is the check's alone."""

    @property
    def name(self) -> ExecutorName:
        """Named as the virtual one."""
        return "virtual"

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Nothing."""
        return

    async def run_script(
        self, service: str, variables: Mapping[str, Any], *, wait: float
    ) -> ScriptRun:
        """Nothing."""
        return ScriptRun()

    async def has_service(self, domain: str, service: str) -> bool:
        """Every service exists."""
        return True

    async def handle_intent(self, intent: str, slots: Mapping[str, Any]) -> tuple[str, ...]:
        """Nothing."""
        return ()

    async def hand_over(self, sentence: HandedSentence) -> HandedAnswer:
        """Nothing."""
        return HandedAnswer("", "action_done", handed=False)

    async def state(self, entity_id: str) -> ReadState | None:
        """No states."""
        return None


def describer(model: HomeModel) -> Any:
    """The agent's ``describe``: an entity's device class and name from the model."""

    def describe(entity_id: str) -> tuple[str | None, str]:
        entity = model.entity(entity_id)
        return (entity.device_class, entity.name) if entity is not None else (None, entity_id)

    return describe


SATELLITE = Actor("wyoming", device_id="kids_room_speaker")
RULES = ActorRules.of(
    [ActorRule(1, "satellite", "kids_room_speaker", "Kids", "act", {"lock": "read"})]
)
"""A satellite's rule that leaves lights alone: every light is judged by it, none refused."""


def access_for(model: HomeModel) -> Access | None:
    """The satellite's access, as the agent's turn setup builds it."""

    def area_of(entity_id: str) -> str | None:
        entity = model.entity(entity_id)
        return entity.area_id if entity is not None else None

    return RULES.access(SATELLITE, area_of, "en")


async def one_turn(
    policy: ConfirmationPolicy,
    model: HomeModel,
    lights: list[str],
    impacts: ImpactCache,
    rules: bool = False,
) -> float:
    """Milliseconds to build the turn's check and pass the call through it."""
    started = time.perf_counter()
    access = access_for(model) if rules else None
    holds = Holds(policy, describer(model), impacts=impacts.of(model), access=access)
    executor = ConfirmingExecutor(NoExecutor(), holds)
    await executor.call_service(ServiceCall("light", "turn_off", tuple(lights)))
    elapsed = (time.perf_counter() - started) * 1000
    assert not holds.held
    return elapsed


async def main() -> None:
    model = synthetic_home(SIZE, seed=0).build()
    lights = [e.entity_id for e in model.exposed_entities() if e.entity_id.startswith("light.")]
    defaults = default_policy()
    empty = ConfirmationPolicy()
    impacts = ImpactCache()  # the agent's: what calls do, kept per home model and revision
    timed: dict[str, list[float]] = {"defaults": [], "empty": [], "rule": []}
    gc.disable()
    for round_no in range(WARMUP + ROUNDS):
        for name, policy, rules in (
            ("defaults", defaults, False),
            ("empty", empty, False),
            ("rule", defaults, True),
        ):
            elapsed = await one_turn(policy, model, lights, impacts, rules)
            if round_no >= WARMUP:
                timed[name].append(elapsed)
    gc.enable()
    p50 = {name: statistics.median(values) for name, values in timed.items()}
    overhead = p50["defaults"] - p50["empty"]
    with_rule = p50["rule"] - p50["empty"]
    print(f"home: {len(model.entity_ids())} entities; the call names {len(lights)} lights")
    for name, value in p50.items():
        print(f"  policy {name:8}: p50 {value:.4f} ms")
    verdict = "OK" if overhead <= TARGET_P50_MS else "over target"
    print(f"  overhead p50: {overhead:.4f} ms (target <= {TARGET_P50_MS} ms): {verdict}")
    ruled = "OK" if with_rule <= TARGET_P50_MS else "over target"
    print(f"  with a satellite's rule: {with_rule:.4f} ms (target <= {TARGET_P50_MS} ms): {ruled}")
    print(
        json.dumps(
            {
                "bench": "confirmation",
                "overhead_p50_ms": round(overhead, 4),
                "rule_overhead_p50_ms": round(with_rule, 4),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
