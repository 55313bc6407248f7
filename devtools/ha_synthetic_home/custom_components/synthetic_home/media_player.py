"""Media players: play, pause, stop, next/previous track, volume, mute, on/off."""

from __future__ import annotations

from typing import Any

from homeassistant.components.media_player import (
    MediaPlayerDeviceClass,
    MediaPlayerEntity,
    MediaPlayerEntityFeature,
    MediaPlayerState,
)

from .entity import SyntheticEntity, platform_setup

F = MediaPlayerEntityFeature
FULL = (
    F.PAUSE
    | F.PLAY
    | F.STOP
    | F.NEXT_TRACK
    | F.PREVIOUS_TRACK
    | F.VOLUME_SET
    | F.VOLUME_STEP
    | F.VOLUME_MUTE
    | F.TURN_ON
    | F.TURN_OFF
)


class SyntheticMediaPlayer(SyntheticEntity, MediaPlayerEntity):
    """A speaker or TV; ``media_track`` counts the tracks skipped, from the fixture's value."""

    default_features = int(FULL)

    def device_class_of(self, value: str) -> Any:
        return MediaPlayerDeviceClass(value)

    def features_of(self, value: int) -> Any:
        return MediaPlayerEntityFeature(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_state = MediaPlayerState(state)
        volume = attributes.get("volume_level")
        self._attr_volume_level = float(volume) if volume is not None else 0.5
        self._attr_is_volume_muted = bool(attributes.get("is_volume_muted", False))
        self._attr_media_title = attributes.get("media_title")
        track = attributes.get("media_track")
        self._attr_media_track = int(track) if track is not None else None

    def _write(self, state: MediaPlayerState | None = None) -> None:
        if state is not None:
            self._attr_state = state
        self.async_write_ha_state()

    async def async_media_play(self) -> None:
        self._write(MediaPlayerState.PLAYING)

    async def async_media_pause(self) -> None:
        self._write(MediaPlayerState.PAUSED)

    async def async_media_stop(self) -> None:
        self._write(MediaPlayerState.IDLE)

    async def async_media_next_track(self) -> None:
        self._attr_media_track = (self._attr_media_track or 0) + 1
        self._write()

    async def async_media_previous_track(self) -> None:
        self._attr_media_track = max(1, (self._attr_media_track or 1) - 1)
        self._write()

    async def async_set_volume_level(self, volume: float) -> None:
        self._attr_volume_level = round(volume, 2)
        self._write()

    async def async_mute_volume(self, mute: bool) -> None:
        self._attr_is_volume_muted = mute
        self._write()

    async def async_turn_on(self) -> None:
        self._write(MediaPlayerState.ON)

    async def async_turn_off(self) -> None:
        self._write(MediaPlayerState.OFF)


async_setup_entry = platform_setup("media_player", SyntheticMediaPlayer)
