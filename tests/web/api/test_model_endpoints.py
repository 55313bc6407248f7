"""The backup and the expert endpoints in the running app: /health, the dashboard, the trace."""

from __future__ import annotations

from typing import Any

from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_model_failures import closed_port_url
from tests.fixtures.app import MakeSettings
from tests.web.api.conftest import AppClient, StartApp

QUESTION = "tell me a joke"


async def converse(app: AppClient, text: str) -> dict[str, Any]:
    response = await app.post("/api/conversation", json={"text": text})
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    return body


async def test_a_failed_primary_shows_the_backup_in_health_dashboard_and_trace(
    start_app: StartApp, make_settings: MakeSettings, second_llm: ScriptedLLM
) -> None:
    """With the primary refusing, /health says calls go to the backup, and the trace shows it."""
    second_llm.reply("The backup answers.")
    app = await start_app(
        make_settings(
            llm_base_url=closed_port_url(),
            llm_model="scripted-model",
            fallback_base_url=second_llm.base_url,
        )
    )
    body = await converse(app, QUESTION)
    assert body["reply"] == "The backup answers."
    components = (await (await app.get("/health")).json())["components"]
    assert components["llm"]["status"] == "degraded"
    assert "calls go to the backup" in components["llm"]["detail"]
    assert components["llm_backup"]["status"] == "ok"
    dashboard = await (await app.get("/")).text()
    assert "Backup:" in dashboard
    page = await (await app.get(f"/conversations/{body['conversation_id']}")).text()
    assert 'class="badge backup"' in page
    assert "Answered by the backup: the primary failed" in page


async def test_health_without_a_backup_or_expert_lists_neither(
    start_app: StartApp, make_settings: MakeSettings, scripted_llm: ScriptedLLM
) -> None:
    """Endpoints that are not configured are not reported."""
    app = await start_app(make_settings(llm_base_url=scripted_llm.base_url))
    components = (await (await app.get("/health")).json())["components"]
    assert "llm_backup" not in components
    assert "llm_expert" not in components


async def test_the_expert_is_health_checked_and_nested_in_the_trace(
    start_app: StartApp,
    make_settings: MakeSettings,
    scripted_llm: ScriptedLLM,
    second_llm: ScriptedLLM,
) -> None:
    """/health checks the expert; the conversation page shows its call inside the tool call."""
    scripted_llm.tool_calls(("ask_expert", {"question": "Why?"})).reply("Because.")
    second_llm.reply("Because it is so.")
    app = await start_app(
        make_settings(
            llm_base_url=scripted_llm.base_url,
            llm_model="scripted-model",
            expert_base_url=second_llm.base_url,
        )
    )
    body = await converse(app, QUESTION)
    assert body["reply"] == "Because."
    components = (await (await app.get("/health")).json())["components"]
    assert components["llm_expert"]["status"] == "ok"
    page = await (await app.get(f"/conversations/{body['conversation_id']}")).text()
    tool = page.index('Tool <span class="mono">ask_expert</span>')
    assert page.index("Expert call 2") > tool


async def test_with_a_backup_the_primary_is_not_retried_first(
    start_app: StartApp,
    make_settings: MakeSettings,
    scripted_llm: ScriptedLLM,
    second_llm: ScriptedLLM,
) -> None:
    """A 429 from the primary goes to the backup at once, not after the client's own retries."""
    scripted_llm.error(429, headers={"retry-after-ms": "1"})
    second_llm.reply("The backup answers.")
    app = await start_app(
        make_settings(
            llm_base_url=scripted_llm.base_url,
            llm_model="scripted-model",
            fallback_base_url=second_llm.base_url,
        )
    )
    body = await converse(app, QUESTION)
    assert body["reply"] == "The backup answers."
    assert len(scripted_llm.chat_requests) == 1
