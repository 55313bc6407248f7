"""The ``script`` kind: run a script entity with the arguments as its variables.

As for exposed scripts (:class:`addon.tools.home_tools.ScriptTool`), the script's own service is
called with ``return_response``, and its response is the result. The gate runs only a script
exposed to Assist, and never in a dry run, whatever ``acts`` says (a script acts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from addon.custom_tools.context import RecordedResponse, RenderedRequest, StepContext, StepResult
from addon.custom_tools.definition import ScriptSettings
from addon.errors import CustomToolCallError, HomeAgentError, ToolError

NOT_SENT = "dry run: the script was recorded, not run"
HELD = "held: the user is asked to confirm before the script runs"


async def run(settings: ScriptSettings, context: StepContext) -> StepResult:
    """Run the script and return its response (``{}`` when it sets none)."""
    variables = dict(context.arguments)
    request = RenderedRequest("SCRIPT", settings.entity_id, {}, variables)
    if context.port is None:
        raise ToolError("Home Assistant is not connected right now; try again in a moment")
    refused = context.gate.entity(settings.entity_id)
    if not refused.allowed:
        raise ToolError(f"{context.field}.entity_id: {refused.reason}")
    refused = context.gate.reaches("script.turn_on", [settings.entity_id], variables)
    if not refused.allowed:
        raise ToolError(f"{context.field}.entity_id: {refused.reason}")
    held = context.gate.confirm("script.turn_on", [settings.entity_id], variables, script=True)
    if not held.allowed:
        return StepResult(HELD, request=request, sent=False)
    if not context.send:
        return StepResult(NOT_SENT, request=request, sent=False)
    object_id = settings.entity_id.partition(".")[2]
    try:
        answer = await context.port.call_service("script", object_id, variables, None, True)
    except HomeAgentError as err:
        raise CustomToolCallError(f"{settings.entity_id} failed: {err}", request=request) from err
    value = answer.get("response") if isinstance(answer, Mapping) else None
    result = {} if value is None else value
    body = json.dumps(result, ensure_ascii=False, default=str)
    return StepResult(result, request, RecordedResponse(None, {}, body))
