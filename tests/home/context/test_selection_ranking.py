"""Context selection when look-alikes outnumber what a turn lists: which come first, and why."""

from __future__ import annotations

import pytest

from addon.home.context.context_index import ContextIndex
from addon.home.context.selection import LIMIT, NAME_LIMIT, SelectionRequest, select
from addon.home.model.live import HomeModel
from tests.home.homes import T0, HomeData

ROOMS = 20
"""Generated-looking rooms, each with the same devices: more look-alikes than a name's share."""


def look_alike_home() -> HomeModel:
    """Twenty rooms with the same "Desk Lamp", "Strip Light", "Shades" and sensor each.

    Beside them, the few devices of the home's own rooms: an office, a patio, a garden.
    """
    home = HomeData()
    add = home.entity
    blind = {"device_class": "blind"}
    temperature = {"device_class": "temperature", "unit_of_measurement": "°C"}
    for i in range(ROOMS):
        home.area(f"r{i}", f"Room {i}")
        add(f"light.desk_lamp_{i}", friendly_name="Desk Lamp", area_id=f"r{i}", expose=True)
        add(f"light.strip_{i}", friendly_name="Strip Light", area_id=f"r{i}", expose=True)
        add(f"light.lamp_{i}", friendly_name="Lamp", area_id=f"r{i}", expose=True)
        add(f"cover.shades_{i}", state="open", friendly_name="Shades", attributes=blind,
            area_id=f"r{i}", expose=True)  # fmt: skip
        add(f"cover.shades_{i}_b", state="open", friendly_name="Shades", attributes=blind,
            area_id=f"r{i}", expose=True)  # fmt: skip
        add(f"sensor.climate_{i}", state="21", friendly_name=f"Room {i} Climate",
            attributes=temperature, area_id=f"r{i}", expose=True)  # fmt: skip
    for i in range(NAME_LIMIT + 1):
        add(f"cover.blinds_{i}", state="open", friendly_name="Blinds", attributes=blind,
            area_id=f"r{i}", expose=True)  # fmt: skip
    home.area("office", "Office")
    home.area("patio", "Patio")
    home.area("garten", "Garten")
    add("light.desk_strip", friendly_name="Desk light strip", area_id="office", expose=True)
    add("cover.office_blind", state="open", friendly_name="Office blind", attributes=blind,
        area_id="office", expose=True)  # fmt: skip
    add("sensor.outdoor", state="7", friendly_name="Outdoor temperature",
        attributes=temperature, expose=True)  # fmt: skip
    add("sensor.aussen", state="7", friendly_name="Außentemperatur", attributes=temperature,
        area_id="garten", expose=True)  # fmt: skip
    add("sensor.patio", state="9", friendly_name="Patio Sensor", attributes=temperature,
        area_id="patio", expose=True)  # fmt: skip
    # The look-alikes changed most recently: recency alone would list them first.
    for entity_id, state in home.states.items():
        state["lc"] = T0 + 3600 if entity_id.split(".")[1][:5] in ("shade", "clima") else T0
    return home.build()


@pytest.fixture(scope="module")
def home() -> HomeModel:
    return look_alike_home()


@pytest.fixture(scope="module")
def index(home: HomeModel) -> ContextIndex:
    return ContextIndex.build(home)


def ids(index: ContextIndex, home: HomeModel, text: str, **kwargs: object) -> list[str]:
    request = SelectionRequest(text, state=home.state, **kwargs)  # type: ignore[arg-type]
    return select(index, request).entity_ids


def test_a_whole_name_shared_by_many_lists_every_one_up_to_the_cap(
    index: ContextIndex, home: HomeModel
) -> None:
    """For "turn on the desk lamp": all twenty Desk Lamps, not the first twelve of them."""
    chosen = ids(index, home, "turn on the desk lamp")
    assert {f"light.desk_lamp_{i}" for i in range(ROOMS)} <= set(chosen)


def test_the_longest_name_said_wins_over_a_name_inside_it(
    index: ContextIndex, home: HomeModel
) -> None:
    """For "the desk lamp", the Desk Lamps: every "Lamp" ranks below them."""
    chosen = ids(index, home, "turn on the desk lamp")
    assert set(chosen[:ROOMS]) == {f"light.desk_lamp_{i}" for i in range(ROOMS)}


def test_the_speaker_area_decides_a_shared_name(index: ContextIndex, home: HomeModel) -> None:
    """From a satellite in Room 3 "the desk lamp" is Room 3's, listed first."""
    chosen = ids(index, home, "turn on the desk lamp", speaker_area_id="r3")
    assert chosen[0] == "light.desk_lamp_3"


def test_words_in_the_order_a_longer_name_has_them_find_it(
    index: ContextIndex, home: HomeModel
) -> None:
    """For "the light strip": "Desk light strip", though twenty "Strip Light"s hold both."""
    assert "light.desk_strip" in ids(index, home, "switch off the light strip")


def test_outside_puts_devices_outdoors_first(index: ContextIndex, home: HomeModel) -> None:
    """For "the temperature outside": outdoor sensors by name or area before newer indoor ones."""
    request = SelectionRequest("what's the temperature outside", state=home.state)
    selection = select(index, request, limit=3)
    assert set(selection.entity_ids) == {"sensor.outdoor", "sensor.aussen", "sensor.patio"}
    assert all("outdoors" in selected.reasons for selected in selection.entities)


def test_outside_in_german_finds_a_compound_name(index: ContextIndex, home: HomeModel) -> None:
    """For "wie warm ist es draußen": "Außentemperatur" says outdoors inside one word."""
    request = SelectionRequest("wie warm ist es draußen", state=home.state)
    assert select(index, request, limit=1).entity_ids == ["sensor.aussen"]


def test_outside_from_a_satellite_looks_past_its_room(index: ContextIndex, home: HomeModel) -> None:
    """A satellite's room with a sensor of its own does not stand in for "outside"."""
    chosen = ids(index, home, "what's the temperature outside", speaker_area_id="r1")
    assert {"sensor.outdoor", "sensor.aussen", "sensor.patio"} <= set(chosen)


def test_in_a_kind_above_the_cap_names_holding_the_words_come_first(
    index: ContextIndex, home: HomeModel
) -> None:
    """For "close the blind": "Office blind" before forty newer "Shades" of the same class."""
    assert "cover.office_blind" in ids(index, home, "close the blind")


def test_a_kind_above_the_cap_says_how_many_were_left_out(
    index: ContextIndex, home: HomeModel
) -> None:
    """The devices of a kind named alone that did not fit are counted, for the model and trace."""
    selection = select(index, SelectionRequest("close the blind", state=home.state))
    total = len(index.by_kind[("cover", "blind")])
    assert selection.unlisted == ((("cover", "blind"), total - LIMIT),)
    assert selection.unlisted_note() == (
        f"Not listed: {total - LIMIT} more cover (blind); "
        "`SearchEntities` finds them by name, area or kind.\n"
    )


def test_a_kind_that_fits_leaves_nothing_unlisted(index: ContextIndex, home: HomeModel) -> None:
    """Blinds in a named place are all listed: no note."""
    selection = select(index, SelectionRequest("close the blind in the office"))
    assert selection.unlisted == ()
    assert selection.unlisted_note() == ""


def test_a_kind_above_the_cap_is_spread_over_its_areas() -> None:
    """Three blinds in each of three rooms, one room's newest: a cap of three takes one a room."""
    home = HomeData()
    blind = {"device_class": "blind"}
    for room in ("a", "b", "c"):
        home.area(room, f"Room {room}")
        for i in range(3):
            home.entity(f"cover.{room}{i}", state="open", friendly_name=f"Window {room}{i}",
                        attributes=blind, area_id=room, expose=True)  # fmt: skip
            home.states[f"cover.{room}{i}"]["lc"] = T0 + (3600 if room == "a" else i)
    model = home.build()
    request = SelectionRequest("close the blinds", state=model.state)
    chosen = select(ContextIndex.build(model), request, limit=3).entity_ids
    assert sorted(entity_id[6] for entity_id in chosen) == ["a", "b", "c"]
