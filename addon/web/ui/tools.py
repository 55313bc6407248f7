"""The Custom tools pages: the list, the editor, try it, versions, import, export and secrets.

Thin views over :mod:`addon.store.tools.custom_tools` and the tool runner; the editor's own logic
(reading its text, placing problems on lines, the try-it form) is in :mod:`.tool_editor`, import
and export in :mod:`.tool_transfer`. Every change is a form POST answered with a redirect (or the
page again with its problems), so all of it works without script; ``app.js`` adds the
highlighting editor, marks problem lines and keeps the fields and the text together as they are
typed. The text is saved as written (:func:`.tool_editor.apply_fields`) and shown back so.

Secret values are written here and never read back: pages name secrets, and the runner masks
their values in everything a try shows.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from aiohttp import web

from addon import keys
from addon.custom_tools.definition import template_warnings
from addon.errors import CustomToolInvalid, NotFoundError
from addon.store.tools import custom_tools as stored
from addon.store.tools import stored_secrets
from addon.text import JsonObject, JsonValue
from addon.web.access import ingress_user
from addon.web.ui import notices
from addon.web.ui import tool_editor as editor
from addon.web.ui.forms import text_fields
from addon.web.ui.templating import render
from addon.web.ui.tool_page import EditorPage, TryShown
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)


async def tools_view(request: web.Request) -> web.Response:
    """Every tool with its use; ``?deleted=1`` lists the deleted ones too."""
    return await _list_page(request)


async def _list_page(
    request: web.Request, *, secret_problem: str = "", status: int = 200
) -> web.Response:
    include_deleted = request.query.get("deleted") == "1"
    async with request.app[keys.STORE].sessionmaker() as session:
        tools = await stored.list_tools(session, include_deleted=include_deleted)
        secrets = await stored_secrets.secret_names(session)
    return render(
        request,
        "tools.html",
        {
            "tools": tools,
            "secrets": secrets,
            "include_deleted": include_deleted,
            "notice": notices.notice(request, notices.TOOLS),
            "secret_problem": secret_problem,
        },
        status=status,
    )


async def tool_new_view(request: web.Request) -> web.Response:
    """The editor for a new tool, filled with an example to change."""
    definition = editor.parse_source(editor.NEW_TOOL_SOURCE)
    return _editor_page(request, None, editor.NEW_TOOL_SOURCE, editor.field_values(definition))


async def tool_view(request: web.Request) -> web.Response:
    """One tool: its editor, try it, versions and actions; ``?format=json`` shows JSON."""
    fmt = "json" if request.query.get("format") == "json" else "yaml"
    tool = await _get_tool(request)
    source = editor.saved_source(tool.current.source, tool.definition, fmt)
    return await _tool_page(request, tool, source, editor.field_values(tool.definition))


async def tool_create_view(request: web.Request) -> web.Response:
    """Save a new tool from the editor, or show the editor again with its problems."""
    form = await text_fields(request)
    source = _edited(form)
    try:
        tool = await _save_edited(request, form, source, None)
    except CustomToolInvalid as err:
        problems = editor.place(err, source)
        fields, originals = _refused_fields(form, source)
        return _editor_page(
            request, None, source, fields, problems, status=422, originals=originals
        )
    _LOGGER.info("Custom tool %s created (id %d)", tool.name, tool.id)
    raise web.HTTPSeeOther(_tool_url(request, tool.id, "created"))


async def tool_save_view(request: web.Request) -> web.Response:
    """Save the editor's definition as the tool's next version, or show its problems."""
    form = await text_fields(request)
    tool_id = _id(request)
    source = _edited(form)
    try:
        tool = await _save_edited(request, form, source, tool_id)
    except CustomToolInvalid as err:
        current = await _get_tool(request)
        problems = editor.place(err, source)
        fields, originals = _refused_fields(form, source)
        return await _tool_page(
            request,
            current,
            source,
            fields,
            problems=problems,
            originals=originals,
            status=422,
        )
    _LOGGER.info("Custom tool %s saved as version %d", tool.name, tool.current.number)
    raise web.HTTPSeeOther(_tool_url(request, tool.id, "saved"))


async def _save_edited(
    request: web.Request, form: Mapping[str, str], source: str, tool_id: int | None
) -> stored.StoredTool:
    """The editor's ``source`` saved as a new tool (no ``tool_id``) or as its next version.

    Raises :class:`CustomToolInvalid` when the text does not parse or the definition is refused.
    """
    definition = editor.parse_source(source)
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        return await stored.save_tool(
            session,
            definition,
            tool_id=tool_id,
            author=ingress_user(request),
            note=form.get("note", "")[:500],
            validate=request.app.get(keys.CUSTOM_TOOL_VALIDATOR),
            source=source,
        )


async def tool_try_view(request: web.Request) -> web.Response:
    """Run the tool's current version with the form's arguments, and show what happened."""
    form = await text_fields(request)
    tool = await _get_tool(request)
    trier = request.app.get(keys.CUSTOM_TOOL_TRY)
    if trier is None:
        raise web.HTTPServiceUnavailable(text="The tool runner is not ready yet; try again soon.")
    definition_data = tool.definition
    parameters = _parameters(definition_data)
    fields = editor.argument_fields(parameters, form)
    dry_option = request.app[keys.SETTINGS].options.dry_run
    dry_run = dry_option or form.get("dry_run") == "on"
    arguments, problems = editor.read_arguments(fields, parameters)
    run: TryShown | None = None
    if not problems:
        # The same path as the model's calls and the API's try: the registry's argument repair
        # and validation, the runner, secrets masked in everything shown.
        try:
            trial = await trier(definition_data, arguments, dry_run=dry_run)
        except CustomToolInvalid as err:
            problems = [f"{path or 'definition'}: {message}" for path, message in err.problems]
        else:
            run = TryShown.of(trial)
            _LOGGER.info(
                "Custom tool %s tried from the panel (dry run: %s): %s",
                tool.name,
                dry_run,
                trial.error or "ok",
            )
    source = editor.saved_source(tool.current.source, tool.definition)
    return await _tool_page(
        request,
        tool,
        source,
        editor.field_values(tool.definition),
        arg_values=form,
        run=run,
        try_problems=problems,
        dry_run=dry_run,
        status=200 if not problems else 422,
    )


async def tool_enabled_view(request: web.Request) -> web.Response:
    """Offer the tool to the model, or stop: ``enabled=on|off``."""
    form = await text_fields(request)
    enabled = form.get("enabled") == "on"
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        tool = await stored.set_enabled(session, _id(request), enabled)
    raise web.HTTPSeeOther(_tool_url(request, tool.id, "enabled" if enabled else "disabled"))


async def tool_delete_view(request: web.Request) -> web.Response:
    """Delete the tool, reversibly."""
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        tool = await stored.delete_tool(session, _id(request))
    raise web.HTTPSeeOther(_tool_url(request, tool.id, "deleted"))


async def tool_undelete_view(request: web.Request) -> web.Response:
    """Bring a deleted tool back (refused if its name was taken meanwhile)."""
    tool_id = _id(request)
    try:
        async with request.app[keys.STORE].sessionmaker.begin() as session:
            await stored.undelete_tool(session, tool_id)
    except CustomToolInvalid as err:
        raise web.HTTPConflict(text=editor.reasons(err)) from err
    raise web.HTTPSeeOther(_tool_url(request, tool_id, "undeleted"))


async def tool_restore_view(request: web.Request) -> web.Response:
    """Make an old version current again, as a new version: ``version=N``."""
    form = await text_fields(request)
    number = form.get("version", "")
    if not number.isdigit():
        raise web.HTTPBadRequest(text="Choose a version to restore.")
    tool_id = _id(request)
    try:
        async with request.app[keys.STORE].sessionmaker.begin() as session:
            await stored.restore_version(
                session,
                tool_id,
                int(number),
                author=ingress_user(request),
                validate=request.app.get(keys.CUSTOM_TOOL_VALIDATOR),
            )
    except CustomToolInvalid as err:
        raise web.HTTPConflict(
            text=f"Version {number} cannot be restored: {editor.reasons(err)}"
        ) from err
    raise web.HTTPSeeOther(_tool_url(request, tool_id, "restored"))


async def tool_diff_view(request: web.Request) -> web.Response:
    """``?from=N&to=M``: what changed between two versions, as a unified diff."""
    old, new = request.query.get("from", ""), request.query.get("to", "")
    if not (old.isdigit() and new.isdigit()):
        raise web.HTTPBadRequest(text="Choose two versions to compare.")
    tool = await _get_tool(request)
    async with request.app[keys.STORE].sessionmaker() as session:
        diff = await stored.diff_versions(session, tool.id, int(old), int(new))
        versions = await stored.tool_versions(session, tool.id)
    return render(
        request,
        "tool_diff.html",
        {"tool": tool, "old": int(old), "new": int(new), "diff": diff, "versions": versions},
    )


async def secret_set_view(request: web.Request) -> web.Response:
    """Create or replace a secret; the value is stored and never shown again."""
    form = await text_fields(request)
    name, value = form.get("name", "").strip(), form.get("value", "")
    if not value:
        return await _list_page(request, secret_problem="Give the secret a value.", status=422)
    try:
        async with request.app[keys.STORE].sessionmaker.begin() as session:
            await stored_secrets.set_secret(session, name, value)
    except CustomToolInvalid as err:
        return await _list_page(request, secret_problem=editor.reasons(err), status=422)
    _LOGGER.info("Secret %s set from the panel", name)
    raise web.HTTPSeeOther(_list_url(request, "secret_set"))


async def secret_delete_view(request: web.Request) -> web.Response:
    """Delete a secret by name."""
    form = await text_fields(request)
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored_secrets.delete_secret(session, form.get("name", ""))
    raise web.HTTPSeeOther(_list_url(request, "secret_deleted"))


async def _tool_page(
    request: web.Request,
    tool: stored.StoredTool,
    source: str,
    fields: Mapping[str, str],
    *,
    problems: list[editor.Problem] | None = None,
    arg_values: Mapping[str, str] | None = None,
    run: TryShown | None = None,
    try_problems: list[str] | None = None,
    dry_run: bool = True,
    originals: Mapping[str, str] | None = None,
    status: int = 200,
) -> web.Response:
    async with request.app[keys.STORE].sessionmaker() as session:
        versions = await stored.tool_versions(session, tool.id)
    parameters = _parameters(tool.definition)
    page = EditorPage(
        tool=tool,
        source=source,
        fields=fields,
        originals=originals,
        problems=problems or (),
        notice=notices.notice(request, notices.TOOLS),
        template_warnings=template_warnings(tool.definition),
        versions=versions,
        arguments=editor.argument_fields(parameters, arg_values),
        run=run,
        try_problems=try_problems or [],
        dry_run=dry_run,
        dry_run_option=request.app[keys.SETTINGS].options.dry_run,
    )
    return render(request, "tool.html", page.context(), status=status)


def _editor_page(
    request: web.Request,
    tool: stored.StoredTool | None,
    source: str,
    fields: Mapping[str, str],
    problems: list[editor.Problem] | None = None,
    *,
    status: int = 200,
    originals: Mapping[str, str] | None = None,
) -> web.Response:
    page = EditorPage(
        tool=tool, source=source, fields=fields, originals=originals, problems=problems or ()
    )
    return render(request, "tool.html", page.context(), status=status)


def _fields(form: Mapping[str, str], prefix: str) -> dict[str, str]:
    values = {name: form.get(prefix + name, "") for name in editor.COMMON_FIELDS}
    values["enabled"] = "on" if form.get(prefix + "enabled") == "on" else "off"
    return values


def _refused_fields(form: Mapping[str, str], source: str) -> tuple[dict[str, str], dict[str, str]]:
    """The fields to show after a refused save, and the originals they are compared with.

    ``source`` already holds the fields the user changed, so the fields are what it says and
    it is shown again with them. When it does not parse, the form as it was sent, so a field
    the user changed still wins next time.
    """
    try:
        values = editor.field_values(editor.parse_source(source))
    except CustomToolInvalid:
        return _fields(form, ""), _fields(form, "original.")
    return values, dict(values)


def _edited(form: Mapping[str, str]) -> str:
    """The editor's text with the form fields the user changed written into it."""
    return editor.apply_fields(
        form.get("source", ""), _fields(form, ""), _fields(form, "original.")
    )


async def _get_tool(request: web.Request) -> stored.StoredTool:
    async with request.app[keys.STORE].sessionmaker() as session:
        return await stored.get_tool(session, _id(request))


def _id(request: web.Request) -> int:
    try:
        return int(request.match_info["tool_id"])
    except ValueError:
        raise NotFoundError("no such custom tool") from None


def _tool_url(request: web.Request, tool_id: int, done: str) -> str:
    return Urls.of(request).page("ui.tool", {notices.DONE: done}, tool_id=str(tool_id))


def _list_url(request: web.Request, done: str) -> str:
    return Urls.of(request).page("ui.tools", {notices.DONE: done}, fragment="secrets")


def _parameters(definition: Mapping[str, JsonValue]) -> JsonObject:
    """The tool's parameter schema, empty when it has none (or none that is an object)."""
    parameters = definition.get("parameters")
    return parameters if isinstance(parameters, dict) else {}
