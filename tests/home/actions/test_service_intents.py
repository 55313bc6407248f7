"""Light, position, media, fan and vacuum intents on the virtual executor."""

from __future__ import annotations

from typing import Any

from addon.home.actions.executor import ServiceCall
from addon.home.actions.response import ErrorCode
from addon.home.actions.virtual import VirtualExecutor
from tests.home.actions.conftest import Run


def attributes(virtual: VirtualExecutor, entity_id: str) -> dict[str, Any]:
    current = virtual.model.state(entity_id)
    assert current is not None
    return {"state": current.state, **current.attributes}


async def test_light_set_brightness_percent(run: Run, virtual: VirtualExecutor) -> None:
    """Brightness 50 % is light.turn_on brightness_pct 50, i.e. brightness 128."""
    result = await run("HassLightSet", {"name": "Kitchen Ceiling", "brightness": 50})
    assert result.calls == (
        ServiceCall("light", "turn_on", ("light.kitchen_ceiling",), {"brightness_pct": 50}),
    )
    assert attributes(virtual, "light.kitchen_ceiling")["brightness"] == 128


async def test_light_set_colour_name(run: Run, virtual: VirtualExecutor) -> None:
    """A colour name becomes rgb_color; an hs light shows it in hs, rgb and xy."""
    await run("HassLightSet", {"name": "Counter Lights", "color": "red"})
    light = attributes(virtual, "light.counter")
    assert light["state"] == "on"
    assert (light["color_mode"], light["hs_color"], light["xy_color"]) == (
        "hs",
        [0.0, 100.0],
        [0.701, 0.299],
    )


async def test_light_set_colour_on_rgbw_light(run: Run, virtual: VirtualExecutor) -> None:
    """On an RGBW light the colour becomes rgbw_color."""
    await run("HassLightSet", {"name": "desk light", "color": "blue"})
    assert attributes(virtual, "light.office_strip")["rgbw_color"] == [0, 0, 255, 0]


async def test_light_set_temperature(run: Run, virtual: VirtualExecutor) -> None:
    """Temperature is color_temp_kelvin."""
    await run("HassLightSet", {"name": "Kitchen Ceiling", "temperature": 3000})
    light = attributes(virtual, "light.kitchen_ceiling")
    assert (light["color_mode"], light["color_temp_kelvin"], light["color_temp"]) == (
        "color_temp",
        3000,
        333,
    )


async def test_light_set_brightness_zero_turns_it_off(run: Run, virtual: VirtualExecutor) -> None:
    """Brightness 0 turns the light off, as HA's light.turn_on does."""
    await run("HassLightSet", {"name": "Kitchen Ceiling", "brightness": 0})
    light = attributes(virtual, "light.kitchen_ceiling")
    assert (light["state"], light["brightness"]) == ("off", None)


async def test_light_comes_back_with_its_colour(run: Run, virtual: VirtualExecutor) -> None:
    """Off then on restores the brightness and colour it had."""
    await run("HassTurnOff", {"name": "Kitchen Ceiling"})
    await run("HassTurnOn", {"name": "Kitchen Ceiling"})
    light = attributes(virtual, "light.kitchen_ceiling")
    assert (light["brightness"], light["hs_color"]) == (180, [345.0, 75.0])


async def test_set_position_on_a_cover(run: Run, virtual: VirtualExecutor) -> None:
    """HassSetPosition calls cover.set_cover_position with the position."""
    result = await run("HassSetPosition", {"name": "Living Room Blinds", "position": 30})
    assert result.calls[0].as_dict() == {
        "domain": "cover",
        "service": "set_cover_position",
        "entity_ids": ["cover.living_room_blinds"],
        "data": {"position": 30},
    }
    assert attributes(virtual, "cover.living_room_blinds")["current_position"] == 30


async def test_set_position_on_a_valve(run: Run, virtual: VirtualExecutor) -> None:
    """On a valve it is valve.set_valve_position."""
    result = await run("HassSetPosition", {"name": "Garden Valve", "position": 40})
    assert result.calls[0].service == "set_valve_position"


async def test_set_position_refuses_an_area_with_other_domains(run: Run) -> None:
    """An area holding a light: HA's handler fails the whole intent (domain not supported)."""
    result = await run("HassSetPosition", {"area": "Living Room", "position": 50})
    assert result.error_code is ErrorCode.FAILED_TO_HANDLE
    assert "Domain not supported" in (result.message or "")


async def test_media_pause_a_playing_tv(run: Run, virtual: VirtualExecutor) -> None:
    """HassMediaPause pauses a playing player."""
    await run("HassMediaPause", {"name": "TV"})
    assert attributes(virtual, "media_player.tv")["state"] == "paused"


async def test_media_pause_needs_a_playing_player(run: Run) -> None:
    """Pausing a paused speaker fails on the state constraint and says 'playing'."""
    result = await run("HassMediaPause", {"name": "Kitchen Speaker"})
    assert result.error_code is ErrorCode.NO_VALID_TARGETS
    assert "playing" in (result.message or "")


async def test_media_unpause_a_paused_speaker(run: Run, virtual: VirtualExecutor) -> None:
    """HassMediaUnpause resumes a paused player with media_play."""
    result = await run("HassMediaUnpause", {"area": "Kitchen"})
    assert result.calls[0].service == "media_play"
    assert attributes(virtual, "media_player.kitchen_speaker")["state"] == "playing"


async def test_media_next_skips_a_track(run: Run, virtual: VirtualExecutor) -> None:
    """HassMediaNext moves the track number on."""
    await run("HassMediaNext", {"name": "TV"})
    assert attributes(virtual, "media_player.tv")["media_track"] == 4


async def test_media_previous_goes_back(run: Run, virtual: VirtualExecutor) -> None:
    """HassMediaPrevious moves the track number back."""
    await run("HassMediaPrevious", {"device_class": ["tv"]})
    assert attributes(virtual, "media_player.tv")["media_track"] == 2


async def test_media_next_needs_the_feature(run: Run) -> None:
    """A radio that cannot skip fails on the feature constraint."""
    result = await run("HassMediaNext", {"name": "Radio"})
    assert "able to skip" in (result.message or "")


async def test_set_volume_divides_by_100(run: Run, virtual: VirtualExecutor) -> None:
    """Volume 30 % is volume_level 0.3."""
    result = await run("HassSetVolume", {"name": "TV", "volume_level": 30})
    assert result.calls[0].data == {"volume_level": 0.3}
    assert attributes(virtual, "media_player.tv")["volume_level"] == 0.3


async def test_fan_set_speed(run: Run, virtual: VirtualExecutor) -> None:
    """HassFanSetSpeed turns the fan on at the percentage."""
    result = await run("HassFanSetSpeed", {"name": "Bedroom Fan", "percentage": 50})
    assert result.calls[0] == ServiceCall(
        "fan", "turn_on", ("fan.bedroom_fan",), {"percentage": 50}
    )
    fan = attributes(virtual, "fan.bedroom_fan")
    assert (fan["state"], fan["percentage"]) == ("on", 50)


async def test_fan_turned_on_without_speed_runs_at_67(run: Run, virtual: VirtualExecutor) -> None:
    """A fan turned on without a speed runs at the demo's 67 %."""
    await run("HassTurnOn", {"name": "Bedroom Fan"})
    assert attributes(virtual, "fan.bedroom_fan")["percentage"] == 67


async def test_fan_set_speed_only_matches_fans(run: Run) -> None:
    """HassFanSetSpeed's required domain keeps a light of that name out."""
    result = await run("HassFanSetSpeed", {"name": "Kitchen Ceiling", "percentage": 50})
    assert result.error_code is ErrorCode.NO_VALID_TARGETS


async def test_vacuum_start(run: Run, virtual: VirtualExecutor) -> None:
    """HassVacuumStart starts cleaning."""
    await run("HassVacuumStart", {"name": "Robot"})
    assert attributes(virtual, "vacuum.robot")["state"] == "cleaning"


async def test_vacuum_return_to_base(run: Run, virtual: VirtualExecutor) -> None:
    """HassVacuumReturnToBase leaves the vacuum returning."""
    await run("HassVacuumReturnToBase", {"name": "Robot"})
    assert attributes(virtual, "vacuum.robot")["state"] == "returning"
