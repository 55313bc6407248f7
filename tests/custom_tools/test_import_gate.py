"""What the Extended OpenAI import refuses and warns about, from the gate's one list."""

from __future__ import annotations

import pytest

from addon.custom_tools.definition import parse_definition
from addon.custom_tools.extended_openai import import_functions
from addon.home.actions.gate import FORBIDDEN_ACTIONS, forbidden

GET_ATTRIBUTES = """
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
"""

STATE_OF = """
- spec:
    name: temperature
    description: The outside temperature
  function:
    type: template
    value_template: "{{ states('sensor.outside_temperature') }}"
"""


def script_calling(action: str) -> str:
    return f"""
- spec:
    name: harmful
    description: Does something to the host
  function:
    type: script
    sequence:
    - service: {action}
"""


@pytest.mark.parametrize(
    "action",
    [
        "hassio.addon_stop",
        "hassio.host_shutdown",
        "shell_command.wipe",
        "homeassistant.stop",
        "homeassistant.restart",
        "recorder.purge",
    ],
)
def test_the_import_refuses_an_action_that_can_harm_the_host(action: str) -> None:
    """Host commands, stopping Home Assistant and erasing history are never imported."""
    result = import_functions(script_calling(action))
    assert result.definitions == ()
    ((name, reason),) = result.refused
    assert name == "harmful"
    assert "can harm the host" in reason


def test_the_import_refuses_through_the_parser_too() -> None:
    """The definition parser the editor and API use refuses the same list."""

    def validate(definition: object) -> None:
        assert isinstance(definition, dict)
        parse_definition(definition, reserved=())

    result = import_functions(script_calling("light.turn_on"), validate=validate)
    assert [definition["name"] for definition in result.definitions] == ["harmful"]
    with pytest.raises(Exception, match="can harm the host"):
        parse_definition(
            {
                "name": "x",
                "description": "x",
                "kind": "service",
                "service": {"action": "shell_command.reboot"},
            },
            reserved=(),
        )


def test_the_forbidden_list_is_matched_by_pattern() -> None:
    """``hassio.*`` covers every Supervisor action; a harmless action is not matched."""
    assert "hassio.*" in FORBIDDEN_ACTIONS
    assert forbidden("hassio.backup_full") == "hassio.*"
    assert forbidden("HomeAssistant.Restart") == "homeassistant.restart"
    assert forbidden("homeassistant.turn_on") is None


def test_a_template_reading_states_directly_is_imported_with_a_warning() -> None:
    """get_attributes (``states[entity_id]``) comes in, with a warning naming the field."""
    result = import_functions(GET_ATTRIBUTES)
    assert [definition["name"] for definition in result.definitions] == ["get_attributes"]
    ((name, warning),) = result.warnings
    assert name == "get_attributes"
    assert warning.startswith("template.template: the template reads 'states' directly")


def test_a_template_calling_states_on_one_entity_has_no_warning() -> None:
    """``states('sensor.x')`` reads one entity, which the gate checks: nothing to warn of."""
    assert import_functions(STATE_OF).warnings == ()
