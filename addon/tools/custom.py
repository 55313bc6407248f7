"""Custom tools as registry tools: the user's definitions, offered to the model every turn.

:class:`CustomToolProvider` reads the enabled definitions and the secrets from its source on each
turn (so an enabled tool joins the next turn without a restart), parses them once per distinct
definition, and returns tools sorted by name whose parameters are key-sorted: the tool list
stays byte-identical between turns and edits of other tools, so a server's prompt cache holds.
Each call runs through :class:`~addon.custom_tools.runner.Runner`; the trace and events get the
rendered request and response with secrets masked, and an action's entities feed the outcome
check.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from addon.custom_tools.definition import ToolDefinition, parse_definition
from addon.custom_tools.runner import Runner
from addon.custom_tools.source import CustomToolSource
from addon.custom_tools.trial import Trial, TrialRun
from addon.errors import CustomToolInvalid
from addon.home.actions.confirmation import Holds
from addon.home.actions.gate import Decision
from addon.text import JsonObject, JsonValue
from addon.tools.base import ActedTarget, Tool, ToolContext, ToolReply
from addon.tools.registry import ToolRegistry

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CustomTool:
    """One user-defined tool for one turn (the turn's secrets included)."""

    definition: ToolDefinition
    runner: Runner
    secrets: Mapping[str, str]
    schema: JsonObject

    @property
    def name(self) -> str:
        """The definition's name."""
        return self.definition.name

    @property
    def description(self) -> str:
        """The definition's description."""
        return self.definition.description

    @property
    def parameters(self) -> JsonObject:
        """The definition's JSON Schema, keys sorted so its bytes never vary."""
        return self.schema

    @property
    def kind(self) -> str:
        """Custom tools run their own requests: traces show ``custom``."""
        return "custom"

    async def call(self, arguments: JsonObject, context: ToolContext) -> ToolReply:
        """Run the definition; a dry-run turn records an acting request without sending it."""
        run = await self.runner.run(
            self.definition,
            arguments,
            dry_run=context.dry_run,
            secrets=self.secrets,
            gate=context.gate,
        )
        return ToolReply(
            result=run.for_model(),
            error=run.error,
            detail=run.as_dict(),
            acted=tuple(ActedTarget(target.action, target.entity_id) for target in run.acted),
        )


def canonical(value: JsonObject) -> JsonObject:
    """``value`` with every mapping's keys sorted (a fresh copy)."""
    loaded: JsonObject = json.loads(json.dumps(value, sort_keys=True, ensure_ascii=False))
    return loaded


class CustomToolProvider:
    """The enabled custom tools for a turn, as the agent asks for them before each model call."""

    def __init__(self, source: CustomToolSource, runner: Runner, reserved: Collection[str]) -> None:
        self._source = source
        self._runner = runner
        self._reserved = frozenset(reserved)
        self._parsed: dict[str, tuple[ToolDefinition, JsonObject] | None] = {}

    async def __call__(self) -> list[Tool]:
        """Tools sorted by name; a definition that no longer parses is skipped with a warning.

        A source that fails (the database is away) costs the turn its custom tools, not the
        turn itself.
        """
        try:
            mappings = await self._source.enabled()
            secrets = await self._source.secrets() if mappings else {}
        except Exception:  # the turn goes on with the built-in tools
            _LOGGER.exception("Could not read the custom tools; this turn goes without them")
            return []
        parsed: dict[str, tuple[ToolDefinition, JsonObject] | None] = {}
        tools: dict[str, Tool] = {}
        for mapping in mappings:
            key = json.dumps(mapping, sort_keys=True, default=str)
            entry = self._parsed[key] if key in self._parsed else self._parse(mapping)
            parsed[key] = entry
            if entry is None:
                continue
            definition, schema = entry
            if definition.name in tools:
                _LOGGER.warning("Two enabled custom tools are named %s; using one", definition.name)
                continue
            tools[definition.name] = CustomTool(definition, self._runner, secrets, schema)
        # Only what is current stays cached: edits do not grow it without bound.
        self._parsed = parsed
        return [tools[name] for name in sorted(tools)]

    async def trial(
        self,
        definition: Mapping[str, JsonValue],
        arguments: Mapping[str, JsonValue] | str,
        *,
        dry_run: bool,
        holds: Holds | None,
    ) -> Trial:
        """Run ``definition`` once through a registry of its own, exactly as the model would.

        The arguments go through the registry's repair and validation; the definition need not
        be saved or enabled. Raises CustomToolInvalid when it does not parse. Everything in the
        answer is masked again, arguments and errors included, in case one repeats a secret.
        ``holds`` is the confirmation policy a turn would have (the agent's
        :meth:`~addon.agent.service.Agent.holds`): a call it covers is held, reported in
        :attr:`Trial.held` and dropped with ``holds``, so nothing can ever confirm it.
        """
        parsed = parse_definition(definition, reserved=self._reserved)
        secrets = await self._source.secrets()
        tool = CustomTool(parsed, self._runner, secrets, canonical(parsed.parameters))
        raw = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
        context = ToolContext(
            home=None,
            executor=None,
            language="en",
            now=datetime.now(UTC),
            dry_run=dry_run,
            holds=holds,
        )
        outcome = await ToolRegistry([tool]).execute(tool.name, raw, context)
        mask = self._runner.mask(secrets)
        return Trial(
            name=tool.name,
            arguments=mask.value(outcome.arguments),
            repaired=outcome.repaired,
            result=mask.value(outcome.result.for_model()),
            error=mask.text(outcome.error) if outcome.error is not None else None,
            duration_ms=outcome.duration_ms,
            dry_run=dry_run,
            run=TrialRun.of(mask.value(outcome.detail)) if outcome.detail is not None else None,
            held=tuple(
                Decision(d.verdict, d.subject, d.rule, mask.text(d.reason))
                for d in outcome.decisions
                if d.verdict == "confirm"
            ),
        )

    def _parse(self, mapping: Mapping[str, JsonValue]) -> tuple[ToolDefinition, JsonObject] | None:
        try:
            definition = parse_definition(mapping, reserved=self._reserved)
        except CustomToolInvalid as err:
            _LOGGER.warning("Skipping custom tool %r: %s", mapping.get("name"), err)
            return None
        return definition, canonical(definition.parameters)
