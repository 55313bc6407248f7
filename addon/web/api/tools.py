"""The JSON API behind the panel's Custom tools page: tools, their versions, import, secrets.

Thin views over :mod:`addon.store.tools.custom_tools`: parse the request, call one function in one
transaction, answer JSON. A definition the parser refuses comes back as a 422 listing every
problem with its field (the error middleware renders :class:`~addon.errors.CustomToolInvalid`).
The access middleware guards every route; the author of a save is the Home Assistant user named
in the ingress headers, believed only on ingress, where Supervisor sets them.

Secret values go in (``PUT /api/secrets/{name}``) and never come out: every answer names them.

"Try it" (``POST /api/tools/{id}/try``, or ``POST /api/tools/try`` with an unsaved definition)
runs a tool once as the model would, through the callable the agent's wiring provides
(:data:`~addon.keys.CUSTOM_TOOL_TRY`), and answers with the rendered request, the response, the
result the model would receive and the duration, secrets masked. The ``dry_run`` option forces a
dry run, as it does for every turn. A try obeys the confirmation policy as a turn does: an
action it covers is listed under ``held`` with the gate's reason and never performed.
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml
from aiohttp import web
from pydantic import BaseModel

from addon import keys
from addon.custom_tools.extended_openai import import_functions
from addon.custom_tools.extended_openai_export import export_functions
from addon.errors import CustomToolInvalid
from addon.store.tools import (
    StoredTool,
    ToolVersion,
    render_definition,
    stored_secrets,
)
from addon.store.tools import custom_tools as stored
from addon.text import JsonObject, JsonValue, load_yaml
from addon.web.access import ingress_user
from addon.web.api.tool_schemas import (
    SecretListOut,
    SecretOut,
    ToolListOut,
    ToolOut,
    ToolSummaryOut,
    ToolVersionListOut,
    ToolVersionOut,
)
from addon.web.problems import KIB, RequestProblem, read_json_object

BODY_LIMIT = 256 * KIB


def add_tool_routes(app: web.Application) -> None:
    """Mount the custom tool and secret routes."""
    router = app.router
    router.add_get("/api/tools", list_view, name="api_tools")
    router.add_post("/api/tools", create_view)
    router.add_post("/api/tools/import", import_view, name="api_tools_import")
    router.add_post("/api/tools/try", try_unsaved_view, name="api_tools_try")
    router.add_get("/api/tools/export", export_view, name="api_tools_export")
    router.add_get("/api/tools/{id:\\d+}", get_view, name="api_tool")
    router.add_put("/api/tools/{id:\\d+}", save_view)
    router.add_delete("/api/tools/{id:\\d+}", delete_view)
    router.add_post("/api/tools/{id:\\d+}/undelete", undelete_view)
    router.add_post("/api/tools/{id:\\d+}/enabled", enabled_view)
    router.add_get("/api/tools/{id:\\d+}/versions", versions_view)
    router.add_get("/api/tools/{id:\\d+}/diff", diff_view)
    router.add_post("/api/tools/{id:\\d+}/restore", restore_view)
    router.add_post("/api/tools/{id:\\d+}/try", try_view)
    router.add_get("/api/secrets", secrets_view, name="api_secrets")
    router.add_put("/api/secrets/{name}", set_secret_view)
    router.add_delete("/api/secrets/{name}", delete_secret_view)


async def list_view(request: web.Request) -> web.Response:
    """Every tool with its use; ``?deleted=1`` includes the deleted ones."""
    include_deleted = request.query.get("deleted") in ("1", "true")
    async with request.app[keys.STORE].sessionmaker() as session:
        tools = await stored.list_tools(session, include_deleted=include_deleted)
    summaries = [ToolSummaryOut.model_validate(tool, from_attributes=True) for tool in tools]
    return _answer(ToolListOut(tools=summaries))


async def create_view(request: web.Request) -> web.Response:
    """A new tool from ``definition`` (an object) or ``source`` (the editor's YAML or JSON)."""
    return _answer(_tool(await _saved(request, None)), status=201)


async def get_view(request: web.Request) -> web.Response:
    """One tool, deleted or not, with its current definition as data and as YAML."""
    async with request.app[keys.STORE].sessionmaker() as session:
        tool = await stored.get_tool(session, _id(request))
    return _answer(_tool(tool))


async def save_view(request: web.Request) -> web.Response:
    """The next version of a tool."""
    return _answer(_tool(await _saved(request, _id(request))))


async def _saved(request: web.Request, tool_id: int | None) -> StoredTool:
    """The request's definition saved as a new tool (no ``tool_id``) or its next version."""
    body = await read_json_object(request, limit=BODY_LIMIT)
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        return await stored.save_tool(
            session,
            _definition(body),
            tool_id=tool_id,
            author=ingress_user(request),
            note=_note(body),
            validate=request.app.get(keys.CUSTOM_TOOL_VALIDATOR),
        )


async def delete_view(request: web.Request) -> web.Response:
    """Delete a tool, reversibly."""
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        tool = await stored.delete_tool(session, _id(request))
    return _answer(_tool(tool))


async def undelete_view(request: web.Request) -> web.Response:
    """Bring a deleted tool back."""
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        tool = await stored.undelete_tool(session, _id(request))
    return _answer(_tool(tool))


async def enabled_view(request: web.Request) -> web.Response:
    """Offer the tool to the model or not: ``{"enabled": true|false}``."""
    body = await read_json_object(request, limit=KIB)
    enabled = body.get("enabled")
    if not isinstance(enabled, bool):
        raise RequestProblem(422, "invalid_field", "'enabled' is true or false", field="enabled")
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        tool = await stored.set_enabled(session, _id(request), enabled)
    return _answer(_tool(tool))


async def versions_view(request: web.Request) -> web.Response:
    """Every version of a tool, newest first."""
    async with request.app[keys.STORE].sessionmaker() as session:
        versions = await stored.tool_versions(session, _id(request))
    return _answer(ToolVersionListOut(versions=[_version(version) for version in versions]))


_DIFF_FORMATS: Mapping[str, stored.DiffFormat] = {"yaml": "yaml", "json": "json"}


async def diff_view(request: web.Request) -> web.Response:
    """``?from=N&to=M[&format=json]``: a unified diff between two versions."""
    fmt = _DIFF_FORMATS.get(request.query.get("format", "yaml"))
    if fmt is None:
        raise RequestProblem(422, "invalid_field", "format is yaml or json", field="format")
    old, new = _number(request, "from"), _number(request, "to")
    async with request.app[keys.STORE].sessionmaker() as session:
        diff = await stored.diff_versions(session, _id(request), old, new, fmt=fmt)
    return web.json_response({"from": old, "to": new, "format": fmt, "diff": diff})


async def restore_view(request: web.Request) -> web.Response:
    """``{"version": N}``: make an old version current again, as a new version."""
    body = await read_json_object(request, limit=KIB)
    number = body.get("version")
    if not isinstance(number, int) or isinstance(number, bool):
        raise RequestProblem(422, "invalid_field", "'version' is a number", field="version")
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        tool = await stored.restore_version(
            session,
            _id(request),
            number,
            author=ingress_user(request),
            validate=request.app.get(keys.CUSTOM_TOOL_VALIDATOR),
        )
    return _answer(_tool(tool))


async def try_view(request: web.Request) -> web.Response:
    """Run a saved tool once, as the model would: ``{"arguments": {...} or text, "dry_run"}``.

    The tool's current definition is tried whether or not it is enabled.
    """
    body = await read_json_object(request, limit=BODY_LIMIT)
    async with request.app[keys.STORE].sessionmaker() as session:
        tool = await stored.get_tool(session, _id(request))
    return await _try(request, tool.definition, body)


async def try_unsaved_view(request: web.Request) -> web.Response:
    """Try the editor's definition unsaved: ``definition`` or ``source``, as for a save."""
    body = await read_json_object(request, limit=BODY_LIMIT)
    return await _try(request, _definition(body), body)


async def _try(
    request: web.Request, definition: Mapping[str, JsonValue], body: JsonObject
) -> web.Response:
    trier = request.app.get(keys.CUSTOM_TOOL_TRY)
    if trier is None:
        raise RequestProblem(503, "not_ready", "the agent is not running yet; try again shortly")
    arguments = body.get("arguments", {})
    if not isinstance(arguments, dict | str):
        raise RequestProblem(
            422,
            "invalid_field",
            "'arguments' is an object, or the argument text a model would send",
            field="arguments",
        )
    dry_run = body.get("dry_run", False)
    if not isinstance(dry_run, bool):
        raise RequestProblem(422, "invalid_field", "'dry_run' is true or false", field="dry_run")
    # The option wins, as for every turn: with it on, nothing acts for real.
    dry_run = dry_run or request.app[keys.SETTINGS].options.dry_run
    trial = await trier(definition, arguments, dry_run=dry_run)
    return web.json_response(trial.as_dict())


async def import_view(request: web.Request) -> web.Response:
    """``{"text": EOC YAML, "preview": bool}``: each entry saved as a tool, or refused with why.

    Each tool is saved in a transaction of its own, so a name already taken refuses that entry
    alone. ``preview`` converts and checks without saving anything.
    """
    body = await read_json_object(request, limit=BODY_LIMIT)
    text = body.get("text")
    if not isinstance(text, str):
        raise RequestProblem(422, "invalid_field", "'text' is the YAML to import", field="text")
    validate = request.app.get(keys.CUSTOM_TOOL_VALIDATOR)
    result = import_functions(text, validate=validate)
    refused = [{"name": name, "reason": reason} for name, reason in result.refused]
    warnings = [{"name": name, "warning": text} for name, text in result.warnings]
    if body.get("preview") is True:
        return web.json_response(
            {"definitions": list(result.definitions), "refused": refused, "warnings": warnings}
        )
    imported = []
    sessionmaker = request.app[keys.STORE].sessionmaker
    for definition in result.definitions:
        try:
            async with sessionmaker.begin() as session:
                tool = await stored.save_tool(
                    session, definition, author=ingress_user(request), note="imported"
                )
        except CustomToolInvalid as err:
            reason = "; ".join(message for _path, message in err.problems)
            refused.append({"name": str(definition["name"]), "reason": reason})
        else:
            imported.append({"id": tool.id, "name": tool.name})
    # A warning is about a tool that came in; an entry refused on saving has its reason instead.
    names = {tool["name"] for tool in imported}
    warnings = [warning for warning in warnings if warning["name"] in names]
    return web.json_response({"imported": imported, "refused": refused, "warnings": warnings})


async def export_view(request: web.Request) -> web.Response:
    """Tools as EOC YAML: ``?ids=1,2`` or every tool not deleted."""
    raw_ids = request.query.get("ids")
    async with request.app[keys.STORE].sessionmaker() as session:
        if raw_ids:
            ids = [int(part) for part in raw_ids.split(",") if part.strip().isdigit()]
        else:
            ids = [tool.id for tool in await stored.list_tools(session)]
        tools = [await stored.get_tool(session, tool_id) for tool_id in ids]
    result = export_functions([tool.current.definition for tool in tools])
    not_exported = [{"name": name, "reason": reason} for name, reason in result.not_exported]
    return web.json_response({"text": result.text, "not_exported": not_exported})


async def secrets_view(request: web.Request) -> web.Response:
    """The secrets by name and last change: never a value."""
    async with request.app[keys.STORE].sessionmaker() as session:
        names = await stored_secrets.secret_names(session)
    secrets = [SecretOut.model_validate(secret, from_attributes=True) for secret in names]
    return _answer(SecretListOut(secrets=secrets))


async def set_secret_view(request: web.Request) -> web.Response:
    """``{"value": "..."}``: create or replace a secret; the answer does not repeat it."""
    body = await read_json_object(request, limit=16 * KIB)
    value = body.get("value")
    if not isinstance(value, str) or not value:
        raise RequestProblem(422, "invalid_field", "'value' is a non-empty string", field="value")
    name = request.match_info["name"]
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, name, value)
    return web.json_response({"name": name})


async def delete_secret_view(request: web.Request) -> web.Response:
    """Delete a secret."""
    name = request.match_info["name"]
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored_secrets.delete_secret(session, name)
    return web.json_response({"name": name})


def _definition(body: JsonObject) -> Mapping[str, JsonValue]:
    """The definition sent as an object, or parsed from the editor's text (YAML reads JSON)."""
    definition = body.get("definition")
    if isinstance(definition, dict):
        return definition
    source = body.get("source")
    if not isinstance(source, str):
        raise RequestProblem(
            422,
            "invalid_field",
            "send the definition as 'definition' (an object) or 'source' (YAML or JSON text)",
            field="definition",
        )
    try:
        parsed = load_yaml(source)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise CustomToolInvalid([("", f"{line}not valid YAML or JSON: {problem}")]) from err
    if not isinstance(parsed, dict):
        raise CustomToolInvalid([("", "a definition is a mapping of its fields")])
    return parsed


def _note(body: JsonObject) -> str:
    note = body.get("note", "")
    return note[:500] if isinstance(note, str) else ""


def _id(request: web.Request) -> int:
    return int(request.match_info["id"])


def _number(request: web.Request, name: str) -> int:
    value = request.query.get(name, "")
    if not value.isdigit():
        raise RequestProblem(422, "invalid_field", f"'{name}' is a version number", field=name)
    return int(value)


def _version(version: ToolVersion) -> ToolVersionOut:
    return ToolVersionOut.model_validate(version, from_attributes=True)


def _tool(tool: StoredTool) -> ToolOut:
    """The tool as the API shows it: its current version nested, its definition also as YAML."""
    return ToolOut(
        id=tool.id,
        name=tool.name,
        enabled=tool.enabled,
        deleted_at=tool.deleted_at,
        created_at=tool.created_at,
        updated_at=tool.updated_at,
        version=_version(tool.current),
        definition=tool.definition,
        source=render_definition(tool.definition),
    )


def _answer(body: BaseModel, status: int = 200) -> web.Response:
    """The one place a tool's record becomes the wire format."""
    return web.json_response(body.model_dump(mode="json"), status=status)
