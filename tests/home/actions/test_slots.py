"""Slot validation: HA's conversions, and clear errors where a model got it wrong."""

from __future__ import annotations

from typing import Any

import pytest

from addon.errors import ToolError
from addon.home.actions.intents import INTENTS
from addon.home.actions.response import ErrorCode
from addon.home.actions.slots import validate_slots
from tests.home.actions.conftest import Run


def check(intent: str, slots: dict[str, Any]) -> dict[str, Any]:
    return validate_slots(INTENTS[intent], slots)


def test_domain_string_becomes_a_list() -> None:
    """A single domain string is wrapped, as cv.ensure_list does."""
    assert check("HassTurnOn", {"domain": "light"})["domain"] == ["light"]


def test_numeric_string_position_is_coerced() -> None:
    """'40' is position 40 (vol.Coerce(int))."""
    assert check("HassSetPosition", {"name": "Blinds", "position": "40"})["position"] == 40


def test_float_brightness_is_truncated() -> None:
    """40.7 becomes 40, as int() does in vol.Coerce."""
    assert check("HassLightSet", {"name": "Lamp", "brightness": 40.7})["brightness"] == 40


def test_colour_name_becomes_rgb() -> None:
    """Colour names resolve as HA does, spaces and case ignored."""
    assert check("HassLightSet", {"name": "Lamp", "color": "Dark Blue"})["color"] == (0, 0, 139)


def test_unknown_slot_is_refused_with_the_accepted_ones() -> None:
    """A slot the intent lacks names the slots it does accept."""
    with pytest.raises(ToolError, match=r"no slot 'colour'.*name, area, floor, domain"):
        check("HassLightSet", {"name": "Lamp", "colour": "red"})


def test_missing_required_slot_is_named() -> None:
    """A missing required slot is named."""
    with pytest.raises(ToolError, match="needs the slot 'position'"):
        check("HassSetPosition", {"name": "Blinds"})


def test_out_of_range_brightness_states_the_bounds() -> None:
    """Brightness 150 is refused with the allowed range."""
    with pytest.raises(ToolError, match="between 0 and 100, not 150"):
        check("HassLightSet", {"name": "Lamp", "brightness": 150})


def test_word_for_a_number_is_refused() -> None:
    """'high' is not a position."""
    with pytest.raises(ToolError, match="'position' must be a whole number"):
        check("HassSetPosition", {"name": "Blinds", "position": "high"})


def test_boolean_for_a_number_is_refused() -> None:
    """True is not a volume, even though int(True) would be 1."""
    with pytest.raises(ToolError, match="not a boolean"):
        check("HassSetVolume", {"name": "TV", "volume_level": True})


def test_empty_name_is_refused() -> None:
    """A blank name is refused (non_empty_string)."""
    with pytest.raises(ToolError, match="must not be empty"):
        check("HassTurnOn", {"name": "  "})


def test_null_slot_is_refused_with_a_hint() -> None:
    """A null slot says to leave the slot out."""
    with pytest.raises(ToolError, match="leave the slot out"):
        check("HassTurnOn", {"name": "Lamp", "area": None})


def test_list_for_a_name_is_refused() -> None:
    """A list is not a name."""
    with pytest.raises(ToolError, match="must be a string, not a list"):
        check("HassTurnOn", {"name": ["Lamp"]})


def test_unknown_device_class_lists_the_allowed_ones() -> None:
    """HassTurnOn only takes the device classes of its enum."""
    with pytest.raises(ToolError, match=r"does not accept 'temperature'.*outlet"):
        check("HassTurnOn", {"device_class": ["temperature"]})


def test_media_intent_refuses_another_domain() -> None:
    """HassMediaPause's domain slot only accepts media_player."""
    with pytest.raises(ToolError, match="does not accept 'light'"):
        check("HassMediaPause", {"domain": ["light"]})


def test_unknown_colour_suggests_close_names() -> None:
    """A misspelt colour suggests the colours it resembles."""
    with pytest.raises(ToolError, match="unknown colour 'purpel'; did you mean purple"):
        check("HassLightSet", {"name": "Lamp", "color": "purpel"})


def test_preference_slots_are_accepted() -> None:
    """preferred_area_id passes through, as HA's slot schema allows it."""
    slots = check("HassTurnOn", {"name": "Lamp", "preferred_area_id": "kitchen"})
    assert slots["preferred_area_id"] == "kitchen"


async def test_bad_slots_come_back_as_an_error_result(run: Run) -> None:
    """handle_intent answers invalid slots with invalid_slots, never an exception."""
    result = await run("HassLightSet", {"name": "Counter Lights", "brightness": "full"})
    assert result.error_code is ErrorCode.INVALID_SLOTS
    assert "brightness" in (result.message or "")
