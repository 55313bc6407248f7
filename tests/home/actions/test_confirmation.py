"""The confirmation policy: what it covers, what it leaves alone, and how a PIN is kept."""

from __future__ import annotations

import pytest

from addon.errors import StoreError
from addon.home.actions.confirmation import (
    ConfirmationPolicy,
    Holds,
    PolicyEntry,
    hash_pin,
    pin_matches,
)
from addon.i18n.confirmation import TABLE, question, says_yes
from tests.fixtures.policy import default_policy


def defaults(*extra: PolicyEntry) -> ConfirmationPolicy:
    """The install's defaults, then ``extra``."""
    return default_policy(*extra)


def kinds(entity_id: str) -> tuple[str | None, str]:
    """Device classes as the demo home has them."""
    return {"cover.garage_door": "garage", "cover.kitchen_window": "window"}.get(
        entity_id
    ), entity_id


@pytest.mark.parametrize(
    ("domain", "service", "entity_id"),
    [
        ("lock", "unlock", "lock.front_door"),
        ("lock", "open", "lock.front_door"),
        ("alarm_control_panel", "alarm_disarm", "alarm_control_panel.home"),
        ("cover", "open_cover", "cover.garage_door"),
    ],
)
def test_the_defaults_hold_unlocking_disarming_and_opening_a_garage(
    domain: str, service: str, entity_id: str
) -> None:
    """Each default entry holds its action."""
    holds = Holds(defaults(), kinds)
    assert holds.check(domain, service, [entity_id], {}) is not None


@pytest.mark.parametrize(
    ("domain", "service", "entity_id"),
    [
        ("lock", "lock", "lock.front_door"),
        ("cover", "open_cover", "cover.kitchen_window"),
        ("light", "turn_off", "light.kitchen"),
    ],
)
def test_the_defaults_leave_locking_windows_and_lights_alone(
    domain: str, service: str, entity_id: str
) -> None:
    """Locking, a window's cover and a light are not held."""
    holds = Holds(defaults(), kinds)
    assert holds.check(domain, service, [entity_id], {}) is None
    assert holds.held == []


def test_an_entity_entry_with_a_pin_wins_over_its_domain() -> None:
    """The front door's PIN entry decides for it; the back door keeps the domain's yes."""
    pin = PolicyEntry(9, "entity", "lock.front_door", ("unlock",), "pin", True, hash_pin("1234"))
    holds = Holds(defaults(pin), kinds)
    front = holds.check("lock", "unlock", ["lock.front_door"], {})
    back = holds.check("lock", "unlock", ["lock.back_door"], {})
    assert front is not None
    assert back is not None
    assert (front.method, back.method) == ("pin", "yes")


def test_an_entry_switched_off_holds_nothing() -> None:
    """With the lock entry off, unlocking goes through."""
    entries = [PolicyEntry(1, "domain", "lock", ("unlock",), enabled=False)]
    assert ConfirmationPolicy.of(entries).empty


def test_a_pin_is_kept_only_as_a_salted_hash() -> None:
    """The hash is not the PIN, differs each time, and checks the right PIN only."""
    first, second = hash_pin("4711"), hash_pin("4711")
    assert "4711" not in first
    assert first != second
    assert pin_matches("4711", first)
    assert not pin_matches("4712", first)


@pytest.mark.parametrize("language", sorted(TABLE))
def test_every_language_asks_and_hears_its_own_yes(language: str) -> None:
    """Each of the eight languages has its question and recognises its own first yes-word."""
    asked = question("unlock", "lock", "Front Door", False, language)
    assert "Front Door" in asked
    assert says_yes(TABLE[language].yes[0].capitalize() + ".", language)
    assert not says_yes("yes, but first the lights", language)


def test_a_call_that_asks_is_held_by_yes_with_no_entry() -> None:
    """A tool labelled destructive is held even by an empty policy, confirmed by yes."""
    held = Holds(ConfirmationPolicy.of([])).check("mcp", "notes__clear", [], {}, asks=True)
    assert held is not None
    assert (held.action, held.method) == ("mcp.notes__clear", "yes")


def test_an_entry_on_decides_how_a_call_that_asks_is_confirmed() -> None:
    """An entry naming the tool wins over the label's yes (a PIN stays a PIN)."""
    entry = PolicyEntry(9, "domain", "mcp", ("notes__clear",), "pin", pin_hash="x")
    held = Holds(defaults(entry)).check("mcp", "notes__clear", [], {}, asks=True)
    assert held is not None
    assert held.method == "pin"


def test_an_entry_switched_off_waives_a_call_that_asks() -> None:
    """The user switched off an entry naming the tool: the label asks no more."""
    entry = PolicyEntry(9, "domain", "mcp", ("notes__clear",), enabled=False)
    assert Holds(defaults(entry)).check("mcp", "notes__clear", [], {}, asks=True) is None


@pytest.mark.parametrize(("field", "value"), [("scope", "room"), ("method", "fingerprint")])
def test_a_stored_entry_with_a_value_nobody_wrote_is_refused(field: str, value: str) -> None:
    """An unknown scope or method is a StoreError, not read as "yes" or a KeyError."""
    stored: dict[str, object] = {
        "id": 9,
        "scope": "domain",
        "target": "lock",
        "actions": ("unlock",),
        "method": "yes",
        "enabled": True,
        "pin_hash": None,
    }
    stored[field] = value
    with pytest.raises(StoreError, match=f"confirmation entry 9's {field}"):
        ConfirmationPolicy.of_rows([type("Row", (), stored)()])
