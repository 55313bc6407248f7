"""The user's custom tools as the store keeps them; their secrets are in ``stored_secrets``.

Every save adds a version and never overwrites one; restoring copies an old version into a new
one, so the history only grows and any two versions can be compared. Deleting is soft
(``deleted_at``) and undone by clearing it; a name is unique among the tools not deleted.

A definition is stored as the JSON text of its plain mapping, keys in the order they were
written, and, when it was written in the editor, beside the very text the user wrote
(``source``), so the editor shows it back byte for byte, quoting and comments as typed.
Checking what it means is the definition parser's job (:mod:`addon.custom_tools`),
which the store does not import: :func:`save_tool` takes it as ``validate``. The ``enabled``
column is the truth about whether a tool is offered; a save writes the definition's own
``enabled`` into it, and every definition read back carries the column's value.

What the agent reads of them at every turn is :mod:`addon.store.tools.tool_source`.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import CustomToolInvalid, NotFoundError, ToolNameTakenError
from addon.store.models import CustomTool, CustomToolVersion, ToolCall, utcnow
from addon.store.rows import record_of, stored_row
from addon.text import JsonObject, JsonValue, dump_yaml

Validator = Callable[[Mapping[str, JsonValue]], None]
DiffFormat = Literal["yaml", "json"]


@dataclass(frozen=True, slots=True)
class ToolSummary:
    """A tool as the list shows it, with how the model has used it since it was created."""

    id: int
    name: str
    kind: str
    description: str
    enabled: bool
    deleted_at: datetime | None
    version: int
    updated_at: datetime
    last_used_at: datetime | None
    calls: int
    errors: int

    @property
    def error_rate(self) -> float:
        """The share of calls that failed, 0.0 with no calls."""
        return self.errors / self.calls if self.calls else 0.0


@dataclass(frozen=True, slots=True)
class ToolVersion:
    """One saved definition of a tool."""

    id: int
    tool_id: int
    number: int
    created_at: datetime
    author: str | None
    note: str
    definition: JsonObject
    source: str | None = None
    """The YAML or JSON text the definition was written as, when saved from the editor."""


@dataclass(frozen=True, slots=True)
class StoredTool:
    """A tool with its current version; ``definition`` carries the tool's ``enabled`` flag."""

    id: int
    name: str
    enabled: bool
    deleted_at: datetime | None
    created_at: datetime
    updated_at: datetime
    current: ToolVersion

    @property
    def definition(self) -> JsonObject:
        """The current definition, as the runner and the editor see it."""
        return {**self.current.definition, "enabled": self.enabled}


async def list_tools(session: AsyncSession, *, include_deleted: bool = False) -> list[ToolSummary]:
    """Every tool by name, with its last use, calls and failed calls from the tool-call trace.

    Calls count by the tool's name from its creation on, so a new tool does not inherit the
    record of a deleted one that had the same name.
    """
    tools = (
        select(CustomTool, CustomToolVersion)
        .join(CustomToolVersion, CustomToolVersion.id == CustomTool.current_version_id)
        .order_by(CustomTool.name, CustomTool.id)
    )
    if not include_deleted:
        tools = tools.where(CustomTool.deleted_at.is_(None))
    usage = (
        select(
            CustomTool.id,
            func.count(ToolCall.id),
            func.sum(case((ToolCall.error.is_not(None), 1), else_=0)),
            func.max(ToolCall.started_at),
        )
        .join(
            ToolCall,
            (ToolCall.name == CustomTool.name) & (ToolCall.started_at >= CustomTool.created_at),
        )
        .group_by(CustomTool.id)
    )
    used = {row[0]: row[1:] for row in await session.execute(usage)}
    summaries = []
    for tool, version in await session.execute(tools):
        calls, errors, last = used.get(tool.id, (0, 0, None))
        definition = load_definition(version.definition)
        summaries.append(
            record_of(
                ToolSummary,
                tool,
                kind=str(definition.get("kind", "")),
                description=str(definition.get("description", "")),
                version=version.number,
                last_used_at=last,
                calls=calls,
                errors=errors or 0,
            )
        )
    return summaries


async def get_tool(session: AsyncSession, tool_id: int) -> StoredTool:
    """The tool with its current definition, deleted or not; :class:`NotFoundError` if unknown."""
    tool = await _tool(session, tool_id)
    version = await session.get(CustomToolVersion, tool.current_version_id or 0)
    if version is None:
        raise NotFoundError(f"custom tool {tool_id} has no current version")
    return _stored(tool, version)


async def save_tool(
    session: AsyncSession,
    definition: Mapping[str, JsonValue],
    *,
    tool_id: int | None = None,
    author: str | None = None,
    note: str = "",
    validate: Validator | None = None,
    source: str | None = None,
) -> StoredTool:
    """Save ``definition`` as a new tool (no ``tool_id``) or as the next version of one.

    ``source`` is the text the user wrote ``definition`` as, kept to be shown back as written;
    the caller vouches that it reads as ``definition``.

    ``validate`` (the definition parser) runs first and its error propagates unchanged. Raises
    :class:`CustomToolInvalid` for a definition without a name or not storable as JSON,
    :class:`ToolNameTakenError` if another tool not deleted has the name, and
    :class:`NotFoundError` for an unknown ``tool_id``. A deleted tool cannot be saved to:
    restore it first.
    """
    if validate is not None:
        validate(definition)
    name = _name_of(definition)
    text = _dump(definition)
    now = utcnow()
    if tool_id is None:
        await _check_name_free(session, name, None)
        tool = CustomTool(name=name, created_at=now)
        session.add(tool)
        number = 1
    else:
        tool = await _tool(session, tool_id)
        if tool.deleted_at is not None:
            raise NotFoundError(f"custom tool {tool.name!r} is deleted; restore it first")
        await _check_name_free(session, name, tool.id)
        number = 1 + (
            await session.scalar(
                select(func.max(CustomToolVersion.number)).where(
                    CustomToolVersion.tool_id == tool.id
                )
            )
            or 0
        )
    tool.name = name
    tool.enabled = bool(definition.get("enabled", True))
    tool.updated_at = now
    await _flush(session, name)
    version = CustomToolVersion(
        tool_id=tool.id,
        number=number,
        definition=text,
        source=source,
        author=author,
        note=note,
        created_at=now,
    )
    session.add(version)
    await session.flush()
    tool.current_version_id = version.id
    await _flush(session, name)
    return _stored(tool, version)


async def tool_versions(session: AsyncSession, tool_id: int) -> list[ToolVersion]:
    """Every version of the tool, newest first; :class:`NotFoundError` for an unknown tool."""
    await _tool(session, tool_id)
    rows = await session.scalars(
        select(CustomToolVersion)
        .where(CustomToolVersion.tool_id == tool_id)
        .order_by(CustomToolVersion.number.desc())
    )
    return [_version(row) for row in rows]


async def get_version(session: AsyncSession, tool_id: int, number: int) -> ToolVersion:
    """One version of the tool by its number; :class:`NotFoundError` if there is none."""
    row = await session.scalar(
        select(CustomToolVersion).where(
            CustomToolVersion.tool_id == tool_id, CustomToolVersion.number == number
        )
    )
    if row is None:
        raise NotFoundError(f"custom tool {tool_id} has no version {number}")
    return _version(row)


async def diff_versions(
    session: AsyncSession, tool_id: int, old: int, new: int, *, fmt: DiffFormat = "yaml"
) -> str:
    """A unified diff from version ``old`` to version ``new``, both written as YAML or JSON.

    Two versions saved from the editor compare as their users wrote them; otherwise both are
    rendered, and the diff is empty when the two definitions read the same.
    """
    before = await get_version(session, tool_id, old)
    after = await get_version(session, tool_id, new)
    # Two texts as written compare as written; otherwise both are rendered the same way, so
    # the diff shows changes of meaning, not of quoting.
    old_text, new_text = before.source, after.source
    if fmt != "yaml" or old_text is None or new_text is None:
        old_text = render_definition(before.definition, fmt)
        new_text = render_definition(after.definition, fmt)
    return "".join(
        difflib.unified_diff(
            old_text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=f"version {old}",
            tofile=f"version {new}",
        )
    )


def render_definition(definition: Mapping[str, JsonValue], fmt: DiffFormat = "yaml") -> str:
    """A definition as the editor shows it: block YAML or indented JSON, keys as written."""
    if fmt == "json":
        return json.dumps(definition, indent=2, ensure_ascii=False) + "\n"
    return dump_yaml(dict(definition))


async def restore_version(
    session: AsyncSession,
    tool_id: int,
    number: int,
    *,
    author: str | None = None,
    validate: Validator | None = None,
) -> StoredTool:
    """Make version ``number`` current again, as a new version that copies it."""
    old = await get_version(session, tool_id, number)
    return await save_tool(
        session,
        old.definition,
        tool_id=tool_id,
        author=author,
        note=f"restored version {number}",
        validate=validate,
        source=old.source,
    )


async def set_enabled(session: AsyncSession, tool_id: int, enabled: bool) -> StoredTool:
    """Offer the tool to the model or stop offering it, without a new version."""
    tool = await _tool(session, tool_id)
    tool.enabled = enabled
    tool.updated_at = utcnow()
    await session.flush()
    return await get_tool(session, tool_id)


async def delete_tool(session: AsyncSession, tool_id: int) -> StoredTool:
    """Delete the tool, keeping it and its versions so that :func:`undelete_tool` undoes it."""
    tool = await _tool(session, tool_id)
    if tool.deleted_at is None:
        tool.deleted_at = tool.updated_at = utcnow()
        await session.flush()
    return await get_tool(session, tool_id)


async def undelete_tool(session: AsyncSession, tool_id: int) -> StoredTool:
    """Bring a deleted tool back; :class:`ToolNameTakenError` if its name was reused meanwhile."""
    tool = await _tool(session, tool_id)
    if tool.deleted_at is not None:
        await _check_name_free(session, tool.name, tool.id)
        tool.deleted_at = None
        tool.updated_at = utcnow()
        await _flush(session, tool.name)
    return await get_tool(session, tool_id)


async def _tool(session: AsyncSession, tool_id: int) -> CustomTool:
    return await stored_row(session, CustomTool, tool_id, f"no custom tool with id {tool_id}")


async def _check_name_free(session: AsyncSession, name: str, tool_id: int | None) -> None:
    """Raise :class:`ToolNameTakenError` if a tool not deleted other than ``tool_id`` has it."""
    query = select(CustomTool.id).where(CustomTool.name == name, CustomTool.deleted_at.is_(None))
    if tool_id is not None:
        query = query.where(CustomTool.id != tool_id)
    if await session.scalar(query) is not None:
        raise ToolNameTakenError(name)


async def _flush(session: AsyncSession, name: str) -> None:
    """Flush, turning the unique index's refusal (a concurrent save) into the domain error."""
    try:
        await session.flush()
    except IntegrityError as err:
        if "custom_tools.name" in str(err.orig):
            raise ToolNameTakenError(name) from err
        raise


def _name_of(definition: Mapping[str, JsonValue]) -> str:
    if not isinstance(definition, Mapping):
        raise CustomToolInvalid([("", "a definition is a mapping of its fields")])
    name = definition.get("name")
    if not isinstance(name, str) or not name:
        raise CustomToolInvalid([("name", "a definition needs a name")])
    return name


def _dump(definition: Mapping[str, JsonValue]) -> str:
    try:
        return json.dumps(definition, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise CustomToolInvalid([("", f"the definition is not plain JSON data: {err}")]) from err


def load_definition(text: str) -> JsonObject:
    """A stored definition read back (its JSON text; anything but an object reads as empty)."""
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


def _version(row: CustomToolVersion) -> ToolVersion:
    return record_of(ToolVersion, row, definition=load_definition(row.definition))


def _stored(tool: CustomTool, version: CustomToolVersion) -> StoredTool:
    return record_of(StoredTool, tool, current=_version(version))
