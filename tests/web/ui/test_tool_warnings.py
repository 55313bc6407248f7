"""The tool page warns when a template reads ``states`` directly (the gate refuses such reads)."""

from __future__ import annotations

from addon.store.tools import custom_tools as stored
from tests.web.ui.conftest import UI


async def _tool(ui: UI, template: str) -> int:
    definition = {
        "name": "get_attributes",
        "description": "Attributes of an entity.",
        "kind": "template",
        "template": {"template": template},
    }
    async with ui.store.sessionmaker.begin() as session:
        tool = await stored.save_tool(session, definition)
    return tool.id


async def test_the_tool_page_warns_of_a_template_reading_states(ingress_ui: UI) -> None:
    """``states[entity_id]`` is shown with the warning that unexposed reads are refused."""
    tool_id = await _tool(ingress_ui, "{{ states[entity_id] }}")
    page = await ingress_ui.page(f"/tools/{tool_id}")
    assert 'id="template-warnings"' in page
    assert "reads &#39;states&#39; directly" in page


async def test_the_tool_page_has_no_warning_for_one_entity(ingress_ui: UI) -> None:
    """``states('sensor.x')`` is read through the gate's exposure check: no warning."""
    tool_id = await _tool(ingress_ui, "{{ states('sensor.outside_temperature') }}")
    page = await ingress_ui.page(f"/tools/{tool_id}")
    assert 'id="template-warnings"' not in page
