"""Kinds of device named by the words people use: verbs, objects, uses, in several languages."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from addon.home.context.context_index import ContextIndex
from addon.home.context.lexicon import KIND_WORDS, words
from addon.home.context.selection import SelectionRequest, select
from addon.home.model.live import HomeModel
from addon.home.model.records import EntityState
from tests.home.homes import HomeData

ROOT = Path(__file__).resolve().parents[3]
SERVED = ("en", "de", "fr", "es", "nl", "it", "pl", "pt")


def kinds_home() -> HomeModel:
    """A home whose devices are named without the words for their kinds ("Robbie", "Hallway")."""
    home = HomeData()
    home.area("hallway", "Hallway")
    home.area("kitchen", "Kitchen")
    home.area("garden", "Garden")
    add = home.entity
    add("vacuum.robbie", state="docked", friendly_name="Robbie", area_id="hallway", expose=True)
    add("lock.entry", state="locked", friendly_name="Smart Entry", area_id="hallway", expose=True)
    add("lock.shed", state="locked", friendly_name="Shed", area_id="garden", expose=True)
    add("binary_sensor.entry_contact", state="off", friendly_name="Entry Contact",
        attributes={"device_class": "door"}, area_id="hallway", expose=True)  # fmt: skip
    add("media_player.radio", state="playing", friendly_name="Kitchen Radio", area_id="kitchen",
        expose=True)  # fmt: skip
    add("todo.einkauf", state="2", friendly_name="Einkauf", expose=True)
    add("valve.beds", state="closed", friendly_name="Beds", area_id="garden", expose=True)
    add("climate.main", state="heat", friendly_name="Main", area_id="hallway", expose=True)
    add("cover.kitchen", state="open", friendly_name="Kitchen Window Covering",
        attributes={"device_class": "curtain"}, area_id="kitchen", expose=True)  # fmt: skip
    add("light.kitchen", state="off", friendly_name="Kitchen Pendant", area_id="kitchen",
        expose=True)  # fmt: skip
    return home.build()


@pytest.fixture(scope="module")
def index() -> ContextIndex:
    return ContextIndex.build(kinds_home())


def chosen(index: ContextIndex, text: str) -> set[str]:
    return set(select(index, SelectionRequest(text)).entity_ids)


def test_every_served_language_has_kind_words() -> None:
    """The word file speaks every language the add-on serves (spot checks, one per language)."""
    samples = {
        "en": "vacuuming", "de": "staubsauger", "fr": "aspirateur", "es": "aspiradora",
        "nl": "stofzuiger", "it": "aspirapolvere", "pl": "odkurzacz", "pt": "aspirar",
    }  # fmt: skip
    assert set(samples) == set(SERVED)
    for word in samples.values():
        assert ("vacuum", None) in KIND_WORDS[words(word)[0]], word


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("start vacuuming", "vacuum.robbie"),
        ("send it back to the base", "vacuum.robbie"),
        ("starte den Staubsauger", "vacuum.robbie"),
    ],
)
def test_vacuum_verbs_and_places_name_the_vacuum(
    index: ContextIndex, text: str, meant: str
) -> None:
    """Vacuuming, cleaning, its base: the vacuum, whatever it is called."""
    assert meant in chosen(index, text)


@pytest.mark.parametrize("text", ["next song", "turn the volume down", "nächstes Lied"])
def test_what_a_player_plays_names_the_media_player(index: ContextIndex, text: str) -> None:
    """Songs, tracks, volume: the media player."""
    assert "media_player.radio" in chosen(index, text)


@pytest.mark.parametrize("text", ["add eggs to the shopping list", "what's on the list",
                                  "setz Milch auf die Liste"])  # fmt: skip
def test_lists_and_shopping_name_the_todo_lists(index: ContextIndex, text: str) -> None:
    """Shopping, groceries, the list: the to-do lists."""
    assert "todo.einkauf" in chosen(index, text)


@pytest.mark.parametrize("text", ["start watering", "turn on the sprinklers", "arrose"])
def test_watering_names_the_valves(index: ContextIndex, text: str) -> None:
    """Water, watering, sprinklers: the valves."""
    assert "valve.beds" in chosen(index, text)


@pytest.mark.parametrize("text", ["make it warmer", "turn the heating up", "dreh die Heizung auf"])
def test_warmth_and_heating_name_the_thermostat(index: ContextIndex, text: str) -> None:
    """Warmer, colder, heating: the climate devices."""
    assert "climate.main" in chosen(index, text)


@pytest.mark.parametrize("text", ["close the curtains", "ferme les rideaux"])
def test_curtains_name_covers_of_that_class(index: ContextIndex, text: str) -> None:
    """Blinds, curtains, shutters: covers, of the device class Home Assistant's lists give."""
    selection = select(index, SelectionRequest(text))
    assert "cover.kitchen" in selection.entity_ids
    assert ("cover", "curtain") in selection.kinds


@pytest.mark.parametrize("text", ["lock the door", "verrouille la porte", "verriegle die Tür"])
def test_lock_the_door_means_locks_not_door_sensors(index: ContextIndex, text: str) -> None:
    """With a lock word, "door" is a lock: every lock, and the door sensor not for its kind."""
    selection = select(index, SelectionRequest(text))
    assert {kind[0] for kind in selection.kinds} == {"lock"}
    assert {"lock.entry", "lock.shed"} <= set(selection.entity_ids)
    assert "binary_sensor.entry_contact" not in selection.entity_ids


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("switch off the lamp", {("light", None)}),
        ("ok switch it off then", set()),
        ("could you switch the fan on", {("fan", None)}),
        ("turn on the switch", {("switch", None)}),
        ("is the coffee switch on", {("switch", None)}),
    ],
)
def test_switch_as_a_verb_names_no_kind(
    index: ContextIndex, text: str, kinds: set[tuple[str, str | None]]
) -> None:
    """First or after "you", "ok", ..., "switch" is the verb; after "the" or a name, a switch."""
    assert set(select(index, SelectionRequest(text)).kinds) == kinds


def test_a_kind_in_a_place_without_one_lists_the_kind_home_wide(index: ContextIndex) -> None:
    """For "vacuum the kitchen", which has none, the vacuum in the hallway comes."""
    selection = select(index, SelectionRequest("vacuum the kitchen"))
    reasons = {s.entity_id: s.reasons for s in selection.entities}
    assert "every_of_kind" in reasons["vacuum.robbie"]
    assert "light.kitchen" in reasons  # the place still counts


def test_a_kind_in_a_place_with_one_stays_in_the_place(index: ContextIndex) -> None:
    """For "lock the garden", the garden's lock, marked as of the kind; not every lock."""
    selection = select(index, SelectionRequest("lock the garden"))
    reasons = {s.entity_id: s.reasons for s in selection.entities}
    assert reasons["lock.shed"] == ("area", "kind")
    assert "lock.entry" not in reasons


def many_locks_home(count: int) -> HomeModel:
    home = HomeData()
    home.area("hall", "Hall")
    for i in range(count):
        home.entity(f"lock.l{i}", state="locked", friendly_name=f"Bolt {i}", area_id="hall",
                    expose=True)  # fmt: skip
    home.entity("media_player.off", state="off", friendly_name="Quiet", expose=True)
    home.entity("media_player.on", state="playing", friendly_name="Loud", expose=True)
    return home.build()


def test_every_device_of_a_kind_named_alone_newest_first_up_to_the_cap() -> None:
    """For "unlock the doors", every lock, the most recently changed first, up to the cap."""
    index = ContextIndex.build(many_locks_home(6))
    changed = {f"lock.l{i}": 1000.0 + t for i, t in enumerate((5, 1, 6, 2, 4, 3))}

    def state(entity_id: str) -> EntityState:
        return EntityState.from_compressed(entity_id, {"s": "locked", "lc": changed[entity_id]})

    selection = select(index, SelectionRequest("unlock the doors", state=state), limit=3)
    assert selection.entity_ids == ["lock.l2", "lock.l0", "lock.l4"]
    assert all(s.reasons == ("every_of_kind",) for s in selection.entities)


def test_media_players_a_command_can_act_on_come_first() -> None:
    """For "next song", a playing player before an idle one, as Home Assistant's intents do."""
    model = many_locks_home(0)
    index = ContextIndex.build(model)
    selection = select(index, SelectionRequest("next song", state=model.state), limit=1)
    assert selection.entity_ids == ["media_player.on"]


def test_a_name_of_the_kind_keeps_a_large_kind_from_being_listed() -> None:
    """For "unlock bolt 3", one lock named: the others of a kind above the cap stay out."""
    index = ContextIndex.build(many_locks_home(6))
    selection = select(index, SelectionRequest("unlock bolt 3"), limit=4)
    reasons = {s.entity_id: s.reasons for s in selection.entities}
    assert "name" in reasons["lock.l3"]
    assert not any("every_of_kind" in r for r in reasons.values())


def test_the_word_file_holds_every_hand_written_word() -> None:
    """kind_words.json was regenerated after devtools/data/kind_words.yaml last changed."""
    hand = yaml.safe_load((ROOT / "devtools" / "data" / "kind_words.yaml").read_text("utf-8"))
    assert set(hand) == set(SERVED)
    for language, spec in hand.items():
        for kind, said in spec["kinds"].items():
            domain, _, device_class = kind.partition(".")
            for text in said:
                folded = words(text)
                assert (domain, device_class or None) in KIND_WORDS[folded[0]], (language, text)
