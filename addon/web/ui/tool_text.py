"""Edits to the custom tool editor's text that keep everything else the user wrote.

The text in the editor is the one source of truth: the fields above it (name, description,
kind, enabled, timeout) are a view of its top-level keys. When a field is changed (without
script, the form posts it beside the text), the change is written into the text by replacing
only that key's value, so every other byte (quoting, comments, order) stays as typed; the text
is then what is parsed, saved and shown back. Changing the kind also replaces the old kind's
settings section with the new kind's example (:data:`KIND_EXAMPLES`), since a ``template``
tool cannot be saved with ``rest:`` settings; ``app.js`` does the same in the browser as the
select changes, with the examples this module gives the page.

Positions come from PyYAML's composed nodes (``start_mark.index``/``end_mark.index``), which
count characters in the text, so a key written in JSON (flow) style is replaced as well.
"""

from __future__ import annotations

import json

import yaml

from addon.text import JsonObject, JsonValue, NoAliasLoader

KIND_EXAMPLES: dict[str, str] = {
    "rest": """\
rest:
  method: GET
  url: "https://api.example.com/weather/{{ city | urlencode }}"
  result: {pointer: /temp}
""",
    "service": """\
service:
  action: light.turn_on
  target: {entity_id: light.kitchen}
  data: {brightness_pct: 50}
""",
    "template": """\
template:
  template: "{{ states('sensor.outside_temperature') }} °C"
""",
    "script": """\
script: {entity_id: script.forecast}
""",
    "history": """\
history:
  entity_ids: [sensor.house_power]
  period: 24h
""",
    "composite": """\
composite:
  steps:
    - name: outside
      kind: template
      template: {template: "{{ states('sensor.outside_temperature') }}"}
  result: {template: "Outside {{ steps.outside }} °C"}
""",
}
"""Each kind's settings section as a new tool's editor offers it: valid, and meant to change."""


def examples_for_page() -> dict[str, JsonObject]:
    """Each kind's example for ``app.js``: its section as text, and its settings as data.

    The data is for a definition written in JSON, where the section goes in as an object.
    """
    return {
        kind: {"yaml": example, "settings": yaml.safe_load(example)[kind]}
        for kind, example in KIND_EXAMPLES.items()
    }


def set_field(text: str, key: str, value: JsonValue) -> str:
    """``text`` with the top-level ``key`` set to ``value``, nothing else rewritten.

    An existing value is replaced where it stands; a missing key is added at the end (inside
    the braces of a JSON object). Text that is not a mapping is returned unchanged, for the
    parser to explain.
    """
    root = _root(text)
    if root is None:
        return text
    flow = root.flow_style
    written = _scalar(value, flow=flow)
    for key_node, value_node in root.value:
        if getattr(key_node, "value", None) == key:
            return _replace(text, value_node.start_mark.index, value_node.end_mark.index, written)
    if flow:
        return _add_to_flow(text, root, f"{json.dumps(key)}: {written}")
    return _append(text, f"{key}: {written}\n")


def swap_kind(text: str, kind: str) -> str:
    """``text`` with ``kind`` set and the previous kind's settings replaced by ``kind``'s example.

    Settings already written under the new kind's key are kept. Without an example for
    ``kind`` (an unknown kind) only the ``kind`` key changes, and the parser will say why.
    """
    root = _root(text)
    if root is None:
        return text
    keys = {getattr(key_node, "value", None): (key_node, node) for key_node, node in root.value}
    old = keys.get("kind", (None, None))[1]
    old_kind = old.value if isinstance(old, yaml.ScalarNode) else None
    example = KIND_EXAMPLES.get(kind)
    edited = text
    if example is not None and kind not in keys:
        if root.flow_style:
            edited = _swap_in_flow(text, old_kind, kind, example)
        elif old_kind in keys and old_kind != kind:
            key_node, node = keys[old_kind]
            edited = _replace(text, key_node.start_mark.index, node.end_mark.index, example)
        else:
            edited = _append(text, example)
    return set_field(edited, "kind", kind)


def _root(text: str) -> yaml.MappingNode | None:
    try:
        node = yaml.compose(text, Loader=NoAliasLoader)
    except yaml.YAMLError:
        return None
    return node if isinstance(node, yaml.MappingNode) else None


def _scalar(value: JsonValue, *, flow: bool | None) -> str:
    """``value`` written as one YAML scalar (JSON's spelling inside a JSON object)."""
    if flow:
        return json.dumps(value, ensure_ascii=False)
    dumped = yaml.safe_dump(value, allow_unicode=True, width=1 << 30)
    return dumped.removesuffix("\n...\n").removesuffix("\n")


def _replace(text: str, start: int, end: int, written: str) -> str:
    """Replace ``text[start:end]`` with ``written``, keeping the line breaks it ended with.

    A block node's end is the start of whatever follows it, so its span can end in line
    breaks (and blank lines) that belong between it and the next key.
    """
    old = text[start:end]
    kept = old[len(old.rstrip()) :]
    newline_at = kept.find("\n")
    tail = kept[newline_at:] if newline_at >= 0 else ""
    return text[:start] + written.rstrip("\n") + tail + text[end:]


def _append(text: str, lines: str) -> str:
    if text and not text.endswith("\n"):
        text += "\n"
    return text + lines


def _add_to_flow(text: str, root: yaml.MappingNode, member: str) -> str:
    """Add ``member`` before the closing brace of the JSON object ``root``."""
    close = root.end_mark.index - 1
    separator = ", " if root.value else ""
    return text[:close].rstrip() + separator + member + "\n" + text[close:]


def _swap_in_flow(text: str, old_kind: str | None, kind: str, example: str) -> str:
    """A JSON definition with ``kind``'s example in place of ``old_kind``'s settings.

    JSON has no comments or quoting choices to keep, so the object is written out again,
    indented as the editor shows JSON, with the new section where the old one was.
    """
    definition = yaml.load(text, Loader=NoAliasLoader)
    settings = yaml.safe_load(example)[kind]
    swapped: JsonObject = {}
    for key, value in definition.items():
        if key == old_kind:
            swapped[kind] = settings
        else:
            swapped[key] = value
    swapped.setdefault(kind, settings)
    return json.dumps(swapped, indent=2, ensure_ascii=False) + "\n"
