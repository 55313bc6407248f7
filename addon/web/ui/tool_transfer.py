"""The Custom tools pages' import and export, in Extended OpenAI Conversation's function YAML.

Thin views over :mod:`addon.custom_tools.extended_openai` (import) and
:mod:`addon.custom_tools.extended_openai_export` (export); each imported entry is saved as a
tool of its own, or refused with the reason.
"""

from __future__ import annotations

import logging

from aiohttp import web

from addon import keys
from addon.custom_tools.extended_openai import import_functions
from addon.custom_tools.extended_openai_export import export_functions
from addon.errors import CustomToolInvalid
from addon.store.tools import custom_tools as stored
from addon.web.access import ingress_user
from addon.web.ui import tool_editor as editor
from addon.web.ui.forms import text_fields
from addon.web.ui.templating import render

_LOGGER = logging.getLogger(__name__)


async def tools_import_view(request: web.Request) -> web.Response:
    """Extended OpenAI Conversation function YAML: each entry saved as a tool, or refused."""
    form = await text_fields(request)
    text = form.get("text", "")
    if len(text) > editor.MAX_SOURCE:
        raise web.HTTPRequestEntityTooLarge(max_size=editor.MAX_SOURCE, actual_size=len(text))
    imported: list[stored.StoredTool] = []
    refused: list[tuple[str, str]] = []
    warnings: list[tuple[str, str]] = []
    problem = ""
    try:
        result = import_functions(text, validate=request.app.get(keys.CUSTOM_TOOL_VALIDATOR))
    except CustomToolInvalid as err:
        problem = editor.reasons(err)
    else:
        refused.extend(result.refused)
        warnings.extend(result.warnings)
        for definition in result.definitions:
            try:
                # One transaction per tool: a name already taken refuses that entry alone.
                async with request.app[keys.STORE].sessionmaker.begin() as session:
                    tool = await stored.save_tool(
                        session, definition, author=ingress_user(request), note="imported"
                    )
            except CustomToolInvalid as err:
                refused.append((str(definition.get("name", "?")), editor.reasons(err)))
            else:
                imported.append(tool)
    _LOGGER.info("Imported %d custom tools, refused %d", len(imported), len(refused))
    # A warning is about a tool that came in; an entry refused on saving has its reason instead.
    names = {tool.name for tool in imported}
    return render(
        request,
        "tools_import.html",
        {
            "imported": imported,
            "refused": refused,
            "warnings": [(name, warning) for name, warning in warnings if name in names],
            "problem": problem,
            "text": text,
        },
        status=422 if problem else 200,
    )


async def tools_export_view(request: web.Request) -> web.Response:
    """Tools as Extended OpenAI Conversation YAML, downloaded: ``?id=N`` or every tool."""
    raw = request.query.get("id", "")
    async with request.app[keys.STORE].sessionmaker() as session:
        if raw.isdigit():
            ids = [int(raw)]
        else:
            ids = [tool.id for tool in await stored.list_tools(session)]
        tools = [await stored.get_tool(session, tool_id) for tool_id in ids]
    result = export_functions([tool.current.definition for tool in tools])
    notes = "".join(f"# not exported: {name}: {reason}\n" for name, reason in result.not_exported)
    filename = f"{tools[0].name}.yaml" if raw.isdigit() and tools else "home_agent_tools.yaml"
    return web.Response(
        text=notes + result.text,
        content_type="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
