"""Local templates: the sandbox, the time limit, the output cap and errors that say where."""

from __future__ import annotations

import itertools

import pytest

from addon.custom_tools.templating import Renderer
from addon.errors import TemplateRenderError


def test_arguments_render_with_filters() -> None:
    """Arguments are variables; urlencode and to_json are there."""
    renderer = Renderer()
    assert (
        renderer.render("{{ city | urlencode }}", {"city": "São Paulo"}, "f") == "S%C3%A3o%20Paulo"
    )
    assert renderer.render("{{ args | to_json }}", {"args": {"a": 1}}, "f") == '{"a": 1}'


def test_a_lone_expression_keeps_its_type() -> None:
    """``{{ level }}`` in a body stays a number, not the text "50"."""
    rendered = Renderer().render_tree(
        {"brightness": "{{ level }}", "n": "x{{ level }}"}, {"level": 50}, "f"
    )
    assert rendered == {"brightness": 50, "n": "x50"}


def test_the_sandbox_refuses_private_attributes() -> None:
    """Reaching Python internals through ``__class__`` is refused, naming the field."""
    with pytest.raises(TemplateRenderError) as caught:
        Renderer().render("{{ ''.__class__.__mro__ }}", {}, "rest.url")
    assert caught.value.field == "rest.url"
    assert "unsafe" in caught.value.cause


def test_the_sandbox_refuses_mutating_a_list() -> None:
    """Immutable sandbox: ``append`` on a list is not allowed."""
    with pytest.raises(TemplateRenderError, match="unsafe"):
        Renderer().render("{{ items.append(1) }}", {"items": []}, "f")


def test_a_runaway_loop_stops_at_the_time_limit() -> None:
    """Nested loops end once the (injected) clock passes the deadline."""
    ticks = itertools.count()
    renderer = Renderer(time_limit=1000, clock=lambda: float(next(ticks)))
    source = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
    with pytest.raises(TemplateRenderError, match="time limit"):
        renderer.render(source, {}, "result.template")


def test_recursive_macros_stop() -> None:
    """A macro calling itself ends with an error, not a hang."""
    with pytest.raises(TemplateRenderError, match=r"recursion|time limit"):
        Renderer().render("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", {}, "f")


def test_output_is_capped() -> None:
    """A loop writing past the cap stops with an error."""
    renderer = Renderer(max_chars=1000)
    with pytest.raises(TemplateRenderError, match="longer than 1000"):
        renderer.render("{% for i in range(10000) %}xxxx{% endfor %}", {}, "f")


def test_doubling_a_string_is_capped() -> None:
    """Repeated concatenation cannot build a huge string between two checks."""
    renderer = Renderer(max_chars=1000)
    source = (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}"
    )
    with pytest.raises(TemplateRenderError, match="longer than 1000"):
        renderer.render(source, {}, "f")
    with pytest.raises(TemplateRenderError, match="longer than 1000"):
        renderer.render("{{ 'x' * 100000 }}", {}, "f")


def test_an_error_names_the_field_and_the_line() -> None:
    """An undefined variable on line 3 of a result template says so."""
    with pytest.raises(TemplateRenderError) as caught:
        Renderer().render("first\nsecond\n{{ missing }}", {}, "rest.result.template")
    assert caught.value.line == 3
    assert str(caught.value) == "template rest.result.template, line 3: 'missing' is undefined"


def test_a_syntax_error_names_its_line() -> None:
    """A broken tag is reported at its line before anything renders."""
    with pytest.raises(TemplateRenderError) as caught:
        Renderer().render("ok\n{% if %}", {}, "service.data.x")
    assert (caught.value.field, caught.value.line) == ("service.data.x", 2)


def test_text_without_markup_comes_back_as_written() -> None:
    """A literal, braces and all, is its own rendering, with no variables needed."""
    text = "metric } %} #} {x}"
    assert Renderer().render(text, {}, "rest.query.units") == text
    assert Renderer().render_native(text, {}, "rest.query.units") == text


def test_a_lone_variable_is_the_value_itself() -> None:
    """``{{ name }}`` gives the argument as it is; an unknown one is still an error."""
    renderer = Renderer()
    levels = [1, 2]
    assert renderer.render_native(" {{ levels }} ", {"levels": levels}, "f") is levels
    with pytest.raises(TemplateRenderError, match="'missing' is undefined"):
        renderer.render_native("{{ missing }}", {}, "f")


def test_a_lone_variable_past_the_cap_is_refused() -> None:
    """The size cap holds for a value passed through whole."""
    with pytest.raises(TemplateRenderError, match="longer than 10"):
        Renderer(max_chars=10).render_native("{{ big }}", {"big": "x" * 11}, "f")


# Each ends in ``| length``: the output is short, so only a check before building refuses it.
@pytest.mark.parametrize(
    "source",
    [
        '{{ ("%0200000000d" % 1) | length }}',
        '{{ ("%(n)0200000000d" % {"n": 1}) | length }}',
        '{{ ("%*d" % (200000000, 1)) | length }}',
        '{{ "{:>200000000}".format(1) | length }}',
        '{{ "{0:>{1}}".format(1, 200000000) | length }}',
        '{% set s = "a" * 200000 %}{{ ([s, s, s] | join) | length }}',
        '{% set s = "a" * 200000 %}{{ "-".join([s, s]) | length }}',
        '{{ ("ab" | replace("", "x" * 200000)) | length }}',
        '{{ (("a" * 2000) | replace("a", "b" * 2000)) | length }}',
        '{{ ("a" * 2000).replace("a", "b" * 2000) | length }}',
        '{{ (["a" * 200000] * 2) | length }}',
        '{{ ("a" * 10).ljust(200000000) | length }}',
    ],
)
def test_the_budget_covers_format_join_replace_and_repetition(source: str) -> None:
    """Each way to build a huge string from a small template is refused before it is built."""
    with pytest.raises(TemplateRenderError, match=r"longer than|format width"):
        Renderer().render(source, {}, "f")


def test_small_formatting_joins_and_replacements_still_work() -> None:
    """Ordinary uses of ``%``, ``join`` and ``replace`` are untouched by the budget."""
    source = '{{ "%05.1f" % 3.14159 }} {{ [1, 2] | join(",") }} {{ "a-b" | replace("-", "+") }}'
    assert Renderer().render(source, {}, "f") == "003.1 1,2 a+b"


def test_a_rendered_tree_is_json_a_tuple_a_list() -> None:
    """What a template produces in a tree is sent as JSON: a tuple becomes a list."""
    rendered = Renderer().render_tree({"pair": "{{ (1, 2) }}"}, {}, "data")
    assert rendered == {"pair": [1, 2]}
