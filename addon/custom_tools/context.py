"""What every kind is given and what it returns: the shared vocabulary of the runner and kinds.

Home Assistant is reached through :class:`HomeAssistantPort`, a protocol the wiring implements
over the WebSocket client (``addon/ha/custom_tools_port.py``): this package never imports
``addon.ha``, and tests may pass any object with these four methods.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from addon.custom_tools.secrets_mask import SecretMask
from addon.text import JsonObject, JsonValue

if TYPE_CHECKING:
    import aiohttp

    from addon.custom_tools.templating import Renderer
    from addon.home.actions.gate import Gate, RenderedTemplate


class HomeAssistantPort(Protocol):
    """The four things custom tools ask of Home Assistant."""

    async def call_service(
        self,
        domain: str,
        service: str,
        data: Mapping[str, JsonValue],
        target: Mapping[str, JsonValue] | None,
        return_response: bool,
    ) -> JsonValue:
        """Call ``domain.service``; Home Assistant's answer (``response`` when asked for)."""

    async def render_template(
        self,
        template: str,
        variables: Mapping[str, JsonValue],
        timeout: float,  # noqa: ASYNC109 - Home Assistant's own render timeout
    ) -> RenderedTemplate:
        """Render ``template`` in Home Assistant, with its states, within ``timeout`` seconds."""

    async def history(
        self, entity_ids: list[str], start: datetime, end: datetime, statistics: bool
    ) -> JsonValue:
        """Recorded states (``{entity_id: [{s, lu}, …]}``) or hourly statistics of the period."""

    def exposed(self, entity_id: str) -> bool:
        """Whether the entity is exposed to Assist."""


@dataclass(frozen=True, slots=True)
class RenderedRequest:
    """What a step sends, fully rendered (secrets masked once it leaves the runner).

    For ``rest`` the HTTP request; for Home Assistant kinds ``method`` names the kind of call
    (``ACTION``, ``SCRIPT``, ``TEMPLATE``, ``HISTORY``) and ``url`` what it addresses.
    """

    method: str
    url: str
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    body: JsonValue = None

    def as_dict(self) -> JsonObject:
        """JSON-ready form, for traces and the try-it panel."""
        return {
            "method": self.method,
            "url": self.url,
            "headers": dict(self.headers),
            "body": self.body,
        }


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    """What came back: status, headers, the body as text (cut at the size cap)."""

    status: int | None
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    body: str = ""
    truncated: bool = False

    def as_dict(self) -> JsonObject:
        """JSON-ready form, for traces and the try-it panel."""
        return {
            "status": self.status,
            "headers": dict(self.headers),
            "body": self.body,
            "truncated": self.truncated,
        }

    def masked(self, mask: SecretMask) -> RecordedResponse:
        """The answer with every secret masked: before anything reads, shapes or cuts it."""
        if not mask:
            return self
        return RecordedResponse(
            self.status, mask.headers(dict(self.headers)), mask.text(self.body), self.truncated
        )


@dataclass(frozen=True, slots=True)
class ActedOn:
    """An entity an acting step addressed, for the outcome check."""

    action: str
    entity_id: str


@dataclass(frozen=True, slots=True)
class StepResult:
    """One step's result (what later steps and the model see) and what it exchanged."""

    result: JsonValue
    request: RenderedRequest | None = None
    response: RecordedResponse | None = None
    sent: bool = True
    acted: tuple[ActedOn, ...] = ()


@dataclass(frozen=True, slots=True)
class StepContext:
    """What one step runs with.

    ``variables`` are the template variables (arguments by name, ``args`` and, in a composite,
    ``steps``); ``secrets`` are the tool's own secrets, which only a rest request's URL, query,
    headers and body see (as ``secrets``); ``mask`` masks them (every secret the tool runner
    knows), applied to an answer before anything reads or cuts it. ``send`` is the gate's answer
    for this step: False for an acting step of a dry run, which renders its request and records
    it without sending; ``field`` prefixes error paths (``rest``, ``composite.steps.1.rest``).
    """

    renderer: Renderer
    session: aiohttp.ClientSession | None
    port: HomeAssistantPort | None
    arguments: Mapping[str, JsonValue]
    variables: Mapping[str, object]
    send: bool
    timeout: float
    field: str
    now: Callable[[], datetime]
    gate: Gate
    """The call's gate: exposure of targets and reads, forbidden actions (decided per step)."""
    secrets: Mapping[str, str] = dataclasses.field(default_factory=dict)
    mask: SecretMask = dataclasses.field(default_factory=lambda: SecretMask(()))
