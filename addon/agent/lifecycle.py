"""The agent as an app resource, wired from the resources before it in ``addon/app.py``.

The store, the Home Assistant link, the model, memory, the custom tools and the MCP hub are
each built and closed by their own package's ``lifecycle.py``; the agent takes them from the
app's keys. The panel's "Try it" of a custom tool (``keys.CUSTOM_TOOL_TRY``) is wired here, so a
try runs under the confirmation policy a turn would, never performing what a turn would hold.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Protocol

from aiohttp import web

from addon import keys
from addon.agent.automations import AutomationDrafts, draft_tools
from addon.agent.events import EventOutbox
from addon.agent.service import Agent
from addon.custom_tools.trial import Trial, TryTool
from addon.ha.automations import HomeAssistantAutomations
from addon.home.actions.confirmation import ConfirmationPolicy
from addon.home.actions.gate import Gate
from addon.home.actions.live import LiveExecutor
from addon.home.actions.permissions import ActorRules
from addon.local.matcher import LocalMatcher
from addon.store.automations import DraftRecords
from addon.store.policy import PolicyRecords, RuleRecords
from addon.store.turns import ConversationRecords
from addon.text import JsonValue
from addon.tools.custom import CustomToolProvider


async def agent_ctx(app: web.Application) -> AsyncIterator[None]:
    """Build the agent; compile the local sentence templates off the start-up path."""
    options = app[keys.SETTINGS].options
    client = app[keys.HA_CLIENT]
    # Built with local-first off too: a failed call of the model's is said in Home Assistant's
    # words, which its sentences hold (addon.agent.truth); loaded on the first such failure.
    local = LocalMatcher(options.language, library=app[keys.SENTENCES])
    agent = Agent(
        options=options,
        records=ConversationRecords(app[keys.STORE]),
        home=app[keys.HOME_SYNC],
        live_executor=LiveExecutor(client),
        llm=app[keys.LLM],
        fallback=app[keys.LLM_FALLBACK],
        expert=app[keys.LLM_EXPERT],
        local=local,
        events=client,
        custom_tools=app[keys.CUSTOM_TOOLS],
        memory=app.get(keys.MEMORY),
        embedder=app[keys.EMBEDDINGS],
        tool_providers=(app[keys.MCP_HUB].tools,),
        confirmation=compiled_policy(app[keys.CONFIRMATION_POLICY]),
        actor_rules=compiled_rules(app[keys.ACTOR_RULES]),
    )
    app[keys.AGENT] = agent
    app[keys.CUSTOM_TOOL_TRY] = policed_trial(app[keys.CUSTOM_TOOLS], agent)
    drafts = AutomationDrafts(
        DraftRecords(app[keys.STORE].sessionmaker),
        HomeAssistantAutomations(client),
        EventOutbox(client),
        gate_now(agent),
    )
    app[keys.AUTOMATIONS] = drafts
    # The draft tool joins every turn's tools (the model's, and the MCP server's through them).
    agent.extra_tools = draft_tools(drafts)
    warm_up: asyncio.Task[bool] | None = None
    if options.local_first:
        # About 100 ms of template compilation that would otherwise land on the first command.
        warm_up = asyncio.create_task(asyncio.to_thread(local.prepare))
    try:
        yield
    finally:
        if warm_up is not None and not warm_up.done():
            warm_up.cancel()
        await agent.drain(cancel=True)
        await drafts.drain()


def policed_trial(provider: CustomToolProvider, agent: Agent) -> TryTool:
    """The custom tools' "Try it" under the policy a turn starting now would have.

    Without it a try of a tool that unlocks the door would unlock it: only the policy's holds
    keep a covered call from being sent, and a try has no turn to hold it for. Held, it is
    reported and dropped; nothing can confirm it.
    """

    async def trial(
        definition: Mapping[str, JsonValue],
        arguments: Mapping[str, JsonValue] | str,
        *,
        dry_run: bool,
    ) -> Trial:
        holds = await agent.holds()
        return await provider.trial(definition, arguments, dry_run=dry_run, holds=holds)

    return trial


def gate_now(agent: Agent) -> Callable[[], Awaitable[Gate | None]]:
    """The gate a turn starting now would judge an edited draft with (None: no home yet)."""

    async def gate() -> Gate | None:
        home = await agent.home.fresh()
        if home is None:
            return None
        return Gate(False, home.is_exposed, holds=await agent.holds())

    return gate


def compiled_policy(records: PolicyRecords) -> Callable[[], ConfirmationPolicy]:
    """The policy as turns check it, compiled again only when its rows changed."""
    return _compiled(records, lambda: ConfirmationPolicy.of_rows(records.entries))


def compiled_rules(records: RuleRecords) -> Callable[[], ActorRules]:
    """The persons' and satellites' rules as turns check them, compiled once per change."""
    return _compiled(records, lambda: ActorRules.of_rows(records.rules))


class _Versioned(Protocol):
    """Rows kept in memory whose ``version`` moves with every load."""

    @property
    def version(self) -> int:
        """Equal to an earlier answer while the rows are the same."""
        ...


def _compiled[C](records: _Versioned, compile_rows: Callable[[], C]) -> Callable[[], C]:
    """What ``compile_rows`` makes of the records, made again only when their version moved.

    A turn pays for reading the version and comparing it; compiling waits for a change.
    """
    compiled: list[tuple[int, C]] = []

    def current() -> C:
        if not compiled or compiled[0][0] != records.version:
            compiled[:] = [(records.version, compile_rows())]
        return compiled[0][1]

    return current
