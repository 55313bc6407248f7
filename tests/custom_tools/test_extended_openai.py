"""Extended OpenAI Conversation function YAML in and out, with shapes its users really paste."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from addon.custom_tools.extended_openai import import_functions
from addon.custom_tools.extended_openai_export import export_functions
from addon.errors import CustomToolInvalid

# The examples below follow jekalmin/extended_openai_conversation's README and examples/.
TEMPLATE = """
- spec:
    name: get_attributes
    description: Get attributes of any home assistant entity
    parameters:
      type: object
      properties:
        entity_id:
          type: string
          description: entity_id
      required:
      - entity_id
  function:
    type: template
    value_template: "{{states[entity_id]}}"
"""

REST = """
- spec:
    name: search_google
    description: Execute Google Custom Search to find relevant information.
    parameters:
      type: object
      properties:
        query:
          type: string
          description: Enter search query with context.
        results_count:
          type: integer
          description: Number of results to retrieve, default is 3.
      required:
      - query
  function:
    type: rest
    resource_template: >-
      https://www.googleapis.com/customsearch/v1?key=KEY&cx=CX&q={{ query | urlencode
      }}&num={{ results_count | default(3) }}
    value_template: >
      {%- set items = value_json['items'] if value_json['items'] is iterable else [] %}
      {%- if items -%}
        {{ items | tojson }}
      {%- else -%}
        No data found or data is not iterable.
      {%- endif -%}
"""

SCRIPT_WITH_RESPONSE = """
- spec:
    name: get_weather_forecasts
    description: Get hourly and daily weather forecasts
    parameters:
      type: object
      properties:
        entity_id:
          type: string
        type:
          type: string
          enum: ["daily", "hourly"]
      required:
      - entity_id
      - type
  function:
    type: script
    sequence:
      - service: weather.get_forecasts
        data:
          type: "{{ type }}"
        target:
          entity_id: "{{ entity_id }}"
        response_variable: _function_result
"""

COMPOSITE = """
- spec:
    name: search_music
    description: Use this function to search music
    parameters:
      type: object
      properties:
        query:
          type: string
          description: The query
      required:
      - query
  function:
    type: composite
    sequence:
    - type: script
      sequence:
      - service: ytube_music_player.search
        data:
          entity_id: media_player.ytube_music_player
          query: "{{ query }}"
    - type: template
      value_template: >-
        media_content_type,media_content_id,title
        {% for media in state_attr('sensor.ytube_music_player_extra', 'search') -%}
          {{media.type}},{{media.id}},{{media.title}}
        {% endfor%}
"""

COMPOSITE_WITH_VARIABLES = """
- spec:
    name: friends_summary
    description: Count friends and list their names.
    parameters:
      type: object
      properties: {}
  function:
    type: composite
    sequence:
      - type: rest
        resource: https://jsonplaceholder.typicode.com/users
        value_template: "{{ value_json | tojson }}"
        response_variable: friends
      - type: template
        value_template: >-
          {"count": {{ friends | length }}, "data": {{ friends }}, "x": "{{ x.friends }}"}
"""

SERVICE_OVER_ENTITIES = """
- spec:
    name: get_events
    description: Use this function to get list of calendar events.
    parameters:
      type: object
      properties:
        start_date_time:
          type: string
          description: The start date time in '%Y-%m-%dT%H:%M:%S%z' format
        end_date_time:
          type: string
          description: The end date time in '%Y-%m-%dT%H:%M:%S%z' format
      required:
      - start_date_time
      - end_date_time
  function:
    type: script
    sequence:
    - service: calendar.get_events
      data:
        start_date_time: "{{start_date_time}}"
        end_date_time: "{{end_date_time}}"
      target:
        entity_id:
        - calendar.family
        - calendar.work
      response_variable: _function_result
"""

EXECUTE_SERVICES = """
- spec:
    name: execute_services
    description: Use this function to execute service of devices in Home Assistant.
    parameters:
      type: object
      properties:
        list:
          type: array
          items:
            type: object
            properties:
              domain: {type: string, description: The domain of the service}
              service: {type: string, description: The service to be called}
              service_data:
                type: object
                description: The service data object to indicate what to control.
            required: [domain, service, service_data]
  function:
    type: native
    name: execute_service
"""

SQLITE = """
- spec:
    name: query_histories_from_db
    description: Use this function to query histories from Home Assistant SQLite database.
    parameters:
      type: object
      properties:
        query:
          type: string
          description: A fully formed SQL query.
  function:
    type: sqlite
"""

ADD_AUTOMATION = """
- spec:
    name: add_automation
    description: Use this function to add an automation in Home Assistant.
    parameters:
      type: object
      properties:
        automation_config:
          type: string
          description: A configuration for automation in a valid yaml format.
      required:
      - automation_config
  function:
    type: native
    name: add_automation
"""

GET_HISTORY = """
- spec:
    name: get_history
    description: Retrieve historical data of specified entities.
    parameters:
      type: object
      properties:
        entity_ids:
          type: array
          items:
            type: string
            description: The entity id to filter.
        start_time:
          type: string
          description: Start of the history period in "%Y-%m-%dT%H:%M:%S%z".
        end_time:
          type: string
          description: End of the history period in "%Y-%m-%dT%H:%M:%S%z".
      required:
      - entity_ids
  function:
    type: native
    name: get_history
"""


def only(text: str) -> dict[str, Any]:
    """The one definition imported from ``text``, which must refuse nothing."""
    result = import_functions(text)
    assert result.refused == ()
    [definition] = result.definitions
    return definition


def refusal(text: str) -> str:
    """The reason the one entry of ``text`` was refused."""
    result = import_functions(text)
    assert result.definitions == ()
    [(_name, reason)] = result.refused
    return reason


def test_a_template_function_becomes_a_template_tool() -> None:
    """The value_template is rendered by Home Assistant, with the arguments as variables."""
    definition = only(TEMPLATE)
    assert definition["kind"] == "template"
    assert definition["template"] == {"template": "{{states[entity_id]}}"}
    assert definition["parameters"]["required"] == ["entity_id"]
    assert definition["description"] == "Get attributes of any home assistant entity"


def test_a_rest_function_keeps_its_url_and_value_json_template() -> None:
    """resource_template becomes the URL; value_template, over value_json, the result."""
    definition = only(REST)
    assert definition["kind"] == "rest"
    assert definition["rest"]["method"] == "GET"
    assert definition["rest"]["url"].startswith("https://www.googleapis.com/customsearch/v1?")
    assert "q={{ query | urlencode }}&num=" in definition["rest"]["url"]
    assert "value_json['items']" in definition["rest"]["result"]["template"]


def test_a_script_returning_function_result_returns_the_response() -> None:
    """One action with response_variable _function_result is a service returning its answer."""
    definition = only(SCRIPT_WITH_RESPONSE)
    assert definition["kind"] == "service"
    assert definition["service"] == {
        "action": "weather.get_forecasts",
        "data": {"type": "{{ type }}"},
        "target": {"entity_id": "{{ entity_id }}"},
        "return_response": True,
    }


def test_a_composite_becomes_steps_ending_in_its_result() -> None:
    """Each step of the sequence is a step; the last one's result is the tool's, as in EOC."""
    definition = only(COMPOSITE)
    steps = definition["composite"]["steps"]
    assert [(step["name"], step["kind"]) for step in steps] == [
        ("step_1", "service"),
        ("step_2", "template"),
    ]
    assert steps[0]["service"]["action"] == "ytube_music_player.search"
    assert (
        "state_attr('sensor.ytube_music_player_extra', 'search')"
        in (steps[1]["template"]["template"])
    )


def test_a_composites_response_variables_are_read_as_steps() -> None:
    """A later template's bare ``friends`` becomes ``steps.friends``; attributes stay put."""
    steps = only(COMPOSITE_WITH_VARIABLES)["composite"]["steps"]
    assert steps[0]["name"] == "friends"
    assert steps[1]["template"]["template"] == (
        '{"count": {{ steps.friends | length }}, "data": {{ steps.friends }}, '
        '"x": "{{ x.friends }}"}'
    )


def test_a_service_over_a_list_of_entities_keeps_the_list() -> None:
    """The calendar call's target names both calendars, written by the user."""
    definition = only(SERVICE_OVER_ENTITIES)
    assert definition["service"]["target"] == {"entity_id": ["calendar.family", "calendar.work"]}
    assert definition["service"]["return_response"] is True


def test_a_spec_whose_parameters_are_not_a_mapping_is_refused() -> None:
    """Parameters written as a list cannot be a JSON Schema: the entry is refused, not a crash."""
    text = TEMPLATE.replace("    parameters:\n", "    parameters: [entity_id]\n    ignored:\n", 1)
    assert refusal(text) == "the spec's parameters are not a mapping"


def test_native_execute_service_is_refused_for_the_built_in_tools() -> None:
    """Calling any action the model names is what the built-in tools already do, safely."""
    assert "built-in tools" in refusal(EXECUTE_SERVICES)


def test_a_sqlite_function_is_refused_as_unsafe() -> None:
    """Raw SQL is refused, with the reason."""
    assert refusal(SQLITE) == "sqlite: running raw SQL against the recorder's database is unsafe"


def test_a_composite_with_a_sqlite_step_is_refused_whole() -> None:
    """One unsafe step refuses the entry: nothing is half-imported."""
    text = COMPOSITE.replace("    - type: template\n", "    - type: sqlite\n      query: x\n", 1)
    text = text.replace(
        "      value_template: >-", "    - type: template\n      value_template: >-"
    )
    assert refusal(text).startswith("sqlite:")


def test_add_automation_is_refused_as_unsafe() -> None:
    """Writing automations from model output is refused."""
    assert "writing automations from model output is unsafe" in refusal(ADD_AUTOMATION)


def test_a_script_calling_automation_services_is_refused() -> None:
    """A script step into automation.* is refused like add_automation."""
    text = SCRIPT_WITH_RESPONSE.replace("weather.get_forecasts", "automation.reload")
    assert "automation.reload" in refusal(text)


def test_a_script_with_a_delay_is_refused_naming_the_step() -> None:
    """Only action calls carry over; a delay step refuses the whole script."""
    text = SCRIPT_WITH_RESPONSE + "      - delay:\n          seconds: 10\n"
    assert refusal(text) == "script: step 2 (delay) is not an action call"


def test_an_entry_holding_what_json_cannot_is_refused_naming_where() -> None:
    """YAML's dates have no JSON form: the entry is refused, saying which value it is."""
    text = SCRIPT_WITH_RESPONSE.replace('type: "{{ type }}"', "day: 2026-01-02")
    assert refusal(text) == "function.sequence.0.data.day: a date is not a JSON value"


def test_rest_params_that_are_not_a_mapping_are_refused() -> None:
    """``params`` is a mapping of names to values; a list is refused, not read."""
    text = REST.replace("  function:\n", "  function:\n    params: [a, b]\n")
    assert refusal(text) == "rest: 'params' is not a mapping"


def test_a_scrape_function_is_refused_with_a_reason() -> None:
    """HTML scraping has no equivalent."""
    text = REST.replace("type: rest", "type: scrape")
    assert refusal(text).startswith("scrape:")


def test_a_rest_url_whose_host_is_a_template_is_refused() -> None:
    """The model may not choose where a request goes."""
    text = REST.replace("https://www.googleapis.com/customsearch/v1?", "{{ base }}/v1?")
    assert "host written out" in refusal(text)


def test_native_get_history_becomes_a_history_tool_over_the_models_entities() -> None:
    """The entities and the period come from the arguments, as EOC's get_history reads them."""
    definition = only(GET_HISTORY)
    assert definition["history"] == {
        "entity_ids": ["{{ entity_ids | join(',') }}"],
        "start": "{{ start_time | default('', true) }}",
        "end": "{{ end_time | default('', true) }}",
    }


def test_every_entry_is_imported_or_refused() -> None:
    """A pasted list splits into definitions and refusals, in order, none lost."""
    result = import_functions(TEMPLATE + REST + SQLITE + ADD_AUTOMATION + SCRIPT_WITH_RESPONSE)
    assert [d["name"] for d in result.definitions] == [
        "get_attributes",
        "search_google",
        "get_weather_forecasts",
    ]
    assert [name for name, _reason in result.refused] == [
        "query_histories_from_db",
        "add_automation",
    ]


def test_a_definition_the_parser_refuses_is_refused_with_its_problems() -> None:
    """The definition parser's problems become the entry's reason, with their fields."""

    def validate(definition: Mapping[str, Any]) -> None:
        if definition["kind"] == "rest":
            raise CustomToolInvalid([("rest.url", "bad")])

    result = import_functions(TEMPLATE + REST, validate=validate)
    assert [d["name"] for d in result.definitions] == ["get_attributes"]
    assert result.refused == (
        ("search_google", "the converted definition is not valid: rest.url: bad"),
    )


def test_text_that_is_not_yaml_names_the_line() -> None:
    """A YAML error is one problem of the whole paste, at its line."""
    with pytest.raises(CustomToolInvalid, match="line 3"):
        import_functions("- spec:\n    name: x\n  function: a: b\n")


def test_a_mapping_instead_of_a_list_is_refused() -> None:
    """EOC's functions are a list; anything else is refused whole."""
    with pytest.raises(CustomToolInvalid, match="list"):
        import_functions("spec: {}\n")


@pytest.mark.parametrize(
    "text",
    [
        TEMPLATE,
        REST,
        SCRIPT_WITH_RESPONSE,
        COMPOSITE,
        COMPOSITE_WITH_VARIABLES,
        SERVICE_OVER_ENTITIES,
        GET_HISTORY,
    ],
)
def test_import_export_import_gives_the_same_definitions(text: str) -> None:
    """Exporting what was imported and importing it again changes nothing."""
    first = import_functions(text)
    exported = export_functions(list(first.definitions))
    assert exported.not_exported == ()
    assert import_functions(exported.text).definitions == first.definitions


def test_export_writes_eocs_own_shapes() -> None:
    """A composite's ``steps.NAME`` is the plain variable again, set by response_variable."""
    exported = export_functions(list(import_functions(COMPOSITE_WITH_VARIABLES).definitions))
    [entry] = yaml.safe_load(exported.text)
    sequence = entry["function"]["sequence"]
    assert entry["function"]["type"] == "composite"
    assert sequence[0]["response_variable"] == "friends"
    assert "{{ friends | length }}" in sequence[1]["value_template"]


def test_a_script_tool_exports_as_a_call_with_the_arguments() -> None:
    """Running a script entity is calling it with every argument as a variable."""
    definition = {
        "name": "good_night",
        "description": "Good night routine.",
        "parameters": {"type": "object", "properties": {"room": {"type": "string"}}},
        "kind": "script",
        "script": {"entity_id": "script.good_night"},
    }
    [entry] = export_functions([definition]).entries
    assert entry["function"] == {
        "type": "script",
        "sequence": [
            {
                "service": "script.good_night",
                "data": {"room": "{{ room }}"},
                "response_variable": "_function_result",
            }
        ],
    }


def test_kinds_without_an_equivalent_are_listed_not_exported() -> None:
    """Statistics history and a JSON pointer result have no EOC form; the reason says so."""
    history = {
        "name": "power",
        "description": "Power use.",
        "kind": "history",
        "history": {"entity_ids": ["sensor.power"], "statistics": True},
    }
    pointer = {
        "name": "temp",
        "description": "Temperature.",
        "kind": "rest",
        "rest": {"url": "https://api.example.com/t", "result": {"pointer": "/temp"}},
    }
    result = export_functions([history, pointer])
    assert result.entries == ()
    assert [name for name, _reason in result.not_exported] == ["power", "temp"]


def test_export_keeps_secret_references_not_values() -> None:
    """A header template naming a secret is exported as that reference."""
    definition = {
        "name": "lights_api",
        "description": "Lights.",
        "kind": "rest",
        "rest": {
            "url": "https://api.example.com/lights",
            "headers": {"Authorization": "Bearer {{ secrets.token }}"},
        },
    }
    [entry] = export_functions([definition]).entries
    assert entry["function"]["headers"] == {"Authorization": "Bearer {{ secrets.token }}"}


def test_an_imported_rest_function_declares_the_secrets_it_names() -> None:
    """A header naming ``secrets.weather_key`` becomes ``secrets: [weather_key]``."""
    text = """
- spec: {name: weather, description: Weather.}
  function:
    type: rest
    resource_template: "https://api.example.com/w?city={{ city }}"
    headers: {X-Key: "{{ secrets.weather_key }}"}
"""
    (definition,) = import_functions(text).definitions
    assert definition["secrets"] == ["weather_key"]
