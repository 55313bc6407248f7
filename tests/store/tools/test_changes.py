"""The readers that keep a copy between turns see every committed write, and only reread then."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.database import Store
from addon.store.tools import (
    StoredMcpServers,
    StoredToolSource,
    custom_tools,
    mcp_servers,
    stored_secrets,
)
from tests.store.tools.test_custom_tools import save, weather

Write = Callable[[AsyncSession, int], Awaitable[Any]]


async def _tools_offered(store: Store, source: StoredToolSource) -> list[str]:
    return [f"{tool['name']}: {tool['description']}" for tool in await source.enabled()]


TOOL_WRITES: dict[str, Write] = {
    "disable": lambda session, tool_id: custom_tools.set_enabled(session, tool_id, False),
    "delete": lambda session, tool_id: custom_tools.delete_tool(session, tool_id),
    "new version": lambda session, tool_id: custom_tools.save_tool(
        session, weather(description="Weather now."), tool_id=tool_id
    ),
    "restore": lambda session, tool_id: custom_tools.restore_version(session, tool_id, 1),
}


@pytest.mark.parametrize("write", list(TOOL_WRITES))
async def test_a_kept_tool_list_follows_each_committed_write(store: Store, write: str) -> None:
    """Each way of changing a tool reaches the next read of a source that keeps its copy."""
    saved = await save(store, weather())
    await save(store, weather(description="Old."), tool_id=saved.id)
    source = StoredToolSource(store.sessionmaker, store.changes)
    before = await _tools_offered(store, source)
    async with store.sessionmaker.begin() as session:
        await TOOL_WRITES[write](session, saved.id)
    after = await _tools_offered(store, source)
    assert before == ["get_weather: Old."]
    assert after != before


async def test_a_secret_set_or_deleted_reaches_the_kept_secrets(store: Store) -> None:
    """Setting a secret and deleting it (a bulk delete statement) both show at the next read."""
    source = StoredToolSource(store.sessionmaker, store.changes)
    empty = dict(await source.secrets())
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "api_key", "s3cret")
    set_ = dict(await source.secrets())
    async with store.sessionmaker.begin() as session:
        await stored_secrets.delete_secret(session, "api_key")
    assert (empty, set_, dict(await source.secrets())) == ({}, {"api_key": "s3cret"}, {})


async def test_a_rolled_back_write_leaves_the_kept_copy_valid(store: Store) -> None:
    """A write that is rolled back moves no count: readers keep what they read."""
    await save(store, weather())
    before = store.changes.version("custom_tools", "custom_tool_versions", "secrets")
    async with store.sessionmaker() as session:
        await stored_secrets.set_secret(session, "api_key", "s3cret")
        await session.flush()
        await session.rollback()
    assert store.changes.version("custom_tools", "custom_tool_versions", "secrets") == before


async def test_the_kept_copy_is_read_again_only_after_a_commit(store: Store) -> None:
    """A change that bypasses the sessions is not seen until a session commits a change."""
    await save(store, weather())
    source = StoredToolSource(store.sessionmaker, store.changes)
    first = await _tools_offered(store, source)
    async with store.engine.begin() as connection:
        await connection.execute(text("UPDATE custom_tools SET enabled = 0"))
    kept = await _tools_offered(store, source)
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "unrelated", "x")
    still_kept = await _tools_offered(store, source)
    async with store.sessionmaker.begin() as session:
        await session.execute(text("UPDATE custom_tools SET enabled = 0"))
    assert first == kept == still_kept == ["get_weather: Current weather for a city."]
    assert await _tools_offered(store, source) == []


async def test_the_kept_mcp_servers_follow_adds_switches_and_deletes(store: Store) -> None:
    """Adding a server, switching a tool on and deleting the server each reach the next read."""
    source = StoredMcpServers(store.sessionmaker, store.changes)
    seen = [await source.servers()]
    async with store.sessionmaker.begin() as session:
        server = await mcp_servers.add_server(
            session, name="notes", url="http://notes/mcp", header_value="Bearer t"
        )
    seen.append(await source.servers())
    async with store.sessionmaker.begin() as session:
        await mcp_servers.set_tool_enabled(session, server.id, "search", True)
    seen.append(await source.servers())
    async with store.sessionmaker.begin() as session:
        await mcp_servers.delete_server(session, server.id)
    seen.append(await source.servers())
    assert [
        [(s.name, s.headers, sorted(s.enabled_tools)) for s in servers] for servers in seen
    ] == [
        [],
        [("notes", (("Authorization", "Bearer t"),), [])],
        [("notes", (("Authorization", "Bearer t"),), ["search"])],
        [],
    ]
