"""The tools a turn offers: the home's, GetDateTime, memory, the expert, custom, the providers'.

Built afresh for every turn (and for every tool an endpoint asks for or calls directly), since
the user's custom tools and the MCP servers' tools change without a restart; the home's own
tools come made, once per home model and revision (``HomeContext.home_tools``). The memory tools
never change, so they go before the custom tools, which do: the list stays a cacheable prefix.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from addon.agent.context import HomeContext
from addon.agent.expert import ExpertTool
from addon.agent.trace import TurnTrace
from addon.home.model.live import HomeModel
from addon.llm.client import LLMClient
from addon.tools.base import Tool
from addon.tools.home_tools import build_registry
from addon.tools.registry import ToolRegistry
from addon.tools.search_tool import SearchEntitiesTool

_LOGGER = logging.getLogger(__name__)

ToolProvider = Callable[[], Awaitable[list[Tool]]]


@dataclass(frozen=True, slots=True)
class Toolbox:
    """Where a turn's tools come from; :meth:`registry` asks each source."""

    extra_tools: Callable[[], list[Tool]]
    memory_tools: Sequence[Tool]
    expert: LLMClient | None
    custom_tools: ToolProvider | None
    providers: tuple[ToolProvider, ...]
    home_context: HomeContext

    async def registry(
        self, model: HomeModel | None, trace: TurnTrace, *, search: bool = False
    ) -> ToolRegistry:
        """The turn's registry; the expert's calls are traced into ``trace``.

        ``search`` adds ``SearchEntities`` for a home too large for the prompt's overview.
        """
        extra = [*self.extra_tools(), *self.memory_tools]
        if search:
            extra = [SearchEntitiesTool(self.home_context.index), *extra]
        if self.expert is not None:
            extra = [*extra, ExpertTool(self.expert, trace)]
        if self.custom_tools is not None:
            extra = [*extra, *await self.custom_tools()]
        for provider in self.providers:
            try:
                extra = [*extra, *await provider()]
            except Exception:  # a provider that fails costs the turn its tools, not the turn
                _LOGGER.exception("A tool provider failed; this turn goes without its tools")
        home = self.home_context.home_tools(model) if model is not None else None
        return build_registry(model, extra, home)
