"""Typed keys for everything the application holds, declared in one place.

Handlers read collaborators from ``request.app[KEY]`` instead of module globals. This module
holds only the keys: :mod:`addon.app` sets the plain values, and each resource's
``lifecycle.py`` sets the keys of what it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from aiohttp import web

from addon.text import JsonValue

if TYPE_CHECKING:
    from addon.agent.automations import AutomationDrafts
    from addon.agent.service import Agent
    from addon.config.settings import Settings
    from addon.custom_tools.runner import Runner
    from addon.custom_tools.source import CustomToolSource
    from addon.custom_tools.trial import TryTool
    from addon.embeddings.source import EmbeddingSource
    from addon.eval.service import Evaluations
    from addon.ha.client import HomeAssistantClient
    from addon.ha.home_sync import HomeSync
    from addon.health import HealthRegistry
    from addon.llm.client import LLMClient
    from addon.llm.fallback import Fallback
    from addon.local.library import SentenceLibrary
    from addon.mcp_client.hub import McpHub
    from addon.memory.records import MemoryChanges
    from addon.memory.service import MemoryService
    from addon.store.database import Store
    from addon.store.policy import PolicyRecords, RuleRecords
    from addon.tools.custom import CustomToolProvider
    from addon.wyoming.server import WyomingServer

SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
STORE: web.AppKey[Store] = web.AppKey("store")
HEALTH: web.AppKey[HealthRegistry] = web.AppKey("health")
LLM: web.AppKey[LLMClient | None] = web.AppKey("llm")
LLM_FALLBACK: web.AppKey[Fallback | None] = web.AppKey("llm_fallback")
"""The backup endpoint and the primary's down-memory, when a backup is configured."""
LLM_EXPERT: web.AppKey[LLMClient | None] = web.AppKey("llm_expert")
"""The expert model the agent may ask through a tool, when one is configured."""
HA_CLIENT: web.AppKey[HomeAssistantClient] = web.AppKey("ha_client")
HOME_SYNC: web.AppKey[HomeSync] = web.AppKey("home_sync")
AGENT: web.AppKey[Agent] = web.AppKey("agent")
AUTOMATIONS: web.AppKey[AutomationDrafts] = web.AppKey("automations")
"""Drafted automations: kept, approved into Home Assistant, discarded, deleted (the page's)."""
WYOMING: web.AppKey[WyomingServer] = web.AppKey("wyoming")
EVALUATIONS: web.AppKey[Evaluations] = web.AppKey("evaluations")
"""Starts evaluation runs in the background (the Evaluate page)."""
CUSTOM_TOOL_SOURCE: web.AppKey[CustomToolSource] = web.AppKey("custom_tool_source")
"""Enabled custom tools and secrets, as the store keeps them."""
CUSTOM_TOOL_RUNNER: web.AppKey[Runner] = web.AppKey("custom_tool_runner")
"""Runs custom tools: for the agent's turns and for trying a tool in the panel."""
CUSTOM_TOOL_TRY: web.AppKey[TryTool] = web.AppKey("custom_tool_try")
"""Tries a definition once as the model would call it (the panel's "Try it")."""
CUSTOM_TOOLS: web.AppKey[CustomToolProvider] = web.AppKey("custom_tools")
"""The enabled custom tools as the agent's turns offer them."""
# The definition parser custom tools are checked with before they are stored (set by the app;
# the store's own checks alone when absent).
CUSTOM_TOOL_VALIDATOR: web.AppKey[Callable[[Mapping[str, JsonValue]], None]] = web.AppKey(
    "custom_tool_validator"
)
EMBEDDINGS: web.AppKey[EmbeddingSource | None] = web.AppKey("embeddings")
"""The embedding source memory recall and a large home's selection share; None when off."""
SENTENCES: web.AppKey[SentenceLibrary] = web.AppKey("sentences")
"""Parsed sentence sets, shared by the agent's matcher and evaluation runs' matchers."""


MCP_HUB: web.AppKey[McpHub] = web.AppKey("mcp_hub")
"""The MCP servers the user added, their tools and state."""
CONFIRMATION_POLICY: web.AppKey[PolicyRecords] = web.AppKey("confirmation_policy")
"""The confirmation policy's rows (the Safety page edits them)."""
ACTOR_RULES: web.AppKey[RuleRecords] = web.AppKey("actor_rules")
"""The rules per person and per satellite (the Safety page edits them)."""
CSRF_KEY: web.AppKey[bytes] = web.AppKey("csrf_key")
"""The install's secret key the panel's CSRF tokens are signed with (kept under the data dir)."""


MEMORY: web.AppKey[MemoryService] = web.AppKey("memory")
"""Long-term memory, for the agent's turns; absent when memory is off."""
MEMORY_CHANGES: web.AppKey[MemoryChanges] = web.AppKey("memory_changes")
"""The memory service, told of the panel's edits; absent when memory is off."""
