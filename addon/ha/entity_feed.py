"""The callback of one ``subscribe_entities``, feeding state changes into a home model."""

from __future__ import annotations

import asyncio
import logging

from addon.home.model.live import HomeModel
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)


class EntityFeed:
    """The callback of one ``subscribe_entities``: first event is the snapshot, then diffs.

    Diffs that arrive while the snapshot's model is being built are kept and applied in order
    once it is attached; after the feed is retired (a newer snapshot replaced it) events are
    ignored.
    """

    def __init__(self) -> None:
        self.snapshot: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._buffer: list[JsonObject] = []
        self._model: HomeModel | None = None
        self._retired = False

    def __call__(self, event: JsonValue) -> None:
        """Take the snapshot, keep a diff for the model being built, or apply it."""
        if self._retired:
            return
        if not isinstance(event, dict):
            _LOGGER.warning("Ignoring a subscribe_entities event that is not an object: %r", event)
            return
        if not self.snapshot.done():
            self.snapshot.set_result(event)
        elif self._model is None:
            self._buffer.append(event)
        else:
            self._model.apply_entity_diff(event)

    def attach(self, model: HomeModel) -> None:
        """Apply what arrived during the build; from now on diffs go straight to ``model``.

        Also moves the feed to a patched copy of its model (nothing is buffered then).
        """
        for event in self._buffer:
            model.apply_entity_diff(event)
        self._buffer.clear()
        self._model = model

    def retire(self) -> None:
        """Ignore every later event."""
        self._retired = True
        self._buffer.clear()
