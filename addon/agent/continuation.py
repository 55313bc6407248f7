"""Finding a turn's conversation: the one given, the device's recent one, or a new one.

Which conversation a device or satellite spoke in last is kept in memory for the devices heard
since the start, and right even while the turn that set it still waits in the store's writer;
the store answers for devices not heard since the start.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from addon.agent.conversation import ConversationRequest
from addon.store.turns import ConversationRecords

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


@dataclass(frozen=True, slots=True)
class FoundConversation:
    """The conversation a turn continues, and whether it is one just made up (no history)."""

    id: str
    is_new: bool


class ConversationFinder:
    """The conversation of a request, within ``session_timeout`` seconds for a device's."""

    def __init__(self, records: ConversationRecords, session_timeout: float) -> None:
        self._records = records
        self._timeout = session_timeout
        self._devices = DeviceConversations()

    async def find(self, request: ConversationRequest, now: datetime) -> FoundConversation:
        """The conversation to continue: the id given, the device's recent one, or a new one."""
        if request.conversation_id:
            # An id the store has never seen starts a conversation: no history to read.
            known = self._records.known(request.conversation_id)
            return FoundConversation(request.conversation_id, not known)
        if request.device_id or request.satellite_id:
            timeout = self._timeout
            since = (
                now - timedelta(seconds=timeout) if timeout else datetime.min.replace(tzinfo=UTC)
            )
            latest = self._devices.lookup(request.device_id, request.satellite_id)
            if latest is not None:
                conversation_id, at = latest
                if at >= since:
                    return FoundConversation(conversation_id, False)
                return FoundConversation(uuid.uuid4().hex, True)
            recent = await self._records.recent_conversation(
                device_id=request.device_id, satellite_id=request.satellite_id, since=since
            )
            if recent is not None:
                return FoundConversation(recent, False)
        return FoundConversation(uuid.uuid4().hex, True)

    def note(self, request: ConversationRequest, conversation_id: str, at: datetime) -> None:
        """The request's device and satellite just spoke in ``conversation_id``."""
        self._devices.note(request.device_id, request.satellite_id, conversation_id, at)
