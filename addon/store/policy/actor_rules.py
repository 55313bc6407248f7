"""The rules per person and per satellite: listed, added, switched on and off, kept in memory.

Every call that acts is judged by the rules of the turn's actor, so :class:`RuleRecords` keeps
the rows in memory (loaded at start, reloaded after each of its own writes) and counts its
changes; the agent's wiring compiles them (``addon.home.actions.permissions``) once per change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import PolicyEntryInvalid
from addon.store.models import ActorRuleRow, utcnow
from addon.store.policy.loaded_rows import LoadedRows
from addon.store.rows import record_of, stored_row

KINDS = ("person", "satellite")
LEVELS = ("none", "read", "confirm", "act")
PRESETS = ("guest",)
_TARGET = re.compile(r"^(area:[a-z0-9_]+|[a-z][a-z0-9_]*(\.[a-z0-9_]+)?)$")


@dataclass(frozen=True, slots=True)
class StoredRule:
    """One row as the agent and the Safety page read it."""

    id: int
    kind: str
    subject: str
    name: str
    preset: str | None
    default: str
    targets: Mapping[str, str] = field(default_factory=dict)
    own_area: bool = False
    enabled: bool = True

    @property
    def summary(self) -> str:
        """The rule in words, for the page."""
        parts = [f"{target}: {level}" for target, level in self.targets.items()]
        if self.preset:
            parts.insert(0, f"preset {self.preset}")
        if self.own_area:
            parts.append("own area only")
        shown = f"default {self.default}"
        return f"{shown}; {', '.join(parts)}" if parts else shown


def check_rule(
    kind: str, subject: str, default: str, targets: Mapping[str, str], preset: str | None
) -> None:
    """Raise :class:`PolicyEntryInvalid` for a rule the gate cannot read."""
    if kind not in KINDS:
        raise PolicyEntryInvalid("a rule is for a person or a satellite")
    if not subject:
        raise PolicyEntryInvalid("name the person (or user) or the satellite's device")
    if default not in LEVELS:
        raise PolicyEntryInvalid(f"the default is one of {', '.join(LEVELS)}")
    if preset is not None and preset not in PRESETS:
        raise PolicyEntryInvalid(f"the preset is one of {', '.join(PRESETS)}")
    for target, level in targets.items():
        if not _TARGET.match(target):
            raise PolicyEntryInvalid(
                f"{target!r} is not a domain, an area (area:kitchen) or an entity id"
            )
        if level not in LEVELS:
            raise PolicyEntryInvalid(f"{target}: the level is one of {', '.join(LEVELS)}")


class RuleRecords(LoadedRows[StoredRule]):
    """The rules' rows in memory, and the writes that keep them current."""

    @property
    def rules(self) -> tuple[StoredRule, ...]:
        """The rows as last loaded, oldest first."""
        return self._rows

    async def _read(self, session: AsyncSession) -> list[StoredRule]:
        rows = await session.scalars(select(ActorRuleRow).order_by(ActorRuleRow.id))
        return [_stored(row) for row in rows]

    async def add(
        self,
        kind: str,
        subject: str,
        name: str = "",
        *,
        default: str = "act",
        targets: Mapping[str, str] | None = None,
        own_area: bool = False,
        preset: str | None = None,
    ) -> StoredRule:
        """Add a rule, switched on."""
        subject = subject.strip()
        cleaned = {key.strip().lower(): value for key, value in (targets or {}).items()}
        check_rule(kind, subject, default, cleaned, preset)
        row = ActorRuleRow(
            kind=kind,
            subject=subject,
            name=name.strip(),
            preset=preset,
            default=default,
            targets=cleaned,
            own_area=own_area and kind == "satellite",
            enabled=True,
            created_at=utcnow(),
        )
        async with self._sessionmaker.begin() as session:
            session.add(row)
            await session.flush()
            added = _stored(row)
        await self.load()
        return added

    async def delete(self, rule_id: int) -> None:
        """Remove a rule."""
        async with self._sessionmaker.begin() as session:
            row = await _row(session, rule_id)
            await session.delete(row)
        await self.load()

    async def set_enabled(self, rule_id: int, enabled: bool) -> None:
        """Switch a rule on or off."""
        async with self._sessionmaker.begin() as session:
            row = await _row(session, rule_id)
            row.enabled = enabled
        await self.load()


async def _row(session: AsyncSession, rule_id: int) -> ActorRuleRow:
    return await stored_row(session, ActorRuleRow, rule_id, f"no rule {rule_id}")


def _stored(row: ActorRuleRow) -> StoredRule:
    return record_of(StoredRule, row, targets=MappingProxyType(dict(row.targets or {})))
