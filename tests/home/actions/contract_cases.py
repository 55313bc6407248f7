"""The table of intent calls run against Home Assistant's handler and ours, in order.

The order matters and is part of the design: each case starts where the previous one left both
homes (the test checks that both are the same before every case), so a pause is followed by an
unpause, a light set to 3000 K is later turned off and on again. Slots cover every combination
the brief asks for: name, area, area + name, area + domain, floor + domain, device class +
domain, plus errors Home Assistant and we must both refuse.

``virtual`` says how much of the live result the virtual executor must reproduce: ``full``
(state and the attributes it models), ``state`` (a light or media player coming back on from
off: Home Assistant does not show what brightness or volume an off device will return with,
so a dry run cannot know it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Reference:
    """What the reference home does for an intent Home Assistant 2025.4 lacks.

    HassFanSetSpeed arrived after 2025.4: the reference home makes the service call the later
    handler makes, and the targets are those that handler reports.
    """

    domain: str
    service: str
    data: dict[str, Any]
    entity_ids: tuple[str, ...]
    areas: tuple[tuple[str, str], ...] = ()
    """(area id, area name) reported first in ``success``, as the service handler does."""


@dataclass(frozen=True, slots=True)
class Case:
    """One intent call."""

    id: str
    intent: str
    slots: dict[str, Any] = field(default_factory=dict)
    reference: Reference | None = None
    ha_reports_success_for: tuple[str, ...] = ()
    """Entities whose service call fails but which HA 2025.4 lists under ``success``: its
    ``_run_then_background`` waits 0.2 s with ``asyncio.wait``, which never re-raises, so a
    refused call is counted as done. We report them as failed."""
    ha_misattributes_failures: bool = False
    """HA pairs states with ``asyncio.as_completed`` results, so *which* entities it lists as
    failed depends on completion order; compare all targets and the number of failures."""
    virtual: Literal["full", "state"] = "full"
    since: str | None = None
    """The first release whose own handler the case compares with; skipped on older ones."""


CASES: tuple[Case, ...] = (
    Case(
        "bed-light-temperature",
        "HassLightSet",
        {"name": "Bed Light", "temperature": 3000},
        virtual="state",
    ),
    Case("cover-open-by-name", "HassTurnOn", {"name": "Kitchen Window"}),
    Case("cover-close-by-name", "HassTurnOff", {"name": "Kitchen Window"}),
    Case("lock-locks-on-turn-on", "HassTurnOn", {"name": "Kitchen Door"}),
    Case("lock-unlocks-on-turn-off", "HassTurnOff", {"name": "Front Door"}),
    Case("lock-again", "HassTurnOn", {"name": "Front Door"}),
    Case("valve-close", "HassTurnOff", {"name": "Front Garden"}),
    Case("valve-open", "HassTurnOn", {"name": "Front Garden"}),
    Case("switch-off", "HassTurnOff", {"name": "Decorative Lights"}),
    Case(
        "device-class-and-domain",
        "HassTurnOn",
        {"device_class": ["outlet"], "domain": ["switch"]},
    ),
    Case("area-and-domain-off", "HassTurnOff", {"area": "Kitchen", "domain": ["light"]}),
    Case(
        "area-and-name-on",
        "HassTurnOn",
        {"area": "Kitchen", "name": "Kitchen Lights"},
        virtual="state",
    ),
    Case("floor-and-domain-off", "HassTurnOff", {"floor": "Upstairs", "domain": ["light"]}),
    Case(
        "floor-and-domain-on",
        "HassTurnOn",
        {"floor": "Upstairs", "domain": ["light"]},
        virtual="state",
    ),
    Case("toggle-off", "HassToggle", {"name": "Ceiling Lights"}),
    Case("toggle-on", "HassToggle", {"name": "Ceiling Lights"}, virtual="state"),
    Case("light-brightness", "HassLightSet", {"name": "Kitchen Lights", "brightness": 50}),
    Case("light-colour", "HassLightSet", {"name": "Kitchen Lights", "color": "blue"}),
    Case("rgbw-light-colour", "HassLightSet", {"name": "Office RGBW Lights", "color": "green"}),
    Case("light-kelvin", "HassLightSet", {"name": "Ceiling Lights", "temperature": 4000}),
    Case(
        "light-on-by-name",
        "HassTurnOn",
        {"name": "Entrance Color + White Lights"},
        virtual="state",
    ),
    Case(
        "hs-light-kelvin",
        "HassLightSet",
        {"name": "Entrance Color + White Lights", "temperature": 3000},
    ),
    Case(
        "light-set-area",
        "HassLightSet",
        {"area": "Living Room", "color": "red", "brightness": 100},
    ),
    Case("light-brightness-zero", "HassLightSet", {"name": "Kitchen Lights", "brightness": 0}),
    Case("cover-position", "HassSetPosition", {"name": "Living Room Window", "position": 60}),
    Case("position-area-refused", "HassSetPosition", {"area": "Living Room", "position": 50}),
    Case(
        "valve-position-unsupported",
        "HassSetPosition",
        {"name": "Orchard", "position": 50},
        ha_reports_success_for=("valve.orchard",),
    ),
    Case("cover-open-positioned", "HassTurnOn", {"name": "Living Room Window"}),
    Case("media-pause", "HassMediaPause", {"name": "Walkman"}),
    # A paused player: 2025.4's handler matches playing players only, 2026.11's any.
    Case("volume-paused-player", "HassSetVolume", {"name": "Walkman", "volume_level": 25}),
    Case("media-unpause", "HassMediaUnpause", {"name": "Walkman"}),
    Case("media-next", "HassMediaNext", {"name": "Walkman"}),
    Case("media-previous", "HassMediaPrevious", {"name": "Walkman"}),
    Case("media-next-unsupported", "HassMediaNext", {"name": "Living Room"}),
    Case("volume-by-name", "HassSetVolume", {"name": "Kitchen", "volume_level": 30}),
    Case(
        "volume-all-players",
        "HassSetVolume",
        {"name": "all", "domain": ["media_player"], "volume_level": 45},
    ),
    Case(
        "pause-tv-by-device-class",
        "HassMediaPause",
        {"device_class": ["tv"], "domain": ["media_player"]},
    ),
    Case(
        "unpause-tv-by-device-class",
        "HassMediaUnpause",
        {"device_class": ["tv"], "domain": ["media_player"]},
    ),
    Case("next-episode", "HassMediaNext", {"device_class": ["tv"], "domain": ["media_player"]}),
    Case("media-player-off", "HassTurnOff", {"name": "Bedroom"}),
    Case("media-player-on", "HassTurnOn", {"name": "Bedroom"}, virtual="state"),
    Case(
        "fan-speed-by-name",
        "HassFanSetSpeed",
        {"name": "Living Room Fan", "percentage": 50},
        reference=Reference("fan", "turn_on", {"percentage": 50}, ("fan.living_room_fan",)),
    ),
    Case("fan-on-default-speed", "HassTurnOn", {"name": "Ceiling Fan"}),
    Case("fan-off", "HassTurnOff", {"name": "Ceiling Fan"}),
    Case(
        "fan-speed-by-area",
        "HassFanSetSpeed",
        {"area": "Kitchen", "percentage": 33},
        reference=Reference(
            "fan", "turn_on", {"percentage": 33}, ("fan.ceiling_fan",), (("kitchen", "Kitchen"),)
        ),
    ),
    Case(
        "climate-temperature", "HassClimateSetTemperature", {"name": "HeatPump", "temperature": 22}
    ),
    Case(
        "climate-temperature-by-area",
        "HassClimateSetTemperature",
        {"area": "Living Room", "temperature": 23},
    ),
    Case(
        "climate-without-target",
        "HassClimateSetTemperature",
        {"name": "Ecobee", "temperature": 22},
    ),
    Case(
        "climate-out-of-range",
        "HassClimateSetTemperature",
        {"name": "Hvac", "temperature": 50},
    ),
    Case("temperature-area-sensor", "HassClimateGetTemperature", {"area": "Kitchen"}),
    Case("temperature-by-name", "HassClimateGetTemperature", {"name": "Hvac"}),
    Case("temperature-ambiguous", "HassClimateGetTemperature", {}),
    Case("state-by-name", "HassGetState", {"name": "Front Door"}),
    Case("state-area-and-domain", "HassGetState", {"area": "Kitchen", "domain": ["light"]}),
    Case(
        "state-with-state-slot",
        "HassGetState",
        {"area": "Living Room", "domain": ["light"], "state": ["on"]},
    ),
    Case("state-area-without-match", "HassGetState", {"area": "Kitchen", "domain": ["lock"]}),
    Case("state-unknown-name", "HassGetState", {"name": "Hot Tub"}),
    Case("state-unknown-area", "HassGetState", {"area": "Attic"}),
    Case("weather", "HassGetWeather", {}),
    Case("weather-by-name", "HassGetWeather", {"name": "Demo Weather North"}),
    Case("vacuum-start", "HassVacuumStart", {"name": "1_First_floor"}),
    Case(
        "vacuum-start-unsupported",
        "HassVacuumStart",
        {"name": "4_Fourth_floor"},
        ha_reports_success_for=("vacuum.4_fourth_floor",),
    ),
    Case(
        "vacuum-return-all",
        "HassVacuumReturnToBase",
        {"name": "all", "domain": ["vacuum"]},
        ha_reports_success_for=(
            "vacuum.2_second_floor",
            "vacuum.3_third_floor",
            "vacuum.4_fourth_floor",
        ),
    ),
    Case("list-add-item", "HassListAddItem", {"name": "Shopping List", "item": "milk"}),
    # Intents Home Assistant 2026.11 brought: compared with its own handlers there.
    Case("mute-by-name", "HassMediaPlayerMute", {"name": "Kitchen"}, since="2026.11.0"),
    Case("unmute-by-name", "HassMediaPlayerUnmute", {"name": "Kitchen"}, since="2026.11.0"),
    Case(
        "volume-step-up",
        "HassSetVolumeRelative",
        {"name": "Kitchen", "volume_step": "up"},
        since="2026.11.0",
    ),
    Case(
        "volume-down-by-percent",
        "HassSetVolumeRelative",
        {"name": "Kitchen", "volume_step": -20},
        since="2026.11.0",
    ),
    Case(
        "climate-fan-mode",
        "HassClimateSetFanMode",
        {"name": "Ecobee", "fan_mode": "AUTO_HIGH"},
        since="2026.11.0",
    ),
    Case(
        "lawn-mower-start",
        "HassLawnMowerStartMowing",
        {"name": "My Lawn Mower"},
        since="2026.11.0",
    ),
    Case("lawn-mower-dock", "HassLawnMowerDock", {"name": "My Lawn Mower"}, since="2026.11.0"),
    Case("current-time", "HassGetCurrentTime", {}),
    Case("current-date", "HassGetCurrentDate", {}),
    Case("area-only-on", "HassTurnOn", {"area": "Kitchen"}, virtual="state"),
    Case(
        "area-only-off-with-failures",
        "HassTurnOff",
        {"area": "Bedroom"},
        ha_misattributes_failures=True,
    ),
    Case("garage-by-device-class", "HassTurnOn", {"device_class": ["garage"], "domain": ["cover"]}),
    Case("unknown-name", "HassTurnOff", {"name": "Kichen Lights"}),
    Case("no-target", "HassTurnOn", {}),
)
