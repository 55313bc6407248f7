"""The custom tools JSON API through the whole app: saves, versions, import, secrets, access."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from addon import keys
from addon.config.settings import Settings
from addon.errors import CustomToolInvalid
from tests.fixtures.app import MakeApp
from tests.web.api.conftest import ADMIN_TOKEN, AppClient

WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "kind": "rest",
    "rest": {"method": "GET", "url": "https://api.example.com/weather/{{ city }}"},
}
SECRET = "s3cret-value-never-shown"
EOC = """
- spec:
    name: get_attributes
    description: Get attributes of any home assistant entity
    parameters:
      type: object
      properties:
        entity_id: {type: string}
  function:
    type: template
    value_template: "{{states[entity_id]}}"
- spec:
    name: query_histories_from_db
    description: Query the database.
    parameters: {type: object, properties: {query: {type: string}}}
  function:
    type: sqlite
"""


async def create(api: AppClient, definition: Mapping[str, Any], **headers: str) -> dict[str, Any]:
    """Create a tool through the API; returns the answer's body."""
    response = await api.post("/api/tools", json={"definition": definition}, headers=headers)
    assert response.status == 201, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def test_a_created_tool_is_listed_with_its_kind(api: AppClient) -> None:
    """A tool created through the API appears in the list as version 1, unused."""
    await create(api, WEATHER)
    listed = await (await api.get("/api/tools")).json()
    [tool] = listed["tools"]
    assert (tool["name"], tool["kind"], tool["version"], tool["calls"]) == (
        "get_weather",
        "rest",
        1,
        0,
    )


async def test_the_author_is_the_ingress_user(api: AppClient) -> None:
    """Through ingress, the Home Assistant user in Supervisor's headers is the version's author."""
    tool = await create(api, WEATHER, **{"X-Remote-User-Display-Name": "Anna"})
    assert tool["version"]["author"] == "Anna"


async def test_user_headers_on_the_direct_port_are_not_believed(direct: AppClient) -> None:
    """Anyone can send the headers to the direct port, so no author is taken from them."""
    response = await direct.post(
        "/api/tools",
        json={"definition": WEATHER},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "X-Remote-User-Name": "mallory"},
    )
    assert (await response.json())["version"]["author"] is None


async def test_the_direct_port_needs_the_token(direct: AppClient) -> None:
    """The tool routes sit behind the access control like every other API route."""
    response = await direct.get("/api/tools")
    assert response.status == 401


async def test_source_text_is_saved_and_shown_as_yaml(api: AppClient) -> None:
    """The editor's YAML text is parsed and saved; the answer renders it back as YAML."""
    source = "name: say_hi\ndescription: Says hi.\nkind: template\ntemplate:\n  template: hi\n"
    response = await api.post("/api/tools", json={"source": source})
    body = await response.json()
    assert body["definition"]["kind"] == "template"
    assert body["source"].startswith("name: say_hi\ndescription: Says hi.\n")


async def test_source_that_is_not_yaml_is_a_422_at_its_line(api: AppClient) -> None:
    """Broken YAML is refused with the line it breaks at."""
    response = await api.post("/api/tools", json={"source": "name: x\nkind: a: b\n"})
    body = await response.json()
    assert response.status == 422
    assert body["problems"][0]["message"].startswith("line 2: ")


async def test_a_taken_name_is_a_422_naming_the_field(api: AppClient) -> None:
    """A second tool of the same name is refused at its name."""
    await create(api, WEATHER)
    response = await api.post("/api/tools", json={"definition": WEATHER})
    body = await response.json()
    assert response.status == 422
    assert body["field"] == "name"


async def test_the_parsers_problems_come_back_with_their_fields(
    aiohttp_client: Callable[..., Any], agent_settings: Settings, make_app: MakeApp
) -> None:
    """The definition parser the app holds refuses with every problem and its field."""

    def validate(definition: Mapping[str, Any]) -> None:
        raise CustomToolInvalid([("rest.url", "templates may fill only the path"), ("name", "x")])

    app = make_app(agent_settings)
    app[keys.CUSTOM_TOOL_VALIDATOR] = validate
    api: AppClient = await aiohttp_client(app)
    response = await api.post("/api/tools", json={"definition": WEATHER})
    body = await response.json()
    assert response.status == 422
    assert body["problems"] == [
        {"field": "rest.url", "message": "templates may fill only the path"},
        {"field": "name", "message": "x"},
    ]
    assert body["field"] == "rest.url"


async def test_versions_diff_and_restore(api: AppClient) -> None:
    """Two saves make two versions; their diff shows the change; restoring adds version 3."""
    tool = await create(api, WEATHER)
    url = f"/api/tools/{tool['id']}"
    await api.put(url, json={"definition": {**WEATHER, "description": "Now."}, "note": "short"})
    versions = (await (await api.get(f"{url}/versions")).json())["versions"]
    diff = (await (await api.get(f"{url}/diff?from=1&to=2")).json())["diff"]
    restored = await (await api.post(f"{url}/restore", json={"version": 1})).json()
    assert [(v["number"], v["note"]) for v in versions] == [(2, "short"), (1, "")]
    assert "+description: Now.\n" in diff
    assert restored["version"]["number"] == 3
    assert restored["definition"]["description"] == WEATHER["description"]


async def test_disable_delete_and_undelete(api: AppClient) -> None:
    """A disabled tool is listed as such; a deleted one is hidden until undeleted."""
    tool = await create(api, WEATHER)
    url = f"/api/tools/{tool['id']}"
    disabled = await (await api.post(f"{url}/enabled", json={"enabled": False})).json()
    await api.delete(url)
    hidden = (await (await api.get("/api/tools")).json())["tools"]
    everything = (await (await api.get("/api/tools?deleted=1")).json())["tools"]
    await api.post(f"{url}/undelete")
    shown = (await (await api.get("/api/tools")).json())["tools"]
    assert disabled["enabled"] is False
    assert hidden == []
    assert everything[0]["deleted_at"] is not None
    assert [t["name"] for t in shown] == ["get_weather"]


async def test_an_unknown_tool_is_a_404(api: AppClient) -> None:
    """Asking for a tool that does not exist is not found."""
    response = await api.get("/api/tools/999")
    assert response.status == 404


async def test_import_saves_what_carries_over_and_lists_the_rest(api: AppClient) -> None:
    """The template entry becomes a tool; the sqlite one is refused with its reason."""
    response = await api.post("/api/tools/import", json={"text": EOC})
    body = await response.json()
    listed = (await (await api.get("/api/tools")).json())["tools"]
    assert [t["name"] for t in body["imported"]] == ["get_attributes"]
    assert [r["name"] for r in body["refused"]] == ["query_histories_from_db"]
    assert [t["name"] for t in listed] == ["get_attributes"]


async def test_import_preview_saves_nothing(api: AppClient) -> None:
    """A preview shows the definitions and refusals without storing a tool."""
    response = await api.post("/api/tools/import", json={"text": EOC, "preview": True})
    body = await response.json()
    listed = (await (await api.get("/api/tools")).json())["tools"]
    assert [d["name"] for d in body["definitions"]] == ["get_attributes"]
    assert listed == []


async def test_importing_a_name_already_taken_refuses_that_entry(api: AppClient) -> None:
    """An entry whose name a tool has is refused; nothing is overwritten."""
    await api.post("/api/tools/import", json={"text": EOC})
    body = await (await api.post("/api/tools/import", json={"text": EOC})).json()
    assert body["imported"] == []
    assert "get_attributes" in [r["name"] for r in body["refused"]]


async def test_an_entry_refused_on_saving_carries_no_warning(api: AppClient) -> None:
    """The warning about reading states goes with an imported tool, not with a refused one."""
    first = await (await api.post("/api/tools/import", json={"text": EOC})).json()
    again = await (await api.post("/api/tools/import", json={"text": EOC})).json()
    assert [w["name"] for w in first["warnings"]] == ["get_attributes"]
    assert again["warnings"] == []


async def test_export_writes_extended_openai_yaml(api: AppClient) -> None:
    """Exporting every tool gives EOC's list of {spec, function}."""
    await api.post("/api/tools/import", json={"text": EOC})
    body = await (await api.get("/api/tools/export")).json()
    assert body["text"].startswith("- spec:\n    name: get_attributes\n")
    assert "type: template" in body["text"]
    assert body["not_exported"] == []


async def test_secrets_are_written_but_never_read_back(api: AppClient) -> None:
    """Setting a secret answers with its name; no answer, list or export holds the value."""
    await create(
        api,
        {**WEATHER, "rest": {**WEATHER["rest"], "headers": {"X-Key": "{{ secrets.key }}"}}},
    )
    put = await api.put("/api/secrets/key", json={"value": SECRET})
    answers = [
        await put.text(),
        await (await api.get("/api/secrets")).text(),
        await (await api.get("/api/tools")).text(),
        await (await api.get("/api/tools/1")).text(),
        await (await api.get("/api/tools/export")).text(),
    ]
    assert put.status == 200
    assert '"key"' in answers[1]
    assert all(SECRET not in answer for answer in answers)


async def test_a_deleted_secret_is_gone(api: AppClient) -> None:
    """Deleting a secret removes its name; deleting it again is a 404."""
    await api.put("/api/secrets/key", json={"value": SECRET})
    first = await api.delete("/api/secrets/key")
    second = await api.delete("/api/secrets/key")
    listed = await (await api.get("/api/secrets")).json()
    assert (first.status, second.status) == (200, 404)
    assert listed == {"secrets": []}
