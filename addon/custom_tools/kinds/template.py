"""The ``template`` kind: a template Home Assistant renders itself, with its live states.

Users get Home Assistant's own template language (``states()``, ``area_entities()``…). The
arguments are its variables, by name and as ``args``; in a composite, ``steps`` too. Secrets
stay here: Home Assistant has its own. Home Assistant reports what the render listened to; the
gate refuses the result when it read an entity not exposed to Assist, a whole domain or every
state (``{{ states[entity_id] }}`` on a lock the user hid reads nothing).
"""

from __future__ import annotations

from addon.custom_tools.context import RecordedResponse, RenderedRequest, StepContext, StepResult
from addon.custom_tools.definition import TemplateSettings
from addon.custom_tools.templating import json_ready
from addon.errors import CustomToolCallError, HomeAgentError, ToolError
from addon.home.actions.gate import TemplateReads


async def run(settings: TemplateSettings, context: StepContext) -> StepResult:
    """Ask Home Assistant to render the template within the time left."""
    variables = {
        key: json_ready(value) for key, value in context.variables.items() if key != "secrets"
    }
    request = RenderedRequest(
        "TEMPLATE",
        "render_template",
        {},
        {"template": settings.template, "variables": variables},
    )
    if context.port is None:
        raise ToolError("Home Assistant is not connected right now; try again in a moment")
    try:
        rendered = await context.port.render_template(settings.template, variables, context.timeout)
    except HomeAgentError as err:
        raise CustomToolCallError(
            f"{context.field}.template: Home Assistant could not render it: {err}",
            request=request,
        ) from err
    refused = context.gate.reads(context.field, TemplateReads.of(rendered.listeners))
    if not refused.allowed:
        raise CustomToolCallError(f"{context.field}.template: {refused.reason}", request=request)
    text = rendered.text
    return StepResult(text.strip(), request, RecordedResponse(None, {}, text))
