"""Our resolver against Home Assistant's own, on the same homes and the same requests.

``ha_oracle.py`` runs Home Assistant 2025.4's real ``async_match_targets`` and exposure rules in
its venv; every request here must get the same answer from both: match or not, the failure
reason, the entities (in Home Assistant's order), the unknown area or floor name, and the areas
and floors targeted. Requests are generated at random (fixed seed) over every slot.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from addon.home.matching import match_targets
from addon.home.model import HomeModel
from addon.home.synthetic import synthetic_home
from addon.home.targets import MatchTargetsConstraints, MatchTargetsPreferences
from devtools.home_assistant import ensure_venv
from tests.home.homes import HomeData, demo_home

pytestmark = pytest.mark.homeassistant

ORACLE = Path(__file__).with_name("ha_oracle.py")
DOMAINS = ["light", "switch", "cover", "sensor", "binary_sensor", "lock", "script", "fan", "todo"]
CLASSES = ["temperature", "door", "motion", "garage", "humidity", "power", "battery"]
STATES = ["on", "off", "open", "closed", "locked", "playing"]


def raw_home(data: HomeData) -> dict[str, Any]:
    return {
        "areas": data.areas,
        "floors": data.floors,
        "devices": data.devices,
        "entities": data.entities,
        "entity_details": data.details,
        "exposure": data.exposure,
        "states": data.states,
    }


def random_requests(model: HomeModel, count: int, seed: int) -> list[dict[str, Any]]:
    """Requests over every slot, mostly plausible, some wrong on purpose."""
    rng = random.Random(seed)
    ids = model.entity_ids()
    areas = list(model.areas.values())
    floors = list(model.floors.values())

    def name() -> str:
        entity = model.entity(rng.choice(ids))
        assert entity is not None
        choice = rng.random()
        if choice < 0.15:
            return entity.entity_id
        text = rng.choice(entity.names)
        if choice < 0.3:
            return f"  {text.upper()} "
        if choice < 0.4:
            return text.replace(" ", "-")
        if choice < 0.45:
            return "all"
        return text

    def area() -> str:
        place = rng.choice(areas)
        return rng.choice([place.name, place.area_id, *place.aliases, place.name.lower(), "Attic2"])

    def floor() -> str:
        place = rng.choice(floors)
        return rng.choice([place.name, place.floor_id, *place.aliases, "Roof"])

    requests = []
    for _ in range(count):
        constraints: dict[str, Any] = {"assistant": rng.choice(["conversation"] * 4 + [None])}
        if rng.random() < 0.5:
            constraints["name"] = name()
        if rng.random() < 0.35:
            constraints["area_name"] = area()
        if rng.random() < 0.15:
            constraints["floor_name"] = floor()
        if rng.random() < 0.4:
            constraints["domains"] = rng.sample(DOMAINS, rng.choice([0, 1, 1, 1, 2]))
        if rng.random() < 0.15:
            constraints["device_classes"] = rng.sample(CLASSES, rng.choice([1, 2]))
        if rng.random() < 0.1:
            constraints["states"] = rng.sample(STATES, 2)
        if rng.random() < 0.1:
            constraints["features"] = rng.choice([1, 2, 4, 128, 385])
        constraints["single_target"] = rng.random() < 0.15
        constraints["allow_duplicate_names"] = rng.random() < 0.1
        preferences: dict[str, Any] = {}
        if rng.random() < 0.3:
            place = rng.choice(areas)
            preferences = {"area_id": place.area_id, "floor_id": place.floor_id}
        elif rng.random() < 0.1:
            preferences = {"floor_id": rng.choice(floors).floor_id}
        requests.append({"constraints": constraints, "preferences": preferences})
    return requests


def ours(model: HomeModel, request: dict[str, Any]) -> dict[str, Any]:
    result = match_targets(
        model,
        MatchTargetsConstraints(**request["constraints"]),
        MatchTargetsPreferences(**request["preferences"]),
    )
    return {
        "is_match": result.is_match,
        "reason": result.no_match_reason.name if result.no_match_reason else None,
        "entity_ids": result.entity_ids,
        "no_match_name": result.no_match_name,
        "areas": [area.area_id for area in result.areas],
        "floors": [floor.floor_id for floor in result.floors],
    }


def home_assistants(home: dict[str, Any], requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    python = ensure_venv() / "bin" / "python"
    completed = subprocess.run(
        [str(python), str(ORACLE)],
        input=json.dumps({"home": home, "queries": requests}),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    answers: list[dict[str, Any]] = json.loads(completed.stdout)
    return answers


def comparable(answer: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """Home Assistant orders several domains by its set's order; compare those as sets."""
    if len(request["constraints"].get("domains") or ()) > 1:
        return {**answer, "entity_ids": sorted(answer["entity_ids"])}
    return answer


def assert_same(model: HomeModel, home: dict[str, Any], requests: list[dict[str, Any]]) -> None:
    expected = home_assistants(home, requests)
    mismatches = [
        (request, comparable(theirs, request), comparable(ours(model, request), request))
        for request, theirs in zip(requests, expected, strict=True)
        if comparable(theirs, request) != comparable(ours(model, request), request)
    ]
    assert not mismatches, json.dumps(mismatches[:5], indent=1)


def test_demo_home_matches_home_assistant() -> None:
    """Every request on the hand-made home gets Home Assistant's answer."""
    data = demo_home()
    assert_same(data.build(), raw_home(data), random_requests(data.build(), 1500, seed=11))


def test_synthetic_home_matches_home_assistant() -> None:
    """Every request on a 400-entity synthetic home gets Home Assistant's answer."""
    home = synthetic_home(400, seed=5)
    model = home.build()
    raw = {**home.build_kwargs(), "entity_details": home.entity_details}
    raw.pop("config")
    assert_same(model, raw, random_requests(model, 1500, seed=12))
