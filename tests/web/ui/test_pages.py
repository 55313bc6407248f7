"""Every page renders, links only inside the UI's prefix, and looks after itself without script."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from pydantic import SecretStr

from addon import keys
from addon.config.settings import Settings
from addon.web.ui.security import CONTENT_SECURITY_POLICY
from tests.web.ui.conftest import PREFIX, UI
from tests.web.ui.html import misplaced_urls, parse
from tests.web.ui.seed import seed_trace, seed_turn

PAGES = ["/", "/?span=month", "/conversations", "/chat", "/settings", "/tools", "/tools/new"]
PAGES += ["/memories", "/memories?deleted=1&kind=fact&expiring=1", "/memories/forget"]


@pytest.fixture
async def seeded(ui: UI) -> tuple[str, int]:
    """One traced model turn and one failure, so every page has something to show."""
    conversation_id, turn_id = await seed_trace(ui.store, at=datetime.now(UTC))
    await seed_turn(
        ui.store,
        "failed-0001",
        "what is the weather on mars",
        "Sorry, I could not reach the model.",
        at=datetime.now(UTC),
        handled_by="failed",
        error="model endpoint timed out",
        flagged=True,
    )
    return conversation_id, turn_id


def all_pages(conversation_id: str) -> list[str]:
    return [
        *PAGES,
        "/conversations?q=kitchen&source=wyoming&handled_by=llm&since=2020-01-01",
        f"/conversations/{conversation_id}",
        f"/chat?conversation={conversation_id}",
    ]


@pytest.mark.urls
async def test_every_link_stays_under_the_prefix(ui: UI, seeded: tuple[str, int]) -> None:
    """Every href, src, form action and stream URL on every page starts with the prefix."""
    for path in all_pages(seeded[0]):
        html = await ui.page(path)
        assert misplaced_urls(html, ui.prefix) == [], path


@pytest.mark.urls
async def test_links_resolve(ui: UI, seeded: tuple[str, int]) -> None:
    """Every link and asset a page points at under the prefix answers 200."""
    checked: set[str] = set()
    for path in all_pages(seeded[0]):
        for reference in parse(await ui.page(path)).references:
            url = reference.url
            if not url.startswith(ui.prefix + "/") or reference.tag == "form" or url in checked:
                continue
            checked.add(url)
            target = url.removeprefix(ui.prefix).split("#")[0]
            response = await ui.get(target)
            assert response.status == 200, f"{url} on {path}: {response.status}"
    assert any("/static/app.css" in url for url in checked)


async def test_pages_carry_no_inline_script_or_style(ui: UI, seeded: tuple[str, int]) -> None:
    """No inline script, style element, style attribute or event handler anywhere (strict CSP)."""
    for path in all_pages(seeded[0]):
        page = parse(await ui.page(path))
        assert (page.inline_scripts, page.style_elements, page.inline_attributes) == (0, 0, []), (
            path
        )


async def test_pages_send_the_security_headers(ui: UI) -> None:
    """Pages and assets carry the CSP, nosniff, a referrer policy and no caching of pages."""
    for path in ["/", "/static/app.css", "/conversations/unknown"]:
        response = await ui.get(path)
        assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "no-referrer"
    page = await ui.get("/")
    assert page.headers["Cache-Control"] == "no-store"


async def test_csp_forbids_inline_code_and_foreign_framing(ui: UI) -> None:
    """The policy allows only this origin for scripts, styles and framing."""
    response = await ui.get("/")
    policy = dict(
        directive.strip().split(" ", 1)
        for directive in response.headers["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'self'"
    assert policy["default-src"] == "'self'"


@pytest.mark.urls
async def test_nav_links_every_section(ui: UI) -> None:
    """Every section, Memories included, is a link in the nav; none is a disabled stub."""
    html = await ui.page("/")
    assert "tab disabled" not in html
    for section in ("Dashboard", "Conversations", "Chat", "Custom tools", "Memories", "Settings"):
        assert f">{section}</a>" in html


@pytest.mark.urls
async def test_nav_marks_the_current_page(ui: UI) -> None:
    """The tab of the page being shown is marked current."""
    html = await ui.page("/conversations")
    assert f'href="{ui.prefix}/conversations" aria-current="page"' in html


@pytest.mark.urls
async def test_dashboard_shows_links_and_activity(ui: UI, seeded: tuple[str, int]) -> None:
    """Home Assistant and model status, today's conversations, answer share, failures, flags."""
    page = parse(await ui.page("/"))
    text = page.text
    assert "Home Assistant connected" in text
    assert "Model ok" in text
    assert "Conversations today 2" in text
    assert "Model 50% (1)" in text
    assert "Failed 50% (1)" in text
    assert "what is the weather on mars" in text
    assert "the reply claims an action but no tool acted" in text


async def test_dashboard_plots_are_inline_svg(ui: UI, seeded: tuple[str, int]) -> None:
    """Latency and token plots are SVG drawn on the server, with a point per active hour."""
    html = await ui.page("/")
    assert html.count('<figure class="plot">') == 2
    assert '<path class="line p50" d="M' in html
    assert '<rect class="bar"' in html


async def test_dashboard_plots_say_when_there_is_nothing(ui: UI) -> None:
    """With no turns the plots say so instead of drawing empty axes."""
    html = await ui.page("/?span=month")
    assert html.count("No turns in this period") == 2


async def test_dashboard_refuses_an_unknown_span(ui: UI) -> None:
    """A span other than day or month is a 400 page, not an error."""
    response = await ui.get("/?span=year")
    assert response.status == 400
    assert "use &#39;day&#39; or &#39;month&#39;" in await response.text()


async def test_settings_shows_the_configuration_without_secrets(
    ui: UI, ui_settings: Settings
) -> None:
    """Options are listed with secrets masked; no token or key appears anywhere in the page."""
    html = await ui.page("/settings")
    text = parse(html).text
    assert "llm_model scripted-model" in text
    assert "llm_api_key ********" in text
    for secret in (
        ui_settings.options.llm_api_key.get_secret_value(),
        ui_settings.options.api_token.get_secret_value(),
        ui_settings.ha_token.get_secret_value(),
    ):
        assert secret not in html


async def test_settings_masks_credentials_in_urls(
    start_ui: object, make_settings: object, ui_settings: Settings
) -> None:
    """A user:password pasted into llm_base_url is shown masked."""
    options = ui_settings.options.model_copy(
        update={"llm_base_url": "https://alice:hunter2@llm.example/v1"}
    )
    settings = ui_settings.model_copy(update={"options": options})
    started: UI = await start_ui(settings, PREFIX)  # type: ignore[operator]
    html = await started.page("/settings")
    assert "hunter2" not in html
    assert "https://********@llm.example/v1" in html


async def test_settings_lists_what_the_agent_sees(ui: UI) -> None:
    """The exposed entities with their count and the prompt's estimated token size."""
    html = await ui.page("/settings")
    text = parse(html).text
    assert re.search(r"Exposed entities \(44\)", text)
    assert re.search(r"44 entities exposed to Assist", text)
    overview = re.search(r"≈ ([\d,]+) tokens of entity overview", text)
    assert overview is not None
    assert int(overview.group(1).replace(",", "")) > 100
    assert "Kitchen Lights" in text


async def test_settings_shows_the_size_of_the_agents_own_prompt(ui: UI) -> None:
    """The prompt size shown is that of the system prompt the agent itself would send."""
    preview = ui.client.app[keys.AGENT].prompt_preview()
    text = parse(await ui.page("/settings")).text
    shown = re.search(r"≈ ([\d,]+) tokens of system prompt", text)
    assert shown is not None
    assert int(shown.group(1).replace(",", "")) == -(-len(preview.system_prompt) // 4)


@pytest.mark.urls
async def test_settings_links_each_option_to_the_docs(ui: UI) -> None:
    """Options link to their paragraph of the documentation, in a new tab."""
    html = await ui.page("/settings")
    assert (
        'href="https://github.com/home-agent/home-agent-addon/blob/main/DOCS.md#option-dry_run"'
        in html
    )


async def test_unknown_conversation_is_a_404_page(ui: UI) -> None:
    """An unknown conversation id answers a 404 page in the UI's frame."""
    response = await ui.get("/conversations/does-not-exist")
    html = await response.text()
    assert response.status == 404
    assert response.content_type == "text/html"
    assert misplaced_urls(html, ui.prefix) == []


async def test_static_name_too_long_for_the_filesystem_is_a_404(ingress_ui: UI) -> None:
    """A file name longer than the filesystem allows is simply not there, not a 500."""
    response = await ingress_ui.get("/static/" + "a" * 300)
    assert response.status == 404
    assert response.content_type == "text/html"


async def test_malformed_ingress_header_is_ignored(ingress_ui: UI) -> None:
    """A prefix that is not a plain path never reaches the page."""
    response = await ingress_ui.client.get(
        "/", headers={"X-Ingress-Path": '/x"><script>alert(1)</script>'}
    )
    html = await response.text()
    assert "alert(1)" not in html
    assert misplaced_urls(html, "") == []


async def test_forged_prefix_on_the_direct_port_is_ignored(
    start_ui: object, ui_settings: Settings
) -> None:
    """A token caller on the direct port cannot choose the prefix links are built with."""
    token = "admin-token-secret-0123456789"
    options = ui_settings.options.model_copy(update={"admin_token": SecretStr(token)})
    direct = ui_settings.model_copy(
        update={"trusted_proxies": ("172.30.32.2",), "options": options}
    )
    started: UI = await start_ui(direct, "/forged")  # type: ignore[operator]
    response = await started.client.get(
        "/", headers={"X-Ingress-Path": "/forged", "Authorization": f"Bearer {token}"}
    )
    html = await response.text()
    assert response.status == 200
    assert "/forged" not in html
    assert misplaced_urls(html, "") == []


async def seed_evaluation(ui: UI, at: datetime) -> None:
    """Two evaluation tasks' turns, one failed and flagged, as a run on the Evaluate page leaves."""
    await seed_turn(ui.store, "evaluation-1", "turn on the lamp", "Done.", at=at, source="eval")
    await seed_turn(
        ui.store,
        "evaluation-2",
        "what is the weather on venus",
        "Sorry, I could not reach the model.",
        at=at,
        source="eval",
        handled_by="failed",
        error="model endpoint timed out",
        flagged=True,
    )


async def test_dashboard_figures_leave_evaluation_out(ingress_ui: UI) -> None:
    """Evaluation turns count in no figure and are listed in no failure or flag."""
    now = datetime.now(UTC)
    await seed_turn(ingress_ui.store, "said-at-home", "turn on the lamp", "Done.", at=now)
    await seed_evaluation(ingress_ui, now)
    text = parse(await ingress_ui.page("/")).text
    assert "Conversations today 1" in text
    assert "Model 100% (1)" in text
    assert "Failed 0% (0)" in text
    assert "what is the weather on venus" not in text


async def test_dashboard_plots_leave_evaluation_out(ingress_ui: UI) -> None:
    """With only evaluation turns, the latency and token plots have nothing to draw."""
    await seed_evaluation(ingress_ui, datetime.now(UTC))
    html = await ingress_ui.page("/")
    assert html.count("No turns in this period") == 2


async def test_every_page_names_the_time_zone_of_its_times(ui: UI) -> None:
    """Each page says its times are in the home's zone, by the zone's name."""
    text = parse(await ui.page("/conversations")).text
    said = re.search(r"Times are in the home's time zone, ([\w/+-]+)\.", text)
    assert said is not None
    assert said.group(1) not in ("", "None")
