"""The overviews written directly are exactly what PyYAML writes, and odd names go to PyYAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from addon.home.context import overview, summary
from addon.home.context.overview import (
    dump_yaml,
    grouped_overview,
    live_overview,
    overview_entities,
    static_overview,
)
from addon.home.context.plain_yaml import dump_plain
from addon.home.context.summary import compact_summary
from devtools.hidden_home import hidden_home
from devtools.synthetic import synthetic_home

HOMES = sorted((Path(__file__).parents[3] / "devtools" / "homes").glob("*.yaml"))


def pyyaml(value: Any) -> str:
    """What Home Assistant's way of dumping writes."""
    text: str = yaml.dump(
        value,
        Dumper=yaml.CSafeDumper,
        default_flow_style=False,
        allow_unicode=True,
        sort_keys=False,
    )
    return text


class Recorded:
    """Every value the overviews hand to ``dump_yaml``, to dump again with PyYAML."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.values: list[Any] = []

        def record(value: Any) -> str:
            self.values.append(value)
            return dump_yaml(value)

        monkeypatch.setattr(overview, "dump_yaml", record)
        monkeypatch.setattr(summary, "dump_yaml", record)


@pytest.mark.parametrize(("size", "seed"), [(100, 0), (1_000, 1), (3_000, 2)])
def test_the_overviews_of_a_synthetic_home_are_what_pyyaml_writes(
    size: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The static overview, the summary and a per-turn list: same text, most written directly."""
    recorded = Recorded(monkeypatch)
    model = synthetic_home(size, seed=seed).build()
    static_overview(model)
    compact_summary(model)
    grouped_overview(model, overview_entities(model)[::7], floors=False)
    assert recorded.values
    for value in recorded.values:
        assert dump_yaml(value) == pyyaml(value)
    assert any(dump_plain(value) is not None for value in recorded.values)


@pytest.mark.parametrize("home", HOMES, ids=[path.stem for path in HOMES])
def test_the_overviews_of_the_real_homes_are_what_pyyaml_writes(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Homes in English and German, hidden among generated devices, with their live states."""
    recorded = Recorded(monkeypatch)
    model, _spec = hidden_home(home, 400)
    static_overview(model)
    compact_summary(model)
    live_overview(model, overview_entities(model)[:50])
    for value in recorded.values:
        assert dump_yaml(value) == pyyaml(value)


@pytest.mark.parametrize(
    "name",
    [
        "Küche, Kochbereich",
        "(no area)",
        "(",
        "under_score",
        "Cafe\u0301",
        "Kid's Room (upstairs)",
        "Living Room 2",
        "Ceiling Light / Spots",
        "Lamp & Shade",
        "a" * 78,
        "Room " + "very long " * 9,
        "yes",
        "On",
        "NULL",
        "2nd floor",
        "Lights: all",
        "Hall # 2",
        "-dash",
        "trailing ",
        " leading",
        "tab\there",
        "*star",
        'Quote "this"',
        "Temp °C",
        "x" * 130,
        "",
    ],
)
def test_a_name_of_any_shape_dumps_as_pyyaml_dumps_it(name: str) -> None:
    """As a key, a list item and a value: written directly or handed to PyYAML, never different."""
    for value in (
        {name: {"light": [name, "Lamp"]}},
        {"Kitchen": {"light": [name]}},
        {"floors": {"Ground": [name]}},
        [name],
        {"names": name},
    ):
        assert dump_yaml(value) == pyyaml(value)


def test_values_other_than_names_go_to_pyyaml() -> None:
    """Numbers, booleans, nesting in lists and empty containers are PyYAML's."""
    for value in ({"a": 1}, {"a": True}, [{"a": "b"}], {"a": []}, {}, [], "text", {"a": None}):
        assert dump_plain(value) is None
        assert dump_yaml(value) == pyyaml(value)
