"""The ``composite`` kind: steps in order, each result available by name to what follows.

Step ``weather``'s result is ``steps.weather`` in every later step's templates (and in Home
Assistant templates of ``template`` steps) and in the final ``result`` template; without one,
the last step's result is the tool's. A step that fails ends the run: its error names the step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pydantic import BaseModel

from addon.custom_tools.context import ActedOn, RenderedRequest, StepContext, StepResult
from addon.custom_tools.definition import CompositeSettings, RestSettings
from addon.custom_tools.kinds.shaping import resolve_pointer
from addon.errors import CustomToolCallError, HomeAgentError
from addon.text import JsonObject, JsonValue

StepRunner = Callable[[str, BaseModel, StepContext], Awaitable[StepResult]]


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One composite step as the trace shows it."""

    name: str
    kind: str
    result: JsonValue
    request: RenderedRequest | None
    sent: bool
    error: str | None = None


async def run(
    settings: CompositeSettings,
    context: StepContext,
    run_step: StepRunner,
    *,
    acting: bool | None,
    records: list[StepRecord],
    remaining: Callable[[], float],
) -> StepResult:
    """Run every step; ``records`` receives each as it ends (kept by the caller on failure).

    ``acting`` is the definition's ``acts`` when the user set it (False: no step is declared
    to act). Each step is judged on its own by the gate: ``acts: false`` cannot make an action,
    a script or a request other than GET run for real in a dry run.
    """
    results: JsonObject = {}
    last: StepResult | None = None
    acted: list[ActedOn] = []
    for index, step in enumerate(settings.steps):
        step_acts = step.resolved_acts if acting is not False else False
        step_settings = step.settings
        send = context.gate.send(
            f"{step.name} ({step.kind})",
            kind=step.kind,
            declared=step_acts,
            method=step_settings.method if isinstance(step_settings, RestSettings) else None,
        )
        step_context = dataclasses.replace(
            context,
            variables={**context.variables, "steps": dict(results)},
            send=send,
            field=f"composite.steps.{index}.{step.kind}",
            timeout=remaining(),
        )
        try:
            last = await run_step(step.kind, step_settings, step_context)
        except HomeAgentError as err:
            request = err.request if isinstance(err, CustomToolCallError) else None
            records.append(
                StepRecord(
                    step.name,
                    step.kind,
                    None,
                    request if isinstance(request, RenderedRequest) else None,
                    True,
                    str(err),
                )
            )
            raise _step_error(step.name, err) from err
        records.append(StepRecord(step.name, step.kind, last.result, last.request, last.sent))
        results[step.name] = last.result
        acted.extend(last.acted)
    assert last is not None  # at least one step, by the definition's rules
    result = last.result
    if settings.result is not None:
        variables = {**context.variables, "steps": results, "value": last.result}
        if settings.result.template is not None:
            result = context.renderer.render(
                settings.result.template, variables, "composite.result.template"
            )
        else:
            assert settings.result.pointer is not None
            result = resolve_pointer(results, settings.result.pointer, "composite.result.pointer")
    return dataclasses.replace(last, result=result, acted=tuple(acted))


def _step_error(name: str, err: HomeAgentError) -> CustomToolCallError:
    if isinstance(err, CustomToolCallError):
        return CustomToolCallError(
            f"step {name}: {err}", request=err.request, response=err.response
        )
    return CustomToolCallError(f"step {name}: {err}")
