"""The synthetic home generator used by tests and benchmarks."""

from __future__ import annotations

from collections import Counter

import pytest

from devtools.synthetic import SyntheticHome, synthetic_home


@pytest.fixture(scope="module")
def synthetic() -> SyntheticHome:
    return synthetic_home(400, seed=7)


def test_same_seed_gives_the_same_home() -> None:
    """A size and a seed always give the same home."""
    assert synthetic_home(150, seed=3) == synthetic_home(150, seed=3)


def test_size_is_close_to_the_request() -> None:
    """The home has about as many entities as asked for."""
    home = synthetic_home(1000, seed=1)
    assert 950 <= len(set(home.entity_details) | set(home.states)) <= 1050


def test_home_covers_the_domains(synthetic: SyntheticHome) -> None:
    """Every domain the agent handles appears."""
    domains = {entity_id.partition(".")[0] for entity_id in synthetic.states}
    assert domains >= {
        "light", "switch", "cover", "climate", "fan", "lock", "media_player", "sensor",
        "binary_sensor", "vacuum", "valve", "scene", "script", "todo", "weather",
    }  # fmt: skip


def test_home_has_duplicate_names_across_areas(synthetic: SyntheticHome) -> None:
    """Generic names repeat in different areas, so disambiguation is exercised."""
    model = synthetic.build()
    by_name: dict[str, set[str | None]] = {}
    for entity in model.exposed_entities():
        by_name.setdefault(entity.name.casefold(), set()).add(entity.area_id)
    assert any(len(areas) > 1 for areas in by_name.values())


def test_home_has_aliases_hidden_disabled_and_yaml_entities(synthetic: SyntheticHome) -> None:
    """Aliases, hidden and disabled entries, and states without a registry entry all occur."""
    details = synthetic.entity_details.values()
    assert any(d["aliases"] for d in details)
    assert any(d["hidden_by"] for d in details)
    assert any(d["disabled_by"] for d in details)
    assert set(synthetic.states) - set(synthetic.entity_details)


def test_exposure_is_mixed(synthetic: SyntheticHome) -> None:
    """Some entities are exposed explicitly, some unexposed explicitly, some by default."""
    settings = Counter(
        str(d["options"].get("conversation", {}).get("should_expose"))
        for d in synthetic.entity_details.values()
    )
    assert settings["True"] > 0
    assert settings["False"] > 0
    assert settings["None"] > 0
    model = synthetic.build()
    assert 0 < len(model.exposed_entities()) < len(model.entity_ids())


def test_registry_entries_have_home_assistants_fields(synthetic: SyntheticHome) -> None:
    """List entries carry as_partial_dict's keys; get_entries adds extended_dict's."""
    entry = synthetic.entities[0]
    details = synthetic.entity_details[entry["entity_id"]]
    assert {"area_id", "device_id", "entity_category", "hidden_by", "options", "platform"} <= set(
        entry
    )
    assert "aliases" not in entry
    assert set(details) - set(entry) == {
        "aliases", "capabilities", "device_class", "original_device_class", "original_icon",
    }  # fmt: skip
