"""The text checks the edges share."""

from __future__ import annotations

import json

import pytest
import yaml

from addon.text import ToolSpecs, dump_yaml, is_unicode, load_yaml


@pytest.mark.parametrize(
    "document",
    ['{"text": "hi \\ud83d\\ude00"}', '["caf\\u00e9", {"k": null}]', '"plain"', "1"],
)
def test_unicode_text_passes(document: str) -> None:
    """Parsed JSON whose strings are text, surrogate pairs included, is Unicode."""
    assert is_unicode(json.loads(document))


@pytest.mark.parametrize(
    "document",
    ['{"text": "hi \\ud800"}', '{"\\udcff": 1}', '[["deep", ["\\ude00 low"]]]'],
)
def test_lone_surrogate_anywhere_is_not_unicode(document: str) -> None:
    """A lone surrogate in any value or key, however deep, is not Unicode text."""
    assert not is_unicode(json.loads(document))


def test_the_yaml_loader_refuses_an_alias_at_its_line() -> None:
    """``load_yaml`` raises a YAML error pointing at the alias (issue 20.5)."""
    with pytest.raises(yaml.YAMLError, match="aliases") as caught:
        load_yaml("a: &x [1, 2]\nb: [*x, *x]\n")
    assert caught.value.problem_mark.line == 1  # type: ignore[attr-defined]


def test_the_yaml_loader_reads_what_safe_load_reads() -> None:
    """Without aliases the document is what ``yaml.safe_load`` gives."""
    text = "name: t\nlist: [1, two, {three: 3}]\n"
    assert load_yaml(text) == yaml.safe_load(text)


def test_dumped_yaml_keeps_a_long_template_on_one_line() -> None:
    """A Jinja expression past 80 columns is not folded across lines, and reads back the same."""
    template = "{{ value_json.current_condition[0].weatherDesc[0].value | default(city) }} now"
    data = {"rest": {"result": {"template": template}}}
    text = dump_yaml(data)
    assert any(template in line for line in text.splitlines())
    assert load_yaml(text) == data


def test_a_tool_list_keeps_its_compact_text() -> None:
    """Made on first use, as a request body writes it: compact, UTF-8, no NaN."""
    specs = ToolSpecs([{"name": "Küche", "n": 1.5}])
    assert specs.json == '[{"name":"Küche","n":1.5}]'
    assert specs.json is specs.json
    assert specs == [{"name": "Küche", "n": 1.5}]
    with pytest.raises(ValueError, match="JSON compliant"):
        _ = ToolSpecs([{"n": float("nan")}]).json
