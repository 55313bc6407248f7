"""Context selection for large homes, over a hand-made home and a generated one."""

from __future__ import annotations

import pytest

from addon.home.context.context_index import ContextIndex
from addon.home.context.selection import SelectionRequest, select
from addon.home.context.summary import compact_summary
from addon.home.model.live import HomeModel
from devtools.large_home import generated_requests, large_home
from tests.home.homes import HomeData

ROOMS = {
    "living_room": ("Living Room", ("Lounge",), "ground"),
    "kitchen": ("Kitchen", (), "ground"),
    "hallway": ("Hallway", ("Hall",), "ground"),
    "bedroom": ("Bedroom", ("Master Bedroom",), "upstairs"),
    "office": ("Office", ("Study",), "upstairs"),
    "kids_room": ("Kids Room", (), "upstairs"),
}


def small_home() -> HomeModel:
    """Six rooms on two floors; the same device names in several rooms; one hidden entity."""
    home = HomeData()
    home.floor("ground", "Ground Floor", "Downstairs")
    home.floor("upstairs", "First Floor", "Upstairs", level=1)
    for area_id, (name, aliases, floor_id) in ROOMS.items():
        home.area(area_id, name, *aliases, floor_id=floor_id)
        home.entity(
            f"light.{area_id}_ceiling",
            friendly_name="Ceiling Light",
            area_id=area_id,
            aliases=("Big Light",),
            expose=True,
        )
        home.entity(
            f"sensor.{area_id}_temperature",
            state="21.5",
            friendly_name=f"{name} Temperature",
            attributes={"device_class": "temperature", "unit_of_measurement": "°C"},
            area_id=area_id,
            expose=True,
        )
    home.entity("light.desk_lamp", friendly_name="Desk Lamp", area_id="office", expose=True)
    home.entity("light.reading_lamp", friendly_name="Reading Lamp", area_id="bedroom", expose=True)
    home.entity(
        "cover.lounge_blinds", state="open", friendly_name="Blinds", area_id="living_room",
        aliases=("Shutters",), expose=True,
    )  # fmt: skip
    home.entity("cover.kitchen_blinds", state="open", friendly_name="Blinds", area_id="kitchen",
                expose=True)  # fmt: skip
    home.entity("media_player.lounge_tv", state="off", friendly_name="TV", area_id="living_room",
                aliases=("Telly",), expose=True)  # fmt: skip
    home.entity("switch.coffee_maker", friendly_name="Coffee Maker", area_id="kitchen", expose=True)
    home.entity("lock.front_door", state="locked", friendly_name="Front Door", area_id="hallway",
                expose=True)  # fmt: skip
    home.entity("fan.kids_fan", friendly_name="Ceiling Fan", area_id="kids_room", expose=True)
    home.entity("light.secret_lamp", friendly_name="Secret Lamp", area_id="office", expose=False)
    home.device("satellite_office", "Office Satellite", area_id="office")
    return home.build()


# Requests as people say them, with the entities each means and the satellite's area if any.
FIXED_REQUESTS: tuple[tuple[str, frozenset[str], str | None], ...] = (
    ("turn on the big light in the lounge", frozenset({"light.living_room_ceiling"}), None),
    ("switch off the ceiling light in the kitchen", frozenset({"light.kitchen_ceiling"}), None),
    ("turn off the kitchen", frozenset({"light.kitchen_ceiling", "switch.coffee_maker"}), None),
    ("close the shutters in the living room", frozenset({"cover.lounge_blinds"}), None),
    ("close the blinds in the kitchen", frozenset({"cover.kitchen_blinds"}), None),
    ("what's the temperature in the study", frozenset({"sensor.office_temperature"}), None),
    ("how warm is it in the master bedroom", frozenset({"sensor.bedroom_temperature"}), None),
    ("turn on the desk lamp", frozenset({"light.desk_lamp"}), None),
    ("put the reading light on", frozenset({"light.reading_lamp"}), None),
    ("pause the telly", frozenset({"media_player.lounge_tv"}), None),
    ("lock the front door", frozenset({"lock.front_door"}), None),
    ("is the coffee maker on", frozenset({"switch.coffee_maker"}), None),
    ("turn on the ceiling light", frozenset({"light.hallway_ceiling"}), "hallway"),
    ("turn on the fan", frozenset({"fan.kids_fan"}), "kids_room"),
    ("it's too dark in here", frozenset({"light.office_ceiling", "light.desk_lamp"}), "office"),
    ("turn off the lights in the hall", frozenset({"light.hallway_ceiling"}), None),
    ("what's the temperature in the hallway", frozenset({"sensor.hallway_temperature"}), None),
    ("is it warm in the kids room", frozenset({"sensor.kids_room_temperature"}), None),
    ("switch the lounge tv off", frozenset({"media_player.lounge_tv"}), None),
    ("turn the bedroom light off", frozenset({"light.bedroom_ceiling"}), None),
)


@pytest.fixture(scope="module")
def home() -> HomeModel:
    return small_home()


@pytest.fixture(scope="module")
def index(home: HomeModel) -> ContextIndex:
    return ContextIndex.build(home)


def chosen(index: ContextIndex, text: str, **kwargs: object) -> set[str]:
    return set(select(index, SelectionRequest(text, **kwargs)).entity_ids)  # type: ignore[arg-type]


def test_recall_on_a_fixed_request_set(index: ContextIndex) -> None:
    """Every fixed request's entities are in its selection, with at most a few others each."""
    missed = [
        text
        for text, targets, speaker in FIXED_REQUESTS
        if not targets <= chosen(index, text, speaker_area_id=speaker)
    ]
    assert missed == []


def test_area_alias_paraphrase_selects_the_area_and_names_the_reason(index: ContextIndex) -> None:
    """The big light in the lounge is the Living Room's ceiling light, by area and by name."""
    selection = select(index, SelectionRequest("turn on the big light in the lounge"))
    assert selection.area_ids == ("living_room",)
    first = selection.entities[0]
    assert first.entity_id == "light.living_room_ceiling"
    assert set(first.reasons) >= {"area", "name"}


def test_each_word_reaches_as_far_as_the_longest_name_it_starts(index: ContextIndex) -> None:
    """Names and places are tried from a word only up to the longest one starting with it."""
    assert index.name_reach["ceiling"] == 2  # Ceiling Light, Ceiling Fan
    assert index.name_reach["kid"] == 3  # Kids Room Temperature
    assert "turn" not in index.name_reach
    assert index.place_reach["master"] == 2  # Master Bedroom
    assert index.place_reach["first"] == 2  # First Floor
    assert "light" not in index.place_reach


def test_a_place_of_two_words_after_a_word_starting_none_is_found(index: ContextIndex) -> None:
    """The reach changes only how far a word is tried: "the master bedroom" is the bedroom."""
    selection = select(index, SelectionRequest("switch off the lamp in the master bedroom"))
    assert selection.area_ids == ("bedroom",)
    assert selection.entities[0].entity_id == "light.reading_lamp"


def test_speaker_area_entities_come_with_a_request_naming_no_place(index: ContextIndex) -> None:
    """A satellite's area lends its entities, marked as the speaker's area."""
    selection = select(index, SelectionRequest("turn on the light", speaker_area_id="office"))
    reasons = {s.entity_id: s.reasons for s in selection.entities}
    assert "speaker_area" in reasons["light.office_ceiling"]
    assert "speaker_area" in reasons["light.desk_lamp"]


def test_history_and_memory_entities_are_selected_with_their_reasons(index: ContextIndex) -> None:
    """Entities from the conversation and from recalled memories are listed, and say why."""
    selection = select(
        index,
        SelectionRequest(
            "turn it off again",
            history_entity_ids=("light.desk_lamp",),
            memory_entity_ids=("lock.front_door",),
        ),
    )
    reasons = {s.entity_id: s.reasons for s in selection.entities}
    assert reasons["light.desk_lamp"] == ("history",)
    assert reasons["lock.front_door"] == ("memory",)


def test_unexposed_entities_are_never_selected(index: ContextIndex) -> None:
    """An entity hidden from Assist is not chosen by name, area, history or memory."""
    got = chosen(
        index,
        "turn on the secret lamp in the office",
        history_entity_ids=("light.secret_lamp",),
        memory_entity_ids=("light.secret_lamp",),
        speaker_area_id="office",
    )
    assert "light.secret_lamp" not in got
    assert "light.desk_lamp" in got


def test_summary_lists_places_and_counts_not_entities(home: HomeModel) -> None:
    """The large-home summary names floors, areas with aliases and counts, but no device."""
    summary = compact_summary(home)
    assert summary is not None
    assert "Living Room, Lounge" in summary
    assert "Ground Floor, Downstairs" in summary
    assert "light: 8" in summary  # the unexposed Secret Lamp is not counted
    assert "sensor: 6 (temperature 6)" in summary
    assert "Desk Lamp" not in summary


@pytest.fixture(scope="module")
def generated() -> tuple[HomeModel, ContextIndex]:
    _home, model = large_home(1_000, seed=3)
    return model, ContextIndex.build(model)


def test_generated_home_requests_find_their_entities(
    generated: tuple[HomeModel, ContextIndex],
) -> None:
    """On a generated 1,000-entity home, 99% of 300 generated requests find all their targets."""
    model, index = generated
    requests = generated_requests(model, 300, seed=3)
    found = [
        r.targets
        <= set(
            select(
                index,
                SelectionRequest(
                    r.text, r.speaker_area_id, r.history_entity_ids, r.memory_entity_ids
                ),
            ).entity_ids
        )
        for r in requests
    ]
    assert sum(found) / len(found) >= 0.99


def test_generated_home_speaker_history_and_memory(
    generated: tuple[HomeModel, ContextIndex],
) -> None:
    """In a generated home the speaker's area, history and memories each bring their entity."""
    model, index = generated
    area_id, members = next((a, m) for a, m in index.by_area.items() if len(m) >= 3)
    elsewhere = [e for e in index.entities if index.entities[e].area_id != area_id]
    selection = select(
        index,
        SelectionRequest(
            "and again please",
            speaker_area_id=area_id,
            history_entity_ids=(elsewhere[0],),
            memory_entity_ids=(elsewhere[-1],),
        ),
    )
    reasons = {s.entity_id: s.reasons for s in selection.entities}
    assert all("speaker_area" in reasons[e] for e in members)
    assert "history" in reasons[elsewhere[0]]
    assert "memory" in reasons[elsewhere[-1]]
    assert set(reasons) <= set(index.entities)
    assert all(model.is_exposed(e) for e in reasons)
