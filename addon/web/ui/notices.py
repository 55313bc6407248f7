"""The one line a panel page shows after a change: its redirect names the change, the page says it.

Every change in the panel is a form POST answered with a redirect (post/redirect/get, so a reload
does not send it again), and the redirect carries only a key, ``?done=<key>``. The page it lands on
shows the sentence its table has for the key: a crafted link can show only the panel's own words,
and an unknown key shows nothing. The tables are here together, one a page, so the panel's words
are read, and changed, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

DONE = "done"
"""The query parameter a change's redirect names the change in."""

AUTOMATIONS: Mapping[str, str] = {
    "approved": "Approved: the automation is in Home Assistant now.",
    "discarded": "Draft discarded.",
    "edited": "Draft changed: checked again by the gate and Home Assistant.",
    "disabled": "Automation switched off in Home Assistant.",
    "deleted": "Automation deleted from Home Assistant.",
}
"""The Automations page (:mod:`.automations`): a draft approved, discarded or edited, an automation
switched off or deleted."""

MCP_SERVERS: Mapping[str, str] = {
    "added": "Server added.",
    "refreshed": "Tools listed again.",
    "enabled": "Switched on: the model gets it from its next turn.",
    "disabled": "Switched off: the model no longer gets it.",
    "deleted": "Server removed.",
    "approved": "Change approved: the model gets the tool as it is now.",
    "read_only": "Marked read-only: it runs in a dry run too.",
    "acting": "Marked as acting: a dry run holds its calls.",
}
"""The MCP servers page (:mod:`.mcp_servers`): a server added, listed again or removed, a tool
switched, approved or marked."""

MEMORIES: Mapping[str, str] = {
    "added": "Memory added.",
    "saved": "Saved.",
    "deleted": "Deleted: recall no longer uses it. Restore brings it back.",
    "restored": "Restored: recall uses it again.",
    "forgotten": "Every memory is forgotten.",
}
"""The Memories pages (:mod:`.memories`), the list and one memory's."""

SAFETY: Mapping[str, str] = {
    "added": "Entry added: it holds from the next turn on.",
    "enabled": "Switched on: covered actions ask first.",
    "disabled": "Switched off: covered actions no longer ask.",
    "edited": "Entry changed: it holds from the next turn on.",
    "deleted": "Entry deleted.",
    "rule_added": "Rule added: it applies from the next turn on.",
    "rule_enabled": "Rule switched on.",
    "rule_disabled": "Rule switched off.",
    "rule_deleted": "Rule deleted.",
}
"""The Safety page: its confirmation entries (:mod:`.safety`) and its rules per person and
satellite (:mod:`.safety_people`), which share the page."""

TOOLS: Mapping[str, str] = {
    "created": "Tool created.",
    "saved": "Saved as a new version.",
    "restored": "Restored as a new version.",
    "enabled": "Enabled: the model gets it from its next turn.",
    "disabled": "Disabled: the model no longer gets it.",
    "deleted": "Deleted. Restore brings it back.",
    "undeleted": "Restored from the deleted tools.",
    "secret_set": "Secret saved.",
    "secret_deleted": "Secret deleted.",
}
"""The Custom tools pages (:mod:`.tools`), the list with its secrets and one tool's."""


def notice(request: web.Request, texts: Mapping[str, str]) -> str:
    """The sentence ``texts`` has for the request's ``?done=`` key; empty when it has none."""
    return texts.get(request.query.get(DONE, ""), "")
