"""Our resolver against Home Assistant's own, on the same homes and the same requests.

``ha_oracle.py`` runs the real ``async_match_targets`` and exposure rules of the Home Assistant
release under test in its own Python; every request here must get the same answer from both:
match or not, the failure reason, the entities (in Home Assistant's order), the unknown area or
floor name, and the areas and floors targeted. Requests are generated at random (fixed seed) over
every slot. Both sides get the home as that release's WebSocket API reports it
(:func:`as_release`), and our model knows the release, as a live one does from ``get_config``.

The one exception is our loose fallback (:mod:`addon.home.targeting.matching`), which may answer
where Home Assistant says NAME, INVALID_AREA or INVALID_FLOOR. Those answers are checked against
Home Assistant too: a loosely found area or floor must give what Home Assistant gives for that place
named by its id, and a loose name what it gives when every name in the home and the request are
loosened, provided every entity matched has a name whose loose form is the request's.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from addon.home.model.index import loose_keys
from addon.home.model.live import HomeModel
from addon.home.model.names import loose_name
from addon.home.model.release import Release
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchTargetsConstraints,
    MatchTargetsPreferences,
    MatchTargetsResult,
)
from devtools.home_assistant import python_command
from devtools.synthetic import synthetic_home
from tests.home.homes import HomeData, demo_home

pytestmark = pytest.mark.homeassistant

ORACLE = Path(__file__).with_name("ha_oracle.py")
DOMAINS = ["light", "switch", "cover", "sensor", "binary_sensor", "lock", "script", "fan", "todo"]
CLASSES = ["temperature", "door", "motion", "garage", "humidity", "power", "battery"]
STATES = ["on", "off", "open", "closed", "locked", "playing"]
LOOSE_OUTCOMES = {None, "DUPLICATE_NAME", "MULTIPLE_TARGETS"}
"""Answers that mean the name step passed: a match, or a tie decided after it."""


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


def as_release(home: dict[str, Any], version: str) -> dict[str, Any]:
    """``home`` (written as 2025.4 reports it) as release ``version`` reports the same home.

    2026.11 migrated every entity's aliases to an ordered list headed by the computed name,
    which its WebSocket API sends as null (entity registry minor version 1.22).
    """
    home = json.loads(json.dumps(home))
    if Release.parse(version).names_are_registry_aliases:
        for details in filter(None, home["entity_details"].values()):
            details["aliases"] = [None, *(details.get("aliases") or ())]
    return home


def model_of(home: dict[str, Any], version: str) -> HomeModel:
    """Our model of ``home``, knowing it runs ``version``, as ``get_config`` tells a live one."""
    return HomeModel.build(
        config={"location_name": "Test Home", "language": "en", "version": version},
        areas=home["areas"],
        floors=home["floors"],
        devices=home["devices"],
        entities=home["entities"],
        entity_details=home["entity_details"],
        exposure=home["exposure"],
        states=home["states"],
    )


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
        if choice < 0.5:
            return variant(text)
        if choice < 0.55:
            return "all"
        return text

    def variant(text: str) -> str:
        """What a small model writes for a name: Home Assistant misses, our fallback matches."""
        return rng.choice(
            [
                text.replace(" ", "-"),
                text.replace(" ", "  "),
                f"{text}.",
                text.lower().replace(" ", "_"),
                f"{text}!?",
            ]
        )

    def area() -> str:
        place = rng.choice(areas)
        names = [place.name, place.area_id, *place.aliases, place.name.lower()]
        return rng.choice([*names, variant(place.name), "Attic2"])

    def floor() -> str:
        place = rng.choice(floors)
        return rng.choice([place.name, place.floor_id, *place.aliases, variant(place.name), "Roof"])

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


def resolve(model: HomeModel, request: dict[str, Any]) -> MatchTargetsResult:
    return match_targets(
        model,
        MatchTargetsConstraints(**request["constraints"]),
        MatchTargetsPreferences(**request["preferences"]),
    )


def answer(result: MatchTargetsResult) -> dict[str, Any]:
    """A result in the oracle's format."""
    return {
        "is_match": result.is_match,
        "reason": result.no_match_reason.name if result.no_match_reason else None,
        "entity_ids": result.entity_ids,
        "no_match_name": result.no_match_name,
        "areas": [area.area_id for area in result.areas],
        "floors": [floor.floor_id for floor in result.floors],
    }


def home_assistants(
    home: dict[str, Any], requests: list[dict[str, Any]], version: str
) -> list[dict[str, Any]]:
    completed = subprocess.run(
        [*python_command(version), "-c", ORACLE.read_text("utf-8")],
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


def loosened_home(home: dict[str, Any]) -> dict[str, Any]:
    """``home`` with every name and alias Home Assistant matches replaced by its loose form."""
    home = json.loads(json.dumps(home))
    for place in (*home["areas"], *home["floors"]):
        place["name"] = loose_name(place["name"])
        place["aliases"] = [loose_name(alias) for alias in place["aliases"]]
    # 2026.11's computed name is built from these.
    for device in home["devices"]:
        for key in ("name", "name_by_user"):
            if device.get(key):
                device[key] = loose_name(device[key])
    for entry in (*home["entities"], *filter(None, home["entity_details"].values())):
        for key in ("name", "original_name"):
            if entry.get(key):
                entry[key] = loose_name(entry[key])
        if "aliases" in entry:
            entry["aliases"] = [
                None if alias is None else loose_name(alias) for alias in entry["aliases"] or ()
            ]
    for state in home["states"].values():
        if state["a"].get("friendly_name"):
            state["a"]["friendly_name"] = loose_name(state["a"]["friendly_name"])
    return home


def loosened_request(model: HomeModel, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with its names loosened; place ids, matched only exactly, stay."""
    constraints = dict(request["constraints"])
    for slot, ids in (("name", ()), ("area_name", model.areas), ("floor_name", model.floors)):
        text = constraints.get(slot)
        if text and text not in ids:
            constraints[slot] = loose_name(text) or text
    return {**request, "constraints": constraints}


def place_by_id(model: HomeModel, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with an area or floor found only loosely named by its id instead."""
    constraints = dict(request["constraints"])
    for slot, find in (("area_name", model.find_areas), ("floor_name", model.find_floors)):
        text = constraints.get(slot)
        if text and not find(text) and (found := find(text, loose=True)):
            assert len(found) == 1, found
            place = found[0]
            constraints[slot] = place.area_id if slot == "area_name" else place.floor_id
    return {**request, "constraints": constraints}


def assert_loose_names(
    model: HomeModel, request: dict[str, Any], result: MatchTargetsResult
) -> None:
    """Every entity a loose name matched has a name or alias with the request's loose form."""
    wanted = loose_name(request["constraints"]["name"])
    matched = {*result.entity_ids, *(c.entity_id for c in result.candidates)}
    assert wanted
    assert matched
    for entity_id in matched:
        entity = model.entity(entity_id)
        assert entity is not None
        assert wanted in loose_keys(entity), (request, entity_id)


def assert_same(
    model: HomeModel, home: dict[str, Any], requests: list[dict[str, Any]], version: str
) -> None:
    """Home Assistant's answers, except where our loose fallback may answer its misses.

    Every NAME, INVALID_AREA and INVALID_FLOOR is asked again: with a loosely found place given
    by its id (we must answer as Home Assistant then does), or, for NAME, with the request and
    every name in the home loosened. If the name step then passes (a match or a tie after it)
    ours must be that answer, matching only entities with the request's loose name; otherwise
    ours must still be Home Assistant's NAME failure.
    """
    expected = home_assistants(home, requests, version)
    results = [resolve(model, request) for request in requests]
    mismatches = []
    by_name: list[int] = []
    by_place: list[int] = []
    for i, (request, theirs, result) in enumerate(zip(requests, expected, results, strict=True)):
        if theirs["reason"] == "NAME":
            by_name.append(i)
        elif theirs["reason"] in ("INVALID_AREA", "INVALID_FLOOR"):
            by_place.append(i)
        elif comparable(theirs, request) != comparable(answer(result), request):
            mismatches.append((request, theirs, answer(result)))
    assert not mismatches, json.dumps(mismatches[:5], indent=1)

    requests_by_id = [place_by_id(model, requests[i]) for i in by_place]
    for i, theirs in zip(by_place, home_assistants(home, requests_by_id, version), strict=True):
        if comparable(theirs, requests[i]) != comparable(answer(results[i]), requests[i]):
            mismatches.append((requests[i], theirs, answer(results[i])))
    assert not mismatches, json.dumps(mismatches[:5], indent=1)

    loose_outcomes = 0
    loose_requests = [loosened_request(model, requests[i]) for i in by_name]
    for i, theirs in zip(
        by_name, home_assistants(loosened_home(home), loose_requests, version), strict=True
    ):
        mine = answer(results[i])
        if theirs["reason"] in LOOSE_OUTCOMES:
            loose_outcomes += 1
            assert_loose_names(model, requests[i], results[i])
            if theirs["no_match_name"] is not None:
                theirs = {**theirs, "no_match_name": requests[i]["constraints"]["name"]}
            same = comparable(theirs, requests[i]) == comparable(mine, requests[i])
        else:
            same = (mine["is_match"], mine["reason"]) == (False, "NAME")
        if not same:
            mismatches.append((requests[i], theirs, mine))
    assert not mismatches, json.dumps(mismatches[:5], indent=1)
    assert loose_outcomes, "no request exercised the loose name fallback"


def assert_no_loose_place_twins(model: HomeModel) -> None:
    """Loosening a home's places must not merge two of them, or the loosened home would differ."""
    for places in (model.areas.values(), model.floors.values()):
        keys: dict[str, set[str]] = {}
        for place in places:
            for text in (place.name, *place.aliases):
                keys.setdefault(loose_name(text), set()).add(text.strip().casefold())
        assert all(len(texts) == 1 for texts in keys.values()), keys


def with_loose_twins(data: HomeData) -> HomeData:
    """The demo home plus an entity whose name differs from another's only by punctuation."""
    data.entity("switch.garage_light_plug", friendly_name="Garage-Light", area_id="garage")
    data.entity("switch.kitchen_ceiling_fan", friendly_name="Kitchen Ceiling.", area_id="office")
    return data


def test_demo_home_matches_home_assistant(ha_version: str) -> None:
    """Every request on the hand-made home gets Home Assistant's answer, or a checked loose one."""
    home = as_release(raw_home(with_loose_twins(demo_home())), ha_version)
    model = model_of(home, ha_version)
    assert_no_loose_place_twins(model)
    assert_same(model, home, random_requests(model, 1500, seed=11), ha_version)


def test_synthetic_home_matches_home_assistant(ha_version: str) -> None:
    """Every request on a 400-entity synthetic home gets Home Assistant's answer, or a loose one."""
    synthetic = synthetic_home(400, seed=5)
    raw = {**synthetic.build_kwargs(), "entity_details": synthetic.entity_details}
    raw.pop("config")
    home = as_release(raw, ha_version)
    model = model_of(home, ha_version)
    assert_no_loose_place_twins(model)
    assert_same(model, home, random_requests(model, 1500, seed=12), ha_version)
