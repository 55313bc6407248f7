"""Who is asking: the actor of a turn, read from the request and the live home, never guessed."""

from __future__ import annotations

from addon.home.actions.actor import Actor, resolve_actor
from addon.home.model.live import HomeModel
from tests.home.homes import HomeData


def home() -> HomeModel:
    """Two people (one with a Home Assistant user), a satellite in the kids' room."""
    data = HomeData()
    data.area("kids_room", "Kids Room")
    data.device("sat_kids", "Kids Room Speaker", area_id="kids_room")
    data.entity(
        "assist_satellite.kids",
        state="idle",
        friendly_name="Kids Satellite",
        device_id="sat_kids",
    )
    data.entity(
        "person.anna", state="home", friendly_name="Anna", attributes={"user_id": "user-anna"}
    )
    data.entity("person.ben", state="home", friendly_name="Ben", attributes={"user_id": None})
    return data.build()


def test_a_user_is_mapped_to_the_person_whose_user_id_it_is() -> None:
    """The person entity's ``user_id`` attribute names the person of a Home Assistant user."""
    actor = resolve_actor(home(), endpoint="ui", user_id="user-anna", user_name="anna")
    assert (actor.person_id, actor.person_name) == ("person.anna", "Anna")


def test_a_user_with_no_person_is_known_only_as_the_user() -> None:
    """No person entity names the user: the person stays unknown, the user is kept."""
    actor = resolve_actor(home(), endpoint="ui", user_id="user-zed", user_name="zed")
    assert actor.person_id is None
    assert actor.as_dict()["person"] == {
        "user_id": "user-zed",
        "user_name": "zed",
        "person_id": "unknown",
        "name": "zed",
    }


def test_a_satellite_is_named_with_its_device_and_area() -> None:
    """A device id gives the satellite's name and area from the registry."""
    actor = resolve_actor(home(), endpoint="wyoming", device_id="sat_kids")
    assert (actor.satellite_name, actor.area_id, actor.area_name) == (
        "Kids Room Speaker",
        "kids_room",
        "Kids Room",
    )
    assert actor.satellite_label == "Kids Room Speaker (Kids Room)"


def test_a_satellite_entity_alone_finds_its_device() -> None:
    """Home Assistant may name only the ``assist_satellite`` entity: its device is found."""
    actor = resolve_actor(home(), endpoint="wyoming", satellite_id="assist_satellite.kids")
    assert (actor.device_id, actor.area_id) == ("sat_kids", "kids_room")


def test_what_a_path_cannot_tell_is_unknown() -> None:
    """Home Assistant 2025.4's Wyoming transcript names nobody: everything is "unknown"."""
    actor = resolve_actor(home(), endpoint="wyoming")
    assert actor == Actor("wyoming")
    shown = actor.as_dict()
    assert set(shown["person"].values()) == {"unknown"}  # type: ignore[union-attr]
    assert set(shown["satellite"].values()) == {"unknown"}  # type: ignore[union-attr]


def test_a_device_the_home_does_not_know_keeps_its_id_and_no_area() -> None:
    """An API caller's device id that is not in the registry: kept, its area unknown."""
    actor = resolve_actor(home(), endpoint="http", device_id="satellite-hall")
    assert (actor.device_id, actor.area_id) == ("satellite-hall", None)
