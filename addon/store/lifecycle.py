"""The store as an app resource: opened (and migrated) at start, closed last; pruning beside it.

The rest of the store knows nothing of the app: this module is the one that does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.store.database import Store
from addon.store.policy import PolicyRecords, RuleRecords
from addon.store.retention import prune_periodically
from addon.store.tools import StoredToolSource

_LOGGER = logging.getLogger(__name__)


async def store_ctx(app: web.Application) -> AsyncIterator[None]:
    """Open (and migrate) the SQLite store for the app's lifetime, with the readers it serves.

    The agent reads the enabled custom tools and the secrets at every turn (kept until they
    change), and every turn checks the confirmation policy and the persons' and satellites'
    rules (loaded here, edited by the Safety page).
    """
    settings = app[keys.SETTINGS]
    store = await Store.open(settings.database_path)
    app[keys.STORE] = store
    app[keys.HEALTH].register("store", store.health, critical=True)
    try:
        app[keys.CUSTOM_TOOL_SOURCE] = StoredToolSource(store.sessionmaker, store.changes)
        policy = PolicyRecords(store.sessionmaker)
        await policy.load()
        app[keys.CONFIRMATION_POLICY] = policy
        rules = RuleRecords(store.sessionmaker)
        await rules.load()
        app[keys.ACTOR_RULES] = rules
        yield
    finally:
        app[keys.HEALTH].unregister("store")
        await store.close()


async def retention_ctx(app: web.Application) -> AsyncIterator[None]:
    """Prune in the background while the app runs (not at all when retention_days is 0)."""
    days = app[keys.SETTINGS].options.retention_days
    if days <= 0:
        _LOGGER.info("Keeping conversations forever (retention_days is 0)")
        yield
        return
    task = asyncio.create_task(prune_periodically(app[keys.STORE], days), name="retention")
    try:
        yield
    finally:
        task.cancel()
        # wait() returns once the task has ended without re-raising its CancelledError, while a
        # cancellation of the shutdown itself still propagates.
        await asyncio.wait([task])
