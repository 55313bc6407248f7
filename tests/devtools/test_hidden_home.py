"""The natural request set and the real homes it is measured on, hidden among generated ones."""

from __future__ import annotations

from pathlib import Path

import yaml

from addon.eval.tasks import load_task_file
from addon.home.context.context_index import ContextIndex
from addon.home.context.lexicon import words
from devtools.hidden_home import hidden_home

ROOT = Path(__file__).resolve().parent.parent.parent
NATURAL = ROOT / "bench" / "data" / "natural_requests.yaml"
HOMES = ROOT / "devtools" / "homes"


def test_every_natural_request_means_exposed_devices_of_its_home() -> None:
    """Each request names a home of devtools/homes and only devices that home exposes."""
    requests = yaml.safe_load(NATURAL.read_text(encoding="utf-8"))
    assert sum(len(said) for said in requests.values()) >= 200
    for home, said in requests.items():
        spec = load_task_file(HOMES / f"{home}.yaml").home
        exposed = {e.entity_id for e in spec.entities if e.exposed}
        areas = {a.id for a in spec.areas}
        for request in said:
            assert request["means"], request
            assert set(request["means"]) <= exposed, request
            assert request.get("speaker") in (None, *areas), request


def test_a_hidden_home_keeps_its_places_unique_among_the_generated_ones() -> None:
    """The real home's devices are listed; no generated area shares a real area's name."""
    model, spec = hidden_home(HOMES / "flat_elm_street.yaml", 300)
    index = ContextIndex.build(model)
    assert {e.entity_id for e in spec.entities if e.exposed} <= set(index.entities)
    assert "light.closet" not in index.entities  # not exposed in the home's file
    assert index.area_phrases[words("Kitchen")] == ("real_kitchen",)
    assert index.area_phrases[words("Lounge")] == ("real_living_room",)
