"""Our tools' safety labels: as Home Assistant labels the same tools, defaults for the unknown."""

from __future__ import annotations

from addon.home.actions.gate import UNLABELLED
from addon.web.mcp.labels import ADDS, CONTROLS, READS, REPEATS, labels


def test_reading_tools_are_read_only() -> None:
    """GetLiveContext and the state questions change nothing and stay in the home."""
    for name in ("GetLiveContext", "HassGetState", "HomeAgentSensorValue", "HassTimerStatus"):
        assert labels(name, "builtin" if name == "GetLiveContext" else "intent") == READS


def test_intents_carry_home_assistants_labels() -> None:
    """HassTurnOn acts again on every call, HassTurnOff is idempotent, adding an item only adds."""
    assert labels("HassTurnOn", "intent") == REPEATS
    assert labels("HassTurnOff", "intent") == CONTROLS
    assert labels("HassSetPosition", "intent") == CONTROLS
    assert labels("HassListAddItem", "intent") == ADDS
    assert not REPEATS.open_world


def test_a_users_tool_keeps_the_defaults_whatever_its_name() -> None:
    """A script or custom tool named like one of ours may do anything: the defaults."""
    assert labels("GetLiveContext", "custom") == UNLABELLED
    assert labels("open_garage", "script") == UNLABELLED
