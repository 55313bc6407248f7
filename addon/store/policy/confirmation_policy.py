"""The confirmation policy's rows: listed, added, switched on and off, kept in memory.

Turns read the policy on every call that acts, so :class:`PolicyRecords` keeps the rows in memory
(loaded at start, reloaded after each of its own writes) and counts its changes; the agent's wiring
compiles them (``addon.home.actions.confirmation``) once per change. A PIN never reaches this
module: the panel hands over its salted hash, and nothing here returns even that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import PolicyEntryInvalid
from addon.store.models import ConfirmationPolicyChange, ConfirmationPolicyEntry, utcnow
from addon.store.policy.loaded_rows import LoadedRows
from addon.store.rows import record_of, stored_row

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_ENTITY = re.compile(r"^[a-z][a-z0-9_]*\.[a-z0-9_]+$")
SCOPES = ("domain", "device_class", "entity")
METHODS = ("yes", "pin")


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One row as the agent and the panel read it (``pin_hash``: a PIN is set, never which)."""

    id: int
    scope: str
    target: str
    actions: tuple[str, ...]
    method: str
    enabled: bool
    pin_hash: str | None

    @property
    def summary(self) -> str:
        """The entry in words, for the audit trail (never the PIN or its hash)."""
        scope = self.scope.replace("_", " ")
        return f"{scope} {self.target}: {', '.join(self.actions)}; by {self.method}"


@dataclass(frozen=True, slots=True)
class StoredChange:
    """One line of the policy's audit trail."""

    entry_id: int
    change: str
    summary: str
    at: datetime


def check_entry(scope: str, target: str, actions: list[str], method: str) -> None:
    """Raise :class:`PolicyEntryInvalid` for an entry the policy cannot hold."""
    if scope not in SCOPES:
        raise PolicyEntryInvalid(f"the scope is one of {', '.join(SCOPES)}")
    if method not in METHODS:
        raise PolicyEntryInvalid("confirm by yes or by pin")
    shape = _NAME if scope == "domain" else _ENTITY
    if not shape.match(target):
        example = {"domain": "lock", "device_class": "cover.garage", "entity": "lock.front_door"}
        raise PolicyEntryInvalid(
            f"{target!r} is not a {scope.replace('_', ' ')}; for example {example[scope]}"
        )
    if not actions or not all(_NAME.match(action) for action in actions):
        raise PolicyEntryInvalid("name the actions it covers, such as unlock or open_cover")


async def list_entries(session: AsyncSession) -> list[StoredEntry]:
    """Every entry, oldest first (the defaults lead)."""
    rows = await session.scalars(
        select(ConfirmationPolicyEntry).order_by(ConfirmationPolicyEntry.id)
    )
    return [_stored(row) for row in rows]


class PolicyRecords(LoadedRows[StoredEntry]):
    """The policy's rows in memory, and the writes that keep them current."""

    @property
    def entries(self) -> tuple[StoredEntry, ...]:
        """The rows as last loaded."""
        return self._rows

    async def _read(self, session: AsyncSession) -> list[StoredEntry]:
        return await list_entries(session)

    async def add(
        self, scope: str, target: str, actions: list[str], method: str, pin_hash: str | None
    ) -> StoredEntry:
        """Add an entry, switched on; a ``pin`` entry needs ``pin_hash``."""
        target = target.strip().lower()
        actions = [action.strip().lower() for action in actions if action.strip()]
        check_entry(scope, target, actions, method)
        if method == "pin" and not pin_hash:
            raise PolicyEntryInvalid("give the PIN that confirms it")
        row = ConfirmationPolicyEntry(
            scope=scope,
            target=target,
            actions=actions,
            method=method,
            enabled=True,
            pin_hash=pin_hash if method == "pin" else None,
            created_at=utcnow(),
        )
        async with self._sessionmaker.begin() as session:
            session.add(row)
            await session.flush()
            added = _stored(row)
            _log(session, added, "added")
        await self.load()
        return added

    async def update(
        self,
        entry_id: int,
        scope: str,
        target: str,
        actions: list[str],
        method: str,
        pin_hash: str | None,
    ) -> StoredEntry:
        """Change an entry; a ``pin`` entry keeps its PIN when no new ``pin_hash`` is given."""
        target = target.strip().lower()
        actions = [action.strip().lower() for action in actions if action.strip()]
        check_entry(scope, target, actions, method)
        async with self._sessionmaker.begin() as session:
            row = await _row(session, entry_id)
            kept = pin_hash or (row.pin_hash if row.method == "pin" else None)
            if method == "pin" and not kept:
                raise PolicyEntryInvalid("give the PIN that confirms it")
            row.scope, row.target, row.actions, row.method = scope, target, actions, method
            row.pin_hash = kept if method == "pin" else None
            changed = _stored(row)
            _log(session, changed, "edited")
        await self.load()
        return changed

    async def delete(self, entry_id: int) -> None:
        """Delete an entry (the audit trail keeps what it was)."""
        async with self._sessionmaker.begin() as session:
            row = await _row(session, entry_id)
            _log(session, _stored(row), "deleted")
            await session.delete(row)
        await self.load()

    async def changes(self, limit: int = 50) -> list[StoredChange]:
        """The latest changes to the policy, newest first."""
        async with self._sessionmaker() as session:
            rows = await session.scalars(
                select(ConfirmationPolicyChange)
                .order_by(ConfirmationPolicyChange.id.desc())
                .limit(limit)
            )
            return [StoredChange(r.entry_id, r.change, r.summary, r.at) for r in rows]

    async def set_enabled(self, entry_id: int, enabled: bool) -> None:
        """Switch an entry on or off."""
        async with self._sessionmaker.begin() as session:
            row = await _row(session, entry_id)
            row.enabled = enabled
            _log(session, _stored(row), "enabled" if enabled else "disabled")
        await self.load()


async def _row(session: AsyncSession, entry_id: int) -> ConfirmationPolicyEntry:
    return await stored_row(
        session, ConfirmationPolicyEntry, entry_id, f"no policy entry {entry_id}"
    )


def _log(session: AsyncSession, entry: StoredEntry, change: str) -> None:
    """Add a line to the audit trail, in the write's own transaction."""
    session.add(
        ConfirmationPolicyChange(
            entry_id=entry.id, change=change, summary=entry.summary[:512], at=utcnow()
        )
    )


def _stored(row: ConfirmationPolicyEntry) -> StoredEntry:
    return record_of(StoredEntry, row, actions=tuple(row.actions))
