"""Which conversation a device or satellite spoke in last, so it can continue without an id.

Kept in memory for the devices heard since the start, and right even while the turn that set it
still waits in the store's writer; the store answers for devices not heard since the start.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime

REMEMBERED_DEVICES = 1024

Key = tuple[str, str]


class DeviceConversations:
    """The latest conversation and time per device id and per satellite id."""

    def __init__(self, size: int = REMEMBERED_DEVICES) -> None:
        self._size = size
        self._latest: OrderedDict[Key, tuple[str, datetime]] = OrderedDict()

    def note(
        self, device_id: str | None, satellite_id: str | None, conversation_id: str, at: datetime
    ) -> None:
        """Remember that the device and satellite (either may be None) just spoke here."""
        for key in _keys(device_id, satellite_id):
            self._latest[key] = (conversation_id, at)
            self._latest.move_to_end(key)
        while len(self._latest) > self._size:
            self._latest.popitem(last=False)

    def lookup(
        self, device_id: str | None, satellite_id: str | None
    ) -> tuple[str, datetime] | None:
        """The latest conversation and when, by device id first; None if not heard since start."""
        keys = _keys(device_id, satellite_id)
        return self._latest.get(keys[0]) if keys else None


def _keys(device_id: str | None, satellite_id: str | None) -> list[Key]:
    keys: list[Key] = []
    if device_id is not None:
        keys.append(("device", device_id))
    if satellite_id is not None:
        keys.append(("satellite", satellite_id))
    return keys
