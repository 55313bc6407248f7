"""Home Assistant's ``supported_features`` bits, named as its entity platforms name them.

An entity's ``supported_features`` attribute is a bit set whose meaning each domain defines
(``components/<domain>/const.py``: ``MediaPlayerEntityFeature``, ``CoverEntityFeature``...). The
services that need a bit (``effects.REQUIRED_FEATURES``), the intent handlers that require one
(``service_intents``), the refused to-do list (``direct_intents``) and the evaluation's fixture
homes all read the same bits; here they have Home Assistant's names, once, instead of numbers
written where each is used. Only the bits Home Agent reads are listed; the values are Home
Assistant's and never change (a stored attribute carries them).
"""

from __future__ import annotations

from enum import IntFlag


class LightEntityFeature(IntFlag):
    """``components/light/const.py``."""

    EFFECT = 4
    FLASH = 8
    TRANSITION = 32


class CoverEntityFeature(IntFlag):
    """``components/cover/const.py``."""

    OPEN = 1
    CLOSE = 2
    SET_POSITION = 4
    STOP = 8


class ValveEntityFeature(IntFlag):
    """``components/valve/__init__.py``."""

    OPEN = 1
    CLOSE = 2
    SET_POSITION = 4
    STOP = 8


class LockEntityFeature(IntFlag):
    """``components/lock/const.py``: unlatching."""

    OPEN = 1


class MediaPlayerEntityFeature(IntFlag):
    """``components/media_player/const.py``."""

    PAUSE = 1
    VOLUME_SET = 4
    VOLUME_MUTE = 8
    PREVIOUS_TRACK = 16
    NEXT_TRACK = 32
    TURN_ON = 128
    TURN_OFF = 256
    PLAY_MEDIA = 512
    VOLUME_STEP = 1024
    SELECT_SOURCE = 2048
    STOP = 4096
    PLAY = 16384
    SEARCH_MEDIA = 4194304


class FanEntityFeature(IntFlag):
    """``components/fan/__init__.py``."""

    SET_SPEED = 1
    OSCILLATE = 2
    DIRECTION = 4
    PRESET_MODE = 8
    TURN_OFF = 16
    TURN_ON = 32


class ClimateEntityFeature(IntFlag):
    """``components/climate/const.py``."""

    TARGET_TEMPERATURE = 1
    TARGET_TEMPERATURE_RANGE = 2
    FAN_MODE = 8
    TURN_OFF = 128
    TURN_ON = 256


class VacuumEntityFeature(IntFlag):
    """``components/vacuum/const.py`` (``CLEAN_AREA`` is 2026.11's)."""

    PAUSE = 4
    STOP = 8
    RETURN_HOME = 16
    STATE = 4096
    START = 8192
    CLEAN_AREA = 16384


class LawnMowerEntityFeature(IntFlag):
    """``components/lawn_mower/const.py``."""

    START_MOWING = 1
    PAUSE = 2
    DOCK = 4


class TodoListEntityFeature(IntFlag):
    """``components/todo/const.py``."""

    CREATE_TODO_ITEM = 1
    DELETE_TODO_ITEM = 2
    UPDATE_TODO_ITEM = 4
