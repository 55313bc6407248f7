"""The user's tools: custom tools, secrets and MCP servers.

Custom tools and their versions (``custom_tools``), secrets (``stored_secrets``), MCP servers
(``mcp_servers``, with ``StoredMcpServers``, the hub's reader), the agent's reader of the custom
tools (``tool_source``: ``StoredToolSource``) and the count of commits that touch these tables
(``changes``: ``TableChanges``), so the readers keep what they read until one does.
"""

from addon.store.tools import custom_tools, mcp_servers, stored_secrets
from addon.store.tools.changes import TableChanges
from addon.store.tools.custom_tools import StoredTool, ToolSummary, ToolVersion, render_definition
from addon.store.tools.mcp_servers import StoredMcpServers
from addon.store.tools.stored_secrets import withhold_secret_statements
from addon.store.tools.tool_source import StoredToolSource

__all__ = [
    "StoredMcpServers",
    "StoredTool",
    "StoredToolSource",
    "TableChanges",
    "ToolSummary",
    "ToolVersion",
    "custom_tools",
    "mcp_servers",
    "render_definition",
    "stored_secrets",
    "withhold_secret_statements",
]
