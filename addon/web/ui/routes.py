"""Every page of the panel and the URL it answers at: the UI's whole map in one table.

Each route is named ``ui.<page>``; templates and redirects build URLs from the names (with the
ingress prefix, :mod:`addon.web.ui.urls`), never from these paths.
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.typedefs import Handler

from addon.web.ui import (
    automations,
    chat,
    conversations,
    evaluate,
    mcp_servers,
    memories,
    model_check,
    pages,
    safety,
    safety_people,
    saved_tests,
    tool_transfer,
    tools,
)


def _record_posts(base: str, *actions: tuple[str, Handler, str]) -> tuple[web.RouteDef, ...]:
    """The forms posted to one record's actions: ``(segment, view, name)`` at ``base/segment``."""
    return tuple(web.post(f"{base}/{segment}", view, name=name) for segment, view, name in actions)


UI_ROUTES: tuple[web.RouteDef, ...] = (
    # The dashboard
    web.get("/", pages.dashboard_view, name="ui.dashboard"),
    # Conversations and their traces
    web.get("/conversations", conversations.conversations_view, name="ui.conversations"),
    web.get(
        "/conversations/{conversation_id}", conversations.conversation_view, name="ui.conversation"
    ),
    # Chat
    web.get("/chat", chat.chat_view, name="ui.chat"),
    web.post("/chat", chat.chat_send_view, name="ui.chat_send"),
    web.post("/chat/stream", chat.chat_stream_view, name="ui.chat_stream"),
    # Settings
    web.get("/settings", pages.settings_view, name="ui.settings"),
    # Custom tools
    web.get("/tools", tools.tools_view, name="ui.tools"),
    web.get("/tools/new", tools.tool_new_view, name="ui.tool_new"),
    web.post("/tools/new", tools.tool_create_view, name="ui.tool_create"),
    web.post("/tools/import", tool_transfer.tools_import_view, name="ui.tools_import"),
    web.get("/tools/export", tool_transfer.tools_export_view, name="ui.tools_export"),
    web.post("/tools/secrets", tools.secret_set_view, name="ui.secret_set"),
    web.post("/tools/secrets/delete", tools.secret_delete_view, name="ui.secret_delete"),
    web.get("/tools/{tool_id:\\d+}", tools.tool_view, name="ui.tool"),
    web.post("/tools/{tool_id:\\d+}", tools.tool_save_view, name="ui.tool_save"),
    web.post("/tools/{tool_id:\\d+}/try", tools.tool_try_view, name="ui.tool_try"),
    web.post("/tools/{tool_id:\\d+}/enabled", tools.tool_enabled_view, name="ui.tool_enabled"),
    web.post("/tools/{tool_id:\\d+}/delete", tools.tool_delete_view, name="ui.tool_delete"),
    web.post("/tools/{tool_id:\\d+}/undelete", tools.tool_undelete_view, name="ui.tool_undelete"),
    web.post("/tools/{tool_id:\\d+}/restore", tools.tool_restore_view, name="ui.tool_restore"),
    web.get("/tools/{tool_id:\\d+}/diff", tools.tool_diff_view, name="ui.tool_diff"),
    # Evaluate
    web.get("/evaluate", evaluate.evaluate_view, name="ui.evaluate"),
    web.post("/evaluate", evaluate.evaluate_start_view, name="ui.evaluate_start"),
    web.get("/evaluate/suite", evaluate.suite_view, name="ui.evaluate_suite"),
    web.get("/evaluate/compare", evaluate.compare_view, name="ui.evaluate_compare"),
    web.get("/evaluate/runs/{run_id:\\d+}", evaluate.run_view, name="ui.evaluate_run"),
    web.get(
        "/evaluate/runs/{run_id:\\d+}/progress", evaluate.progress_view, name="ui.evaluate_progress"
    ),
    web.get(
        "/evaluate/runs/{run_id:\\d+}/tasks", evaluate.run_tasks_view, name="ui.evaluate_tasks"
    ),
    # Saved tests
    web.get("/evaluate/tests/new", saved_tests.new_test_view, name="ui.evaluate_test_new"),
    web.post("/evaluate/tests", saved_tests.save_test_view, name="ui.evaluate_test_save"),
    web.post(
        "/evaluate/tests/{task_id:\\d+}/delete",
        saved_tests.delete_test_view,
        name="ui.evaluate_test_delete",
    ),
    web.get("/evaluate/tests.yaml", saved_tests.tests_file_view, name="ui.evaluate_tests_file"),
    # Settings: check a model
    web.post("/settings/check", model_check.check_view, name="ui.model_check"),
    # Memories
    web.get("/memories", memories.memories_view, name="ui.memories"),
    web.post("/memories/new", memories.memory_add_view, name="ui.memory_add"),
    web.get("/memories/forget", memories.forget_view, name="ui.memories_forget"),
    web.post("/memories/forget", memories.forget_confirm_view, name="ui.memories_forget_confirm"),
    web.get("/memories/{memory_id:\\d+}", memories.memory_view, name="ui.memory"),
    web.post("/memories/{memory_id:\\d+}", memories.memory_save_view, name="ui.memory_save"),
    *_record_posts(
        "/memories/{memory_id:\\d+}",
        ("delete", memories.memory_delete_view, "ui.memory_delete"),
        ("restore", memories.memory_restore_view, "ui.memory_restore"),
    ),
    # MCP servers
    web.get("/mcp-servers", mcp_servers.mcp_servers_view, name="ui.mcp_servers"),
    web.post("/mcp-servers", mcp_servers.mcp_server_add_view, name="ui.mcp_server_add"),
    *_record_posts(
        "/mcp-servers/{server_id:\\d+}",
        ("tool", mcp_servers.mcp_tool_switch_view, "ui.mcp_tool_switch"),
        ("read-only", mcp_servers.mcp_tool_read_only_view, "ui.mcp_tool_read_only"),
        ("approve", mcp_servers.mcp_tool_approve_view, "ui.mcp_tool_approve"),
        ("refresh", mcp_servers.mcp_refresh_view, "ui.mcp_refresh"),
        ("delete", mcp_servers.mcp_server_delete_view, "ui.mcp_server_delete"),
    ),
    # Automations
    web.get("/automations", automations.automations_view, name="ui.automations"),
    web.get("/automations/{draft_id:\\d+}/edit", automations.edit_view, name="ui.automation_edit"),
    *_record_posts(
        "/automations/{draft_id:\\d+}",
        ("approve", automations.approve_view, "ui.automation_approve"),
        ("discard", automations.discard_view, "ui.automation_discard"),
        ("edit", automations.save_view, "ui.automation_save"),
        ("disable", automations.disable_view, "ui.automation_disable"),
        ("delete", automations.delete_view, "ui.automation_delete"),
    ),
    # Safety: the confirmation policy
    web.get("/safety", safety.safety_view, name="ui.safety"),
    web.post("/safety", safety.safety_add_view, name="ui.safety_add"),
    web.post("/safety/{entry_id:\\d+}/switch", safety.safety_switch_view, name="ui.safety_switch"),
    web.get("/safety/{entry_id:\\d+}/edit", safety.safety_edit_view, name="ui.safety_edit"),
    web.post("/safety/{entry_id:\\d+}/edit", safety.safety_save_view, name="ui.safety_save"),
    web.post("/safety/{entry_id:\\d+}/delete", safety.safety_delete_view, name="ui.safety_delete"),
    # Safety: who may do what
    web.post("/safety/rules", safety_people.rule_add_view, name="ui.safety_rule_add"),
    *_record_posts(
        "/safety/rules/{rule_id:\\d+}",
        ("switch", safety_people.rule_switch_view, "ui.safety_rule_switch"),
        ("delete", safety_people.rule_delete_view, "ui.safety_rule_delete"),
    ),
)
