"""The Custom tools pages: list, editor with problems at their lines, try it, versions, import."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from aiohttp import web

from addon.store.tools import custom_tools as stored
from tests.web.api.test_tools import EOC
from tests.web.ui.conftest import UI
from tests.web.ui.html import misplaced_urls, parse

SECRET = "sEcReT-value-never-shown-0123"

ECHO_TOOL = """\
name: echo_city
description: Echo a city through a local endpoint.
parameters:
  type: object
  properties:
    city: {type: string, description: City name}
    days: {type: integer}
    units: {type: string, enum: [metric, imperial]}
  required: [city]
kind: rest
timeout: 5
rest:
  method: GET
  url: "URL/echo/{{ city }}"
  headers: {Authorization: "Bearer {{ secrets.api_key }}"}
  result: {pointer: /city}
"""


@pytest.fixture
async def echo_server(aiohttp_server: Any) -> Any:
    """A local endpoint answering JSON with what it was asked and the auth header it got."""

    async def echo(request: web.Request) -> web.Response:
        return web.json_response(
            {"city": request.match_info["city"], "auth": request.headers.get("Authorization")}
        )

    app = web.Application()
    app.router.add_get("/echo/{city}", echo)
    return await aiohttp_server(app)


def echo_source(server: Any) -> str:
    return ECHO_TOOL.replace("URL", str(server.make_url("")).rstrip("/"))


def post(ui: UI, path: str, data: dict[str, str]) -> Any:
    """POST a form with the test token only (pages fetched before set a cookie of their own)."""
    ui.client.session.cookie_jar.clear()
    return ui.post(path, data)


async def create(ui: UI, source: str) -> int:
    """Create a tool through the editor form; return its id."""
    response = await post(ui, "/tools/new", {"source": source})
    assert response.status == 303, await response.text()
    match = re.search(r"/tools/(\d+)\?", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


@pytest.mark.urls
async def test_list_links_to_each_tool(ui: UI, echo_server: Any) -> None:
    """The list shows the tool's name, kind and state, linked under the prefix."""
    tool_id = await create(ui, echo_source(echo_server))
    html = await ui.page("/tools")
    page = parse(html)
    assert "echo_city" in page.text
    assert "rest" in page.text
    assert f"{ui.prefix}/tools/{tool_id}" in [ref.url for ref in page.references]
    assert misplaced_urls(html, ui.prefix) == []


async def test_invalid_definition_shows_problem_at_its_line(ui: UI) -> None:
    """A refused save comes back 422 with every problem, each at the line of its own key."""
    source = (
        "name: bad tool\ndescription: x\nparameters:\n  type: object\n"
        "  properties: {city: {type: town}}\nkind: rest\nrest:\n  url: ftp://x\n"
    )
    response = await post(ui, "/tools/new", {"source": source})
    assert response.status == 422
    html = await response.text()
    assert re.search(r'<li data-line="8">[^\n]*the URL must start with http', html)
    assert re.search(r'<li data-line="1">[^\n]*>name<[^\n]*a name starts with a letter', html)
    assert re.search(r'<li data-line="5">[^\n]*not a valid JSON Schema', html)


async def test_yaml_syntax_error_names_its_line(ui: UI) -> None:
    """Text that is not YAML is refused with the line the parser stopped at."""
    response = await post(ui, "/tools/new", {"source": "name: x\nkind: [rest\ndescription: y\n"})
    assert response.status == 422
    assert "not valid YAML or JSON" in parse(await response.text()).text


async def set_secret(ui: UI) -> None:
    response = await post(ui, "/tools/secrets", {"name": "api_key", "value": SECRET})
    assert response.status == 303


async def test_try_runs_for_real_and_masks_the_secret(ui: UI, echo_server: Any) -> None:
    """Trying a rest tool shows its request, response, result and duration, the secret masked."""
    await set_secret(ui)
    tool_id = await create(ui, echo_source(echo_server))
    response = await post(ui, f"/tools/{tool_id}/try", {"arg.city": "Paris", "arg.days": "2"})
    html = await response.text()
    assert response.status == 200, html
    page = parse(html)
    assert '"result": "Paris"' in page.text
    assert "/echo/Paris" in page.text
    assert "Bearer ••••••" in page.text
    assert "200" in page.text
    assert " ms" in page.text
    assert SECRET not in html


async def test_try_checks_the_arguments(ui: UI, echo_server: Any) -> None:
    """A missing required argument or a wrong type is refused before anything runs."""
    tool_id = await create(ui, echo_source(echo_server))
    response = await post(ui, f"/tools/{tool_id}/try", {"arg.days": "two"})
    assert response.status == 422
    assert "days: not a whole number" in parse(await response.text()).text


async def test_try_is_dry_when_the_option_says_so(
    start_ui: Any, ui_settings: Any, echo_server: Any
) -> None:
    """With the add-on's dry_run option on, an acting tool's request is rendered, not sent."""
    options = ui_settings.options.model_copy(update={"dry_run": True})
    ui = await start_ui(ui_settings.model_copy(update={"options": options}), "")
    await set_secret(ui)
    source = echo_source(echo_server).replace("method: GET", "method: POST")
    tool_id = await create(ui, source)
    response = await post(ui, f"/tools/{tool_id}/try", {"arg.city": "Rome"})
    page = parse(await response.text())
    assert "request not sent" in page.text
    assert '"dry_run": true' in page.text


async def test_a_reading_try_in_a_dry_run_is_labelled_sent(
    start_ui: Any, ui_settings: Any, echo_server: Any
) -> None:
    """A GET tried in a dry run really is sent: it says so, with no "dry run" badge."""
    options = ui_settings.options.model_copy(update={"dry_run": True})
    ui = await start_ui(ui_settings.model_copy(update={"options": options}), "")
    await set_secret(ui)
    tool_id = await create(ui, echo_source(echo_server))
    html = await (await post(ui, f"/tools/{tool_id}/try", {"arg.city": "Rome"})).text()
    assert 'id="try-sent"' in html
    assert 'id="try-dry-run"' not in html
    assert "request not sent" not in parse(html).text


async def test_changed_field_wins_over_the_text(ui: UI, echo_server: Any) -> None:
    """A common field changed in the form overrides the same key in the definition's text."""
    tool_id = await create(ui, echo_source(echo_server))
    html = await ui.page(f"/tools/{tool_id}")
    source = echo_source(echo_server)
    fields = {"name": "echo_city", "description": "Echo a city through a local endpoint.",
              "kind": "rest", "timeout": "5", "enabled": "on"}  # fmt: skip
    form = {"source": source, **fields, **{f"original.{k}": v for k, v in fields.items()}}
    form["timeout"] = "7"
    response = await post(ui, f"/tools/{tool_id}", form)
    assert response.status == 303
    async with ui.store.sessionmaker() as session:
        tool = await stored.get_tool(session, tool_id)
    assert tool.definition["timeout"] == 7
    assert tool.current.number == 2
    assert "echo_city" in html


async def test_versions_diff_and_restore(ui: UI, echo_server: Any) -> None:
    """Two saves make two versions; the diff shows the change; restoring the first copies it."""
    source = echo_source(echo_server)
    tool_id = await create(ui, source)
    changed = source.replace("timeout: 5", "timeout: 9")
    assert (await post(ui, f"/tools/{tool_id}", {"source": changed})).status == 303
    diff = parse(await ui.page(f"/tools/{tool_id}/diff?from=1&to=2")).text
    assert "-timeout: 5" in diff
    assert "+timeout: 9" in diff
    response = await post(ui, f"/tools/{tool_id}/restore", {"version": "1"})
    assert response.status == 303
    page = parse(await ui.page(f"/tools/{tool_id}"))
    assert "restored version 1" in page.text
    assert "timeout: 5" in page.text


async def test_disable_delete_and_undelete(ui: UI, echo_server: Any) -> None:
    """Disable turns the tool off; delete hides it from the list; restore brings it back."""
    tool_id = await create(ui, echo_source(echo_server))
    assert (await post(ui, f"/tools/{tool_id}/enabled", {"enabled": "off"})).status == 303
    assert "disabled" in parse(await ui.page(f"/tools/{tool_id}")).text
    assert (await post(ui, f"/tools/{tool_id}/delete", {})).status == 303
    assert "echo_city" not in parse(await ui.page("/tools")).text
    assert "echo_city" in parse(await ui.page("/tools?deleted=1")).text
    assert (await post(ui, f"/tools/{tool_id}/undelete", {})).status == 303
    assert "echo_city" in parse(await ui.page("/tools")).text


IMPORT_YAML = """\
- spec:
    name: outside_temperature
    description: The temperature outside.
    parameters: {type: object, properties: {}}
  function:
    type: template
    value_template: "{{ states('sensor.outside_temperature') }}"
- spec:
    name: query_db
    description: Run SQL.
    parameters: {type: object, properties: {query: {type: string}}}
  function:
    type: sqlite
    query: "{{ query }}"
"""


async def test_import_lists_imported_and_refused(ui: UI) -> None:
    """Pasted Extended OpenAI YAML: the template tool is imported, sqlite refused with why."""
    response = await post(ui, "/tools/import", {"text": IMPORT_YAML})
    assert response.status == 200
    page = parse(await response.text())
    assert "Imported (1)" in page.text
    assert "outside_temperature" in page.text
    assert "Refused (1)" in page.text
    assert "raw SQL" in page.text


async def test_an_import_refused_on_saving_shows_no_warning(ui: UI) -> None:
    """Imported twice, the states-reading entry is refused the second time, with no warning."""
    await post(ui, "/tools/import", {"text": EOC})
    page = await (await post(ui, "/tools/import", {"text": EOC})).text()
    assert "Imported (0)" in parse(page).text
    assert 'id="import-warnings"' not in page


async def test_export_downloads_yaml(ui: UI) -> None:
    """Export answers the Extended OpenAI YAML as a download."""
    await post(ui, "/tools/import", {"text": IMPORT_YAML})
    response = await ui.get("/tools/export")
    assert response.status == 200
    assert "attachment" in response.headers["Content-Disposition"]
    assert "outside_temperature" in await response.text()


async def test_secret_value_never_appears_in_any_page(ui: UI, echo_server: Any) -> None:
    """After setting, using and trying a secret, no page or export contains its value."""
    await set_secret(ui)
    tool_id = await create(ui, echo_source(echo_server))
    tried = await post(ui, f"/tools/{tool_id}/try", {"arg.city": "Oslo"})
    assert SECRET not in await tried.text()
    for path in ["/tools", f"/tools/{tool_id}", f"/tools/{tool_id}?format=json",
                 "/tools/export", f"/tools/export?id={tool_id}", "/", "/settings"]:  # fmt: skip
        response = await ui.get(path)
        assert response.status == 200, path
        assert SECRET not in await response.text(), path
    assert "api_key" in parse(await ui.page("/tools")).text


async def test_secret_can_be_deleted(ui: UI) -> None:
    """Deleting a secret removes it from the list."""
    await set_secret(ui)
    assert (await post(ui, "/tools/secrets/delete", {"name": "api_key"})).status == 303
    assert "api_key" not in parse(await ui.page("/tools")).text


async def test_refused_save_shows_the_fields_the_text_gives(ui: UI) -> None:
    """After a refused save the name field shows the name written in the text, not the old one."""
    fields = {"name": "get_weather", "description": "d", "kind": "rest", "timeout": "10"}
    form = {"source": "name: from_text\ndescription: y\nkind: nope\n", **fields}
    form |= {f"original.{key}": value for key, value in fields.items()}
    response = await post(ui, "/tools/new", form)
    assert response.status == 422
    assert 'name="name" value="from_text"' in await response.text()


async def test_the_editor_keeps_a_long_template_on_one_line(ui: UI, echo_server: Any) -> None:
    """A saved tool's YAML in the editor holds a long result template whole, on one line."""
    template = "{{ value_json.city | default(value_json.auth) }} and {{ value_json.auth }} came"
    source = echo_source(echo_server).replace(
        "result: {pointer: /city}", f"result: {{template: {json.dumps(template)}}}"
    )
    tool_id = await create(ui, source)
    found = re.search(
        r'<textarea id="definition-source"[^>]*>(.*?)</textarea>',
        await ui.page(f"/tools/{tool_id}"),
        re.S,
    )
    assert found is not None
    lines = html.unescape(found.group(1)).splitlines()
    assert any(template in line for line in lines)


QUOTED_TEMPLATE_TOOL = """\
# Outside, as the dashboard shows it.
name: outside_now
description: 'The temperature outside, in °C'
kind: template
template:
  template: "{{ states('sensor.outside_temperature') }} °C"   # the sensor's own unit
"""


def editor_text(page: str) -> str:
    """The editor's text as a browser reads it from the page's textarea."""
    found = re.search(r'<textarea id="definition-source"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


async def test_a_saved_tool_comes_back_as_it_was_written(ui: UI) -> None:
    """The editor shows a saved tool's YAML byte for byte: quoting and comments as typed."""
    tool_id = await create(ui, QUOTED_TEMPLATE_TOOL)
    assert editor_text(await ui.page(f"/tools/{tool_id}")) == QUOTED_TEMPLATE_TOOL
    fields = {"name": "outside_now", "description": "The temperature outside, in °C",
              "kind": "template", "timeout": "10", "enabled": "on"}  # fmt: skip
    form = {"source": QUOTED_TEMPLATE_TOOL, **fields}
    form |= {f"original.{key}": value for key, value in fields.items()}
    assert (await post(ui, f"/tools/{tool_id}", form)).status == 303
    assert editor_text(await ui.page(f"/tools/{tool_id}")) == QUOTED_TEMPLATE_TOOL


async def test_a_changed_field_is_written_into_the_text_alone(ui: UI) -> None:
    """Without script, a timeout changed in the form changes that line; the rest stays typed."""
    tool_id = await create(ui, QUOTED_TEMPLATE_TOOL)
    fields = {"name": "outside_now", "description": "The temperature outside, in °C",
              "kind": "template", "timeout": "10", "enabled": "on"}  # fmt: skip
    form = {"source": QUOTED_TEMPLATE_TOOL, **fields, "timeout": "7"}
    form |= {f"original.{key}": value for key, value in fields.items()}
    assert (await post(ui, f"/tools/{tool_id}", form)).status == 303
    assert editor_text(await ui.page(f"/tools/{tool_id}")) == QUOTED_TEMPLATE_TOOL + "timeout: 7\n"


async def test_disabling_shows_in_the_text_as_written(ui: UI) -> None:
    """A tool disabled by its switch shows enabled: false in its text, every other byte kept."""
    written = QUOTED_TEMPLATE_TOOL.replace("kind: template", "enabled: true\nkind: template")
    tool_id = await create(ui, written)
    assert (await post(ui, f"/tools/{tool_id}/enabled", {"enabled": "off"})).status == 303
    shown = editor_text(await ui.page(f"/tools/{tool_id}"))
    assert shown == written.replace("enabled: true", "enabled: false")


async def test_a_kind_chosen_without_script_brings_its_settings(ui: UI) -> None:
    """Posting kind template over the REST example saves a template tool, not a 422."""
    page = await ui.page("/tools/new")
    source = editor_text(page)
    fields = {"name": "get_weather", "description": "Current weather for a city.",
              "kind": "rest", "timeout": "10", "enabled": "on"}  # fmt: skip
    form = {"source": source, **fields, "kind": "template"}
    form |= {f"original.{key}": value for key, value in fields.items()}
    response = await post(ui, "/tools/new", form)
    assert response.status == 303, await response.text()
    async with ui.store.sessionmaker() as session:
        [summary] = await stored.list_tools(session)
        tool = await stored.get_tool(session, summary.id)
    assert tool.definition["kind"] == "template"
    assert "rest" not in tool.definition
    assert tool.current.source is not None
    assert tool.current.source.startswith(source.split("kind:")[0])
