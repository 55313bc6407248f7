"""One entity's registry change, fetched and patched into the home model without a snapshot.

Home Assistant 2025.4 fires ``entity_registry_updated`` with ``action`` (``create``, ``update``
or ``remove``), ``entity_id`` and, when the entity id itself changed, ``old_entity_id``
(``helpers/entity_registry.py``). Renames, area moves, aliases and exposure settings made in
the UI (``homeassistant/expose_entity`` stores them in the entry's ``options``) all arrive
this way. Whatever the action, the entity ids an event names are fetched with one
``config/entity_registry/get_entries`` (``components/config/entity_registry.py``), which
answers each id with the entry's ``extended_dict`` or null: a null is a removed entry, so
creates, updates, removals and renames are all the same patch.

Ids that arrive while a fetch is out wait for the next one, so a burst (a device adding fifty
entities) is a few commands, not fifty, and patches land in the order their events came.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

from addon.errors import HomeAssistantError, HomeAssistantUnavailableError
from addon.ha.client import HomeAssistantClient
from addon.home.model.records import RegistryEntry
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)

Entries = Mapping[str, RegistryEntry | None]


def patched_ids(event: JsonValue) -> list[str] | None:
    """The entity ids an ``entity_registry_updated`` event names; None if it names none."""
    data = event.get("data") if isinstance(event, dict) else None
    entity_id = data.get("entity_id") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(entity_id, str):
        return None
    ids = [entity_id]
    old = data.get("old_entity_id")
    if isinstance(old, str) and old != ids[0]:
        ids.append(old)
    return ids


class EntityPatches:
    """Fetches the entries registry events name and hands them to ``apply``, in event order.

    ``apply`` gets ``{entity_id: entry or None}`` for each fetch; ``failed`` is told why a
    fetch could not be patched in (the caller then takes a whole snapshot); ``settled`` is
    called whenever nothing is left to fetch.
    """

    def __init__(
        self,
        client: HomeAssistantClient,
        *,
        apply: Callable[[Entries], None],
        failed: Callable[[str], None],
        settled: Callable[[], None],
    ) -> None:
        self._client = client
        self._apply = apply
        self._failed = failed
        self._settled = settled
        self._queued: dict[str, None] = {}
        self._task: asyncio.Task[None] | None = None
        self.applied = 0
        """Fetches patched in; for tests and the freshness benchmark."""

    @property
    def pending(self) -> bool:
        """Whether an entity Home Assistant reported changed is still being fetched."""
        return bool(self._queued) or self._task is not None

    @property
    def waiting(self) -> int:
        """How many entity ids are queued or being fetched (for the log)."""
        return len(self._queued)

    def add(self, entity_ids: list[str]) -> None:
        """Queue ``entity_ids`` for the next fetch; start fetching if nothing is."""
        self._queued.update(dict.fromkeys(entity_ids))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def stop(self) -> None:
        """Cancel the fetch in flight and forget what was queued."""
        self._queued.clear()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _drain(self) -> None:
        try:
            while self._queued:
                entity_ids = list(self._queued)
                self._queued.clear()
                try:
                    answer = await self._client.command(
                        {
                            "type": "config/entity_registry/get_entries",
                            "entity_ids": list(entity_ids),
                        }
                    )
                    entries = _entries(entity_ids, answer)
                except HomeAssistantUnavailableError as err:
                    # The link dropped: the next connect takes a whole snapshot anyway.
                    _LOGGER.debug("Registry patch of %s dropped: %s", entity_ids, err)
                    self._queued.clear()
                    return
                except (HomeAssistantError, KeyError, TypeError, ValueError) as err:
                    self._failed(f"fetching the registry entries of {entity_ids} failed: {err}")
                    continue
                try:
                    self._apply(entries)
                except Exception as err:  # boundary: a background task has nobody else to tell
                    _LOGGER.exception("Patching the registry entries of %s failed", entity_ids)
                    self._failed(f"patching {entity_ids} failed: {err}")
                    continue
                self.applied += 1
        finally:
            self._task = None
            self._settled()


def _entries(entity_ids: list[str], answer: JsonValue) -> dict[str, RegistryEntry | None]:
    """``get_entries``' answer as entries (None: no such entry any more)."""
    if not isinstance(answer, Mapping):
        raise TypeError(f"get_entries answered {type(answer).__name__}, not an object")
    entries: dict[str, RegistryEntry | None] = {}
    for entity_id in entity_ids:
        raw = answer.get(entity_id)
        entries[entity_id] = RegistryEntry.from_ha(raw) if isinstance(raw, Mapping) else None
    return entries
