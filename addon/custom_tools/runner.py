"""Running one custom tool call: the kinds behind one entry point, its record with secrets masked.

:meth:`Runner.run` never raises for anything the tool, its endpoint or the model did: the
:class:`ToolRun` says what was sent, what came back, what the model receives and what failed
(anything unforeseen is caught at this boundary too, logged and returned masked). A tool sees
only its own secrets (:attr:`ToolDefinition.secret_names`), and only in a rest request; an
answer is masked as it arrives, before it is shaped or cut, and every part of the record is
masked again on the way out (an endpoint that echoes a key must not hand it to the model).
Whether a step is sent is the gate's decision (:mod:`addon.home.actions.gate`): a dry run renders an
acting step's request in full and records it without sending it; read-only steps run for real,
so their results are real, but a Home Assistant action, a script or an HTTP request other than
GET always counts as acting.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel

from addon.custom_tools.context import (
    ActedOn,
    HomeAssistantPort,
    RecordedResponse,
    RenderedRequest,
    StepContext,
    StepResult,
)
from addon.custom_tools.definition import (
    CompositeSettings,
    HistorySettings,
    RestSettings,
    ScriptSettings,
    ServiceSettings,
    TemplateSettings,
    ToolDefinition,
)
from addon.custom_tools.kinds import composite, history, rest, script, service, template
from addon.custom_tools.kinds.composite import StepRecord
from addon.custom_tools.secrets_mask import SecretMask
from addon.custom_tools.templating import Renderer
from addon.errors import CustomToolCallError, HomeAgentError, ToolError
from addon.home.actions.gate import Decision, Gate
from addon.text import JsonObject, JsonValue

if TYPE_CHECKING:
    import aiohttp

__all__ = ["HomeAssistantPort", "Runner", "ToolRun"]

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToolRun:
    """One call of a custom tool, secrets masked throughout.

    ``result`` is what the model receives (None when the call failed); ``request`` and
    ``response`` are the last step's (the failing one's when a step failed); ``steps`` lists a
    composite's steps; ``sent`` is False when a dry run held back an acting request.
    """

    name: str
    result: JsonValue
    request: RenderedRequest | None
    response: RecordedResponse | None
    duration_ms: float
    error: str | None
    dry_run: bool = False
    sent: bool = True
    steps: tuple[StepRecord, ...] = ()
    acted: tuple[ActedOn, ...] = field(default=())
    decisions: tuple[Decision, ...] = ()
    """What the gate held or refused during the call."""

    @property
    def ok(self) -> bool:
        """Whether the call ran without an error."""
        return self.error is None

    def for_model(self) -> JsonObject:
        """The tool result as the model reads it (Home Assistant's ``success``/``error`` shape)."""
        if self.error is not None:
            return {"error": "CustomToolError", "error_text": self.error}
        answer: JsonObject = {"success": True, "result": self.result}
        if not self.sent:
            answer["dry_run"] = True
        return answer

    def as_dict(self) -> JsonObject:
        """JSON-ready form for traces, events and the try-it panel."""
        return {
            "name": self.name,
            "result": self.result,
            "request": self.request.as_dict() if self.request is not None else None,
            "response": self.response.as_dict() if self.response is not None else None,
            "duration_ms": round(self.duration_ms, 3),
            "error": self.error,
            "dry_run": self.dry_run,
            "sent": self.sent,
            "gate": [decision.as_dict() for decision in self.decisions],
            "steps": [
                {
                    "name": step.name,
                    "kind": step.kind,
                    "result": step.result,
                    "request": step.request.as_dict() if step.request is not None else None,
                    "sent": step.sent,
                    "error": step.error,
                }
                for step in self.steps
            ],
        }


class Runner:
    """Runs custom tools; one per app, sharing the HTTP session, the port and the renderer."""

    def __init__(
        self,
        *,
        session: aiohttp.ClientSession | None,
        port: HomeAssistantPort | None,
        renderer: Renderer | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.session = session
        self.port = port
        self.renderer = renderer if renderer is not None else Renderer()
        self._now = now
        # The last secrets' mask: the table rarely changes, and building one costs more than
        # the rest of a call's masking.
        self._mask: tuple[tuple[str, ...], SecretMask] | None = None

    def mask(self, secrets: Mapping[str, str]) -> SecretMask:
        """The mask of ``secrets``' values, built again only when they change."""
        values = tuple(secrets.values())
        if self._mask is None or self._mask[0] != values:
            self._mask = (values, SecretMask(values))
        return self._mask[1]

    async def run(
        self,
        definition: ToolDefinition,
        arguments: Mapping[str, JsonValue],
        *,
        dry_run: bool,
        secrets: Mapping[str, str],
        gate: Gate | None = None,
    ) -> ToolRun:
        """Run ``definition`` with validated ``arguments``; never raises for a failed call.

        ``secrets`` is every custom tool secret: all are masked, the tool uses its own.
        ``gate`` is the call's (the registry's); without one the runner makes its own. Its
        exposure is Home Assistant's live one, through the port.
        """
        started = time.perf_counter()
        deadline = started + definition.timeout
        mask = self.mask(secrets)
        own = {name: secrets[name] for name in definition.secret_names if name in secrets}
        gate = (gate if gate is not None else Gate(dry_run)).bind(
            self.port.exposed if self.port is not None else None
        )
        composite_tool = isinstance(definition.settings, CompositeSettings)
        settings = definition.settings
        context = StepContext(
            renderer=self.renderer,
            session=self.session,
            port=self.port,
            arguments=dict(arguments),
            variables={**arguments, "args": dict(arguments)},
            send=composite_tool
            or gate.send(
                definition.name,
                kind=definition.kind,
                declared=definition.resolved_acts,
                method=settings.method if isinstance(settings, RestSettings) else None,
            ),
            timeout=definition.timeout,
            field=definition.kind,
            now=self._now,
            gate=gate,
            secrets=own,
            mask=mask,
        )
        records: list[StepRecord] = []
        request: RenderedRequest | None = None
        response: RecordedResponse | None = None
        try:
            async with asyncio.timeout(definition.timeout):
                if isinstance(settings, CompositeSettings):
                    step = await composite.run(
                        settings,
                        context,
                        run_step,
                        acting=definition.acts,
                        records=records,
                        remaining=lambda: max(0.001, deadline - time.perf_counter()),
                    )
                else:
                    step = await run_step(definition.kind, settings, context)
        except TimeoutError:
            error = f"{definition.name} did not finish within {definition.timeout:g} s"
        except CustomToolCallError as err:
            error = str(err)
            request = err.request if isinstance(err.request, RenderedRequest) else None
            response = err.response if isinstance(err.response, RecordedResponse) else None
        except HomeAgentError as err:
            error = str(err)
        except Exception as err:  # the boundary: nothing a tool does may escape the runner
            error = f"{definition.name} failed unexpectedly: {type(err).__name__}: {err}"
            _LOGGER.warning("Custom tool %s raised %s", definition.name, type(err).__name__)
        else:
            return ToolRun(
                name=definition.name,
                result=mask.value(step.result),
                request=_masked_request(mask, step.request),
                response=_masked_response(mask, step.response),
                duration_ms=(time.perf_counter() - started) * 1000,
                error=None,
                dry_run=dry_run,
                sent=step.sent and all(record.sent for record in records),
                steps=tuple(_masked_step(mask, record) for record in records),
                acted=step.acted if step.sent else (),
                decisions=tuple(gate.decisions),
            )
        error = mask.text(error)
        if request is None and records and records[-1].request is not None:
            request = records[-1].request
        _LOGGER.info("Custom tool %s failed: %s", definition.name, error)
        return ToolRun(
            name=definition.name,
            result=None,
            request=_masked_request(mask, request),
            response=_masked_response(mask, response),
            duration_ms=(time.perf_counter() - started) * 1000,
            error=error,
            dry_run=dry_run,
            steps=tuple(_masked_step(mask, record) for record in records),
            decisions=tuple(gate.decisions),
        )


async def run_step(kind: str, settings: BaseModel, context: StepContext) -> StepResult:
    """Run one step of ``kind`` (a tool's only step, or one of a composite's)."""
    if isinstance(settings, RestSettings):
        return await rest.run(settings, context)
    if isinstance(settings, ServiceSettings):
        return await service.run(settings, context)
    if isinstance(settings, TemplateSettings):
        return await template.run(settings, context)
    if isinstance(settings, ScriptSettings):
        return await script.run(settings, context)
    if isinstance(settings, HistorySettings):
        return await history.run(settings, context)
    raise ToolError(f"no runner for kind {kind!r}")


def _masked_request(mask: SecretMask, request: RenderedRequest | None) -> RenderedRequest | None:
    if request is None or not mask:
        return request
    return RenderedRequest(
        mask.text(request.method),
        mask.text(request.url),
        mask.headers(dict(request.headers)),
        mask.value(request.body),
    )


def _masked_response(
    mask: SecretMask, response: RecordedResponse | None
) -> RecordedResponse | None:
    return None if response is None else response.masked(mask)


def _masked_step(mask: SecretMask, record: StepRecord) -> StepRecord:
    if not mask:
        return record
    return StepRecord(
        record.name,
        record.kind,
        mask.value(record.result),
        _masked_request(mask, record.request),
        record.sent,
        mask.text(record.error) if record.error is not None else None,
    )
