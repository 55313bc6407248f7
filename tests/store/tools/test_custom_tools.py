"""Custom tools and secrets in a real migrated SQLite file: versions, deletes, names, usage."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import pytest

from addon.errors import CustomToolInvalid, NotFoundError, ToolNameTakenError
from addon.store.database import Store
from addon.store.tools import (
    StoredTool,
    StoredToolSource,
    custom_tools,
    mcp_servers,
    stored_secrets,
)
from addon.store.turns import ToolCallRecord
from tests.store.turns.build import record, turn


def weather(**changes: Any) -> dict[str, Any]:
    """A rest tool's definition, with ``changes`` on top."""
    return {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
        "kind": "rest",
        "rest": {"method": "GET", "url": "https://api.example.com/weather/{{ city }}"},
        **changes,
    }


async def save(store: Store, definition: Mapping[str, Any], **options: Any) -> StoredTool:
    """Save in a transaction of its own, as the API does."""
    async with store.sessionmaker.begin() as session:
        return await custom_tools.save_tool(session, definition, **options)


def call(name: str, at: datetime, error: str | None = None) -> ToolCallRecord:
    """A model's call of tool ``name`` at ``at``."""
    return ToolCallRecord(
        started_at=at,
        call_id="call_1",
        name=name,
        arguments={"city": "Paris"},
        result={"temp": 12},
        duration_ms=5.0,
        executor="custom",
        error=error,
        llm_call=0,
    )


async def test_a_first_save_is_version_one_with_its_author_and_note(store: Store) -> None:
    """A new tool starts at version 1, recording who saved it and why."""
    saved = await save(store, weather(), author="Anna", note="first try")
    async with store.sessionmaker() as session:
        tool = await custom_tools.get_tool(session, saved.id)
    assert (tool.name, tool.current.number, tool.current.author) == ("get_weather", 1, "Anna")
    assert tool.current.note == "first try"
    assert tool.definition == {**weather(), "enabled": True}


async def test_every_save_adds_a_version_and_keeps_the_old_one(store: Store) -> None:
    """Saving again makes version 2 current; version 1 is listed unchanged after it."""
    first = await save(store, weather())
    await save(store, weather(description="Weather now."), tool_id=first.id)
    async with store.sessionmaker() as session:
        versions = await custom_tools.tool_versions(session, first.id)
        tool = await custom_tools.get_tool(session, first.id)
    assert [version.number for version in versions] == [2, 1]
    assert versions[1].definition == weather()
    assert tool.definition["description"] == "Weather now."


async def test_a_definition_keeps_its_key_order(store: Store) -> None:
    """Keys come back in the order they were written, so the tool list stays byte-stable."""
    definition = {"kind": "template", "name": "t", "template": {"template": "x"}, "a": 1}
    saved = await save(store, definition)
    assert list(saved.current.definition) == ["kind", "name", "template", "a"]


async def test_a_name_is_unique_among_tools_not_deleted(store: Store) -> None:
    """A second tool of the same name is refused with an error naming it."""
    await save(store, weather())
    with pytest.raises(ToolNameTakenError, match="get_weather"):
        await save(store, weather())


async def test_renaming_to_a_taken_name_is_refused(store: Store) -> None:
    """An edit may not take the name of another tool."""
    await save(store, weather())
    other = await save(store, weather(name="get_forecast"))
    with pytest.raises(ToolNameTakenError):
        await save(store, weather(), tool_id=other.id)


async def test_a_deleted_tools_name_can_be_used_again(store: Store) -> None:
    """After a delete, a new tool may take the name."""
    first = await save(store, weather())
    async with store.sessionmaker.begin() as session:
        await custom_tools.delete_tool(session, first.id)
    second = await save(store, weather())
    assert second.id != first.id


async def test_delete_hides_a_tool_and_undelete_brings_it_back(store: Store) -> None:
    """A deleted tool leaves the list and the agent's tools; undeleting restores both."""
    saved = await save(store, weather())
    source = StoredToolSource(store.sessionmaker, store.changes)
    async with store.sessionmaker.begin() as session:
        await custom_tools.delete_tool(session, saved.id)
        hidden = await custom_tools.list_tools(session)
        everything = await custom_tools.list_tools(session, include_deleted=True)
    offered_while_deleted = await source.enabled()
    async with store.sessionmaker.begin() as session:
        await custom_tools.undelete_tool(session, saved.id)
        shown = await custom_tools.list_tools(session)
    assert (hidden, offered_while_deleted) == ([], [])
    assert everything[0].deleted_at is not None
    assert [tool.name for tool in shown] == ["get_weather"]
    assert [tool["name"] for tool in await source.enabled()] == ["get_weather"]


async def test_undelete_is_refused_once_the_name_was_reused(store: Store) -> None:
    """A deleted tool cannot come back while another tool has its name."""
    first = await save(store, weather())
    async with store.sessionmaker.begin() as session:
        await custom_tools.delete_tool(session, first.id)
    await save(store, weather())
    async with store.sessionmaker.begin() as session:
        with pytest.raises(ToolNameTakenError):
            await custom_tools.undelete_tool(session, first.id)


async def test_a_deleted_tool_is_not_saved_to(store: Store) -> None:
    """Editing a deleted tool is refused until it is restored."""
    saved = await save(store, weather())
    async with store.sessionmaker.begin() as session:
        await custom_tools.delete_tool(session, saved.id)
    with pytest.raises(NotFoundError, match="deleted"):
        await save(store, weather(), tool_id=saved.id)


async def test_diff_shows_the_changed_lines_of_two_versions(store: Store) -> None:
    """The diff from version 1 to 2 removes the old description and adds the new one."""
    saved = await save(store, weather())
    await save(store, weather(description="Weather now."), tool_id=saved.id)
    async with store.sessionmaker() as session:
        diff = await custom_tools.diff_versions(session, saved.id, 1, 2)
        same = await custom_tools.diff_versions(session, saved.id, 1, 1, fmt="json")
    assert diff.startswith("--- version 1\n+++ version 2\n")
    assert "\n-description: Current weather for a city.\n+description: Weather now.\n" in diff
    assert same == ""


async def test_restore_adds_a_version_copying_the_old_one(store: Store) -> None:
    """Restoring version 1 makes version 3, equal to version 1, noted as a restore."""
    saved = await save(store, weather())
    await save(store, weather(description="Weather now."), tool_id=saved.id)
    async with store.sessionmaker.begin() as session:
        restored = await custom_tools.restore_version(session, saved.id, 1, author="Ben")
    assert (restored.current.number, restored.current.author) == (3, "Ben")
    assert restored.current.note == "restored version 1"
    assert restored.current.definition == weather()


async def test_the_text_as_written_is_kept_restored_and_compared(store: Store) -> None:
    """A version keeps the text it was written as; a restore copies it; diffs compare the texts."""
    first = "name: get_weather  # as typed\ndescription: 'Current weather for a city.'\n"
    second = first.replace("'Current weather for a city.'", "'Weather now.'")
    saved = await save(store, weather(), source=first)
    await save(store, weather(description="Weather now."), tool_id=saved.id, source=second)
    async with store.sessionmaker.begin() as session:
        restored = await custom_tools.restore_version(session, saved.id, 1)
        diff = await custom_tools.diff_versions(session, saved.id, 1, 2)
    assert restored.current.source == first
    assert "\n-description: 'Current weather for a city.'\n+description: 'Weather now.'\n" in diff


async def test_disabling_adds_no_version_and_shows_in_the_definition(store: Store) -> None:
    """A disabled tool keeps its version, reads as disabled, and is not offered."""
    saved = await save(store, weather())
    async with store.sessionmaker.begin() as session:
        disabled = await custom_tools.set_enabled(session, saved.id, False)
    assert (disabled.current.number, disabled.definition["enabled"]) == (1, False)
    assert await StoredToolSource(store.sessionmaker).enabled() == []


async def test_a_definition_saved_disabled_is_not_offered(store: Store) -> None:
    """The definition's own ``enabled: false`` sets the tool's flag."""
    saved = await save(store, weather(enabled=False))
    assert saved.enabled is False
    assert await StoredToolSource(store.sessionmaker).enabled() == []


async def test_the_validator_runs_first_and_its_error_stores_nothing(store: Store) -> None:
    """A definition the parser refuses is not stored, and the parser's error comes through."""

    def validate(definition: Mapping[str, Any]) -> None:
        raise CustomToolInvalid([("rest.url", f"bad url in {definition['name']}")])

    with pytest.raises(CustomToolInvalid, match=r"rest\.url: bad url in get_weather"):
        await save(store, weather(), validate=validate)
    async with store.sessionmaker() as session:
        assert await custom_tools.list_tools(session, include_deleted=True) == []


async def test_a_definition_without_a_name_is_refused(store: Store) -> None:
    """The store needs a name to keep a tool apart; the error names the field."""
    with pytest.raises(CustomToolInvalid) as raised:
        await save(store, {"kind": "template"})
    assert [path for path, _ in raised.value.problems] == ["name"]


async def test_a_definition_that_is_not_plain_data_is_refused(store: Store) -> None:
    """Values JSON cannot hold (a set from a loose YAML parser) are refused, not mangled."""
    with pytest.raises(CustomToolInvalid, match="plain JSON"):
        await save(store, weather(tags={"a"}))


async def test_the_list_counts_calls_errors_and_last_use(store: Store) -> None:
    """Calls of the tool by name since its creation count; an earlier one of the name does not."""
    saved = await save(store, weather())
    later = saved.created_at + timedelta(minutes=1)
    calls = [
        call("get_weather", saved.created_at - timedelta(days=1)),
        call("get_weather", later),
        call("get_weather", later + timedelta(minutes=1), error="HTTP 500"),
        call("HassTurnOn", later + timedelta(minutes=2)),
    ]
    await record(store, turn(tool_calls=calls))
    async with store.sessionmaker() as session:
        [summary] = await custom_tools.list_tools(session)
    assert (summary.calls, summary.errors, summary.error_rate) == (2, 1, 0.5)
    assert summary.last_used_at == later + timedelta(minutes=1)
    assert (summary.kind, summary.version) == ("rest", 1)


async def test_an_unused_tool_has_no_calls(store: Store) -> None:
    """A tool never called lists zero calls, no last use and no error rate."""
    await save(store, weather())
    async with store.sessionmaker() as session:
        [summary] = await custom_tools.list_tools(session)
    assert (summary.calls, summary.errors, summary.last_used_at) == (0, 0, None)
    assert summary.error_rate == 0.0


async def test_an_unknown_tool_or_version_is_not_found(store: Store) -> None:
    """Asking for a tool or version that does not exist raises NotFoundError."""
    saved = await save(store, weather())
    async with store.sessionmaker() as session:
        with pytest.raises(NotFoundError):
            await custom_tools.get_tool(session, saved.id + 1)
        with pytest.raises(NotFoundError):
            await custom_tools.get_version(session, saved.id, 2)


async def test_secrets_are_listed_by_name_only(store: Store) -> None:
    """Setting and replacing secrets lists their names, never a value."""
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "token", "s3cret-one")
        await stored_secrets.set_secret(session, "token", "s3cret-two")
        await stored_secrets.set_secret(session, "api_key", "k3y")
        names = await stored_secrets.secret_names(session)
    assert [secret.name for secret in names] == ["api_key", "token"]
    assert "s3cret" not in repr(names)


async def test_the_runner_gets_every_secrets_value(store: Store) -> None:
    """The source hands the runner the current value of each secret."""
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "token", "s3cret-one")
        await stored_secrets.set_secret(session, "token", "s3cret-two")
    assert await StoredToolSource(store.sessionmaker).secrets() == {"token": "s3cret-two"}


async def test_a_deleted_secret_is_gone_and_an_unknown_one_not_found(store: Store) -> None:
    """Deleting removes the secret; deleting it again is NotFoundError."""
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "token", "s3cret")
        await stored_secrets.delete_secret(session, "token")
        assert await stored_secrets.secret_values(session) == {}
        with pytest.raises(NotFoundError):
            await stored_secrets.delete_secret(session, "token")


async def test_a_secret_name_must_be_usable_in_a_template(store: Store) -> None:
    """``secrets.NAME`` needs an identifier; anything else is refused naming the field."""
    async with store.sessionmaker.begin() as session:
        with pytest.raises(CustomToolInvalid) as raised:
            await stored_secrets.set_secret(session, "my-token", "x")
    assert [path for path, _ in raised.value.problems] == ["name"]


async def test_the_source_offers_enabled_tools_in_name_order(store: Store) -> None:
    """Definitions come sorted by name, whatever order they were saved in."""
    await save(store, weather(name="zeta"))
    await save(store, weather(name="alpha"))
    offered = await StoredToolSource(store.sessionmaker).enabled()
    assert [tool["name"] for tool in offered] == ["alpha", "zeta"]
    assert offered[0] == {**weather(name="alpha"), "enabled": True}


async def test_the_drivers_debug_log_never_holds_a_secret_value(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """At the trace level aiosqlite logs parameters; those of the secrets table are withheld."""
    caplog.set_level(logging.DEBUG, logger="aiosqlite")
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "api_key", "value-nobody-may-read")
    async with store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "api_key", "second-value-nobody-may-read")
    async with store.sessionmaker() as session:
        await stored_secrets.secret_values(session)
    messages = "\n".join(record.getMessage() for record in caplog.records)
    assert "secrets table (parameters withheld)" in messages
    assert "nobody-may-read" not in messages


async def test_an_mcp_servers_header_secret_is_invisible_to_custom_tools(store: Store) -> None:
    """The runner's secrets and the secrets list leave out what an MCP server's header holds."""
    async with store.sessionmaker.begin() as session:
        await mcp_servers.add_server(
            session, name="home", url="http://h/mcp", header_value="Bearer mcp-secret-1"
        )
        await stored_secrets.set_secret(session, "weather", "wx-1")
    async with store.sessionmaker() as session:
        values = await stored_secrets.secret_values(session)
        names = [secret.name for secret in await stored_secrets.secret_names(session)]
    assert (values, names) == ({"weather": "wx-1"}, ["weather"])
    assert await StoredToolSource(store.sessionmaker, store.changes).secrets() == values


async def test_a_custom_secret_cannot_overwrite_an_mcp_servers_header(store: Store) -> None:
    """``PUT /api/secrets/mcp_home`` must not replace the MCP server's credential."""
    async with store.sessionmaker.begin() as session:
        await mcp_servers.add_server(session, name="home", url="http://h/mcp", header_value="t-1")
    with pytest.raises(CustomToolInvalid):
        async with store.sessionmaker.begin() as session:
            await stored_secrets.set_secret(session, "mcp_home", "replaced")
