"""Tools that act on or read the home: Assist intents, live context, exposed scripts.

Intent tools are Home Assistant's Assist API tools (same names, descriptions and parameter
schemas); each call runs our resolver and the turn's executor, live or virtual. Everything here
only ever sees entities exposed to Assist.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from addon.errors import ToolError
from addon.home.actions.handlers import handle_intent
from addon.home.actions.intents import INTENTS, IntentSpec, parameters_schema
from addon.home.context.overview import live_overview, overview_entities
from addon.home.model.live import HomeModel
from addon.home.model.records import ScriptField
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsConstraints,
    MatchTargetsPreferences,
)
from addon.text import JsonObject, JsonValue
from addon.tools.base import Tool, ToolContext, ToolReply, tool_spec
from addon.tools.datetime_tool import GetDateTimeTool
from addon.tools.memory import MEMORY_TOOL_NAMES
from addon.tools.registry import ToolRegistry
from addon.tools.script_fields import resolve_places, script_description, script_parameters

_LOGGER = logging.getLogger(__name__)

LIVE_CONTEXT_HEADER = "Live Context: An overview of the areas and the devices in this smart home:"
NOT_CONNECTED = "Home Assistant is not connected right now; try again in a moment"
SCRIPT_WAIT = 5.0
"""Seconds to wait for a script before reporting it still running and letting it finish on its own.

Long enough for a script that only calls services to finish, so its response and its errors
reach the model as Home Assistant's blocking call would report them; short enough for a voice
reply.
"""


def _home(context: ToolContext) -> HomeModel:
    if context.home is None or context.executor is None:
        raise ToolError(NOT_CONNECTED)
    return context.home


@dataclass(frozen=True, slots=True)
class IntentTool:
    """An Assist intent as a tool."""

    spec: IntentSpec

    @property
    def name(self) -> str:
        """The intent name, as Home Assistant offers it."""
        return self.spec.name

    @property
    def description(self) -> str:
        """Home Assistant's description of the intent."""
        return self.spec.description

    @property
    def parameters(self) -> JsonObject:
        """The slot schema Home Assistant's Assist API sends."""
        return parameters_schema(self.spec)

    @property
    def kind(self) -> str:
        """Intents act through the turn's executor."""
        return "intent"

    async def call(self, arguments: JsonObject, context: ToolContext) -> ToolReply:
        """Resolve targets and act; the answer is the intent's typed record.

        It becomes Home Assistant's intent response (JSON) only for the model's message
        (:class:`~addon.tools.result.ToolResult`). A failed match also carries its
        :class:`MatchFailure`, so a reply claiming otherwise can be corrected in Home
        Assistant's own words (:mod:`addon.agent.truth`).
        """
        model = _home(context)
        assert context.executor is not None
        result = await handle_intent(
            self.spec.name,
            arguments,
            model=model,
            executor=context.executor,
            preferences=MatchTargetsPreferences(area_id=context.area_id, floor_id=context.floor_id),
            language=context.language,
            now=context.now,
        )
        return ToolReply(result, failure=result.failure)


@dataclass(frozen=True, slots=True)
class GetLiveContextTool:
    """Current states of exposed entities, filterable; Home Assistant's tool of that name."""

    name: str = "GetLiveContext"
    description: str = (
        "Provides real-time information about the CURRENT state, value, or mode of devices, "
        "sensors, entities, or areas. Use this tool for: 1. Answering questions about current "
        "conditions (e.g., 'Is the light on?'). 2. As the first step in conditional actions "
        "(e.g., 'If the weather is rainy, turn off sprinklers' requires checking the weather "
        "first). You may filter for devices by name, domain, and area, including combining "
        "those filters. Prefer filtering by domain when searching for multiple devices of the "
        "same type."
    )
    kind: str = "builtin"

    @property
    def parameters(self) -> JsonObject:
        """Optional name, domain (one or a list), area and floor filters."""
        return {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "Filter entities by name or alias (case-insensitive).",
                },
                "domain": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Filter entities by domain (e.g. 'light', 'sensor').",
                },
                "area": {
                    "type": "string",
                    "description": "Filter entities by area name or alias (case-insensitive).",
                },
                "floor": {
                    "type": "string",
                    "description": "Filter entities by floor name or alias (case-insensitive).",
                },
            },
        }

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject:
        """The live overview of the matching exposed entities."""
        model = context.home
        if model is None:
            raise ToolError(NOT_CONNECTED)
        entities = overview_entities(model)
        if not entities:
            return {"success": False, "error": "No entities are exposed to Assist."}
        domains = [d.strip().lower() for d in _texts(arguments.get("domain")) if d.strip()]
        name, area, floor = (
            _text(arguments, "name"),
            _text(arguments, "area"),
            _text(arguments, "floor"),
        )
        if name or area or floor or domains:
            result = match_targets(
                model,
                MatchTargetsConstraints(
                    name=name, area_name=area, floor_name=floor, domains=domains or None
                ),
            )
            if not result.is_match:
                return {"success": False, "error": _match_error(result.no_match_reason, arguments)}
            matched = set(result.entity_ids)
            entities = [entity for entity in entities if entity.entity_id in matched]
        return {
            "success": True,
            "result": LIVE_CONTEXT_HEADER + "\n" + live_overview(model, entities),
        }


def _match_error(reason: MatchFailedReason | None, arguments: JsonObject) -> str:
    if reason is MatchFailedReason.INVALID_AREA:
        return f"Area '{arguments.get('area')}' does not exist"
    if reason is MatchFailedReason.INVALID_FLOOR:
        return f"Floor '{arguments.get('floor')}' does not exist"
    if reason is MatchFailedReason.NAME:
        return f"No exposed entities matched name '{arguments.get('name')}'"
    if reason is MatchFailedReason.AREA:
        return f"No exposed entities found in area '{arguments.get('area')}'"
    if reason is MatchFailedReason.DOMAIN:
        return (
            f"No exposed entities found in domain(s): {', '.join(_texts(arguments.get('domain')))}"
        )
    return "No entities matched the provided filter"


def _text(arguments: JsonObject, key: str) -> str | None:
    """A validated string argument (the schema says string), or None when not given."""
    value = arguments.get(key)
    return value if isinstance(value, str) else None


def _texts(value: JsonValue) -> list[str]:
    """A validated list-of-strings argument's strings (none when not given)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


@dataclass(frozen=True, slots=True)
class ScriptTool:
    """An exposed script as a tool, as Home Assistant's Assist API offers it.

    ``service`` is the script's own service (``script.<service>``), which Home Assistant's
    ScriptTool calls with the arguments as the script's variables; ``fields`` make the schema.
    ``wait`` bounds how long a call waits for the script (:data:`SCRIPT_WAIT`).
    """

    entity_id: str
    script_name: str
    label: str
    service: str
    fields: tuple[ScriptField, ...] = ()
    wait: float = SCRIPT_WAIT

    @property
    def name(self) -> str:
        """The script's object id (prefixed when it starts with a digit, as HA does)."""
        object_id = self.entity_id.partition(".")[2]
        return "_" + object_id if object_id[:1].isdigit() else object_id

    @property
    def description(self) -> str:
        """The script's description and aliases; see :func:`script_description`."""
        return self.label

    @property
    def parameters(self) -> JsonObject:
        """The script's fields, typed by their selectors."""
        return script_parameters(self.fields)

    @property
    def kind(self) -> str:
        """Scripts run through the turn's executor."""
        return "script"

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject:
        """Run the script with ``arguments`` as its variables, through the executor.

        A script that ends within the wait answers as in Home Assistant's ScriptTool:
        ``{"success": True, "result": <the script's response>}``, ``{}`` when it sets none.
        Home Assistant waits for the whole script; we wait :attr:`wait` at most, so a script
        with a delay does not hold the reply, and the model is told it is still running
        rather than that it is done. A dry run only records the call, so says it started.
        """
        model = _home(context)
        if not model.is_exposed(self.entity_id):
            raise ToolError(f"{self.script_name} is not exposed to Assist")
        assert context.executor is not None
        variables = resolve_places(arguments, self.fields, model)
        run = await context.executor.run_script(self.service, variables, wait=self.wait)
        if run.still_running:
            return {"success": True, "result": f"Started {self.script_name}; still running"}
        if run.response is None:
            return {"success": True, "result": f"Started {self.script_name}"}
        return {"success": True, "result": run.response}


def home_tools(model: HomeModel | None) -> list[Tool]:
    """The home's tools for one turn, in a stable order (intents, live context, scripts).

    Reads the model's domain index rather than every entity: this runs whenever the home
    changes (:class:`HomeToolSet`), and on every turn a caller keeps no set.
    """
    if model is None:
        return []
    by_domain = model.index.by_domain
    domains = {
        domain
        for domain, entity_ids in by_domain.items()
        if any(model.is_exposed(entity_id) for entity_id in entity_ids)
    }
    tools: list[Tool] = [
        IntentTool(spec)
        for spec in INTENTS.values()
        if spec.in_assist_api and (spec.platforms is None or spec.platforms & domains)
    ]
    if domains:
        tools.append(GetLiveContextTool())
    order = model.index.order
    scripts = sorted(
        (e for e in by_domain.get("script", ()) if model.is_exposed(e)), key=order.__getitem__
    )
    for entity_id in scripts:
        entity = model.entity(entity_id)
        if entity is None:
            continue
        service = model.script_service(entity_id)
        tools.append(
            ScriptTool(
                entity.entity_id,
                entity.name,
                script_description(service, entity),
                model.script_service_name(entity_id),
                service.fields if service is not None else (),
            )
        )
    return tools


def builtin_tool_names() -> frozenset[str]:
    """Names a custom tool may not take: the intent tools, the built-in and the memory tools."""
    return frozenset(
        {*INTENTS, GetLiveContextTool().name, GetDateTimeTool().name, *MEMORY_TOOL_NAMES}
    )


@dataclass(frozen=True, slots=True)
class HomeToolSet:
    """The home's tools and their ``tools`` entries, to make once per home model and revision.

    A turn's registry is built afresh (custom and MCP tools change without a restart), but the
    home's part changes only with the home: at a thousand entities making it cost about 0.1 ms
    a turn. The entries are shared by the turns that use the set: read only.
    """

    tools: tuple[Tool, ...]
    specs: tuple[JsonObject, ...]

    @classmethod
    def of(cls, model: HomeModel | None) -> HomeToolSet:
        """The tools :func:`home_tools` gives for ``model``, with their entries."""
        tools = tuple(home_tools(model))
        return cls(tools, tuple(tool_spec(tool) for tool in tools))


def build_registry(
    model: HomeModel | None, extra: list[Tool], home: HomeToolSet | None = None
) -> ToolRegistry:
    """The registry for one turn: the home's tools, GetDateTime, then ``extra`` (custom, memory).

    ``home`` is ``model``'s tool set when the caller keeps one (else it is made here). An extra
    tool named like one already offered (a custom tool named like an exposed script) is left
    out with a warning: the home's own tool wins.
    """
    registry = ToolRegistry()
    home = home if home is not None else HomeToolSet.of(model)
    for tool, spec in zip(home.tools, home.specs, strict=True):
        registry.add(tool, spec)
    registry.add(GetDateTimeTool())
    for tool in extra:
        if tool.name in registry:
            _LOGGER.warning("Not offering %s tool %s: the name is taken", tool.kind, tool.name)
            continue
        registry.add(tool)
    return registry
