"""YAML aliases are refused wherever users hand us YAML: nothing expands while the loop waits."""

from __future__ import annotations

import pytest

from addon.custom_tools.extended_openai import import_functions
from addon.errors import CustomToolInvalid, TaskFileInvalid
from addon.eval.tasks import parse_task_file
from addon.web.ui.tool_editor import SourceInvalid, parse_source

# Small on purpose: the same document with nine levels of nine is the 80 MB "billion laughs".
ALIASED = "a: &x [1, 2]\nb: [*x, *x]\n"


def test_the_tool_editor_refuses_aliases() -> None:
    """The editor's YAML with an alias is a problem on its line, not a definition."""
    with pytest.raises(SourceInvalid) as caught:
        parse_source("name: t\ndescription: &d x\nkind: *d\n")
    assert caught.value.placed[0].line == 3


def test_the_extended_openai_import_refuses_aliases() -> None:
    """An Extended OpenAI function file with an alias is refused whole."""
    text = "- spec: &s {name: a}\n  function: {type: template, value_template: x}\n- spec: *s\n"
    with pytest.raises(CustomToolInvalid, match="aliases"):
        import_functions(text)


def test_a_task_file_with_aliases_is_refused() -> None:
    """The Evaluate page's task files are YAML from users too."""
    with pytest.raises(TaskFileInvalid, match="aliases"):
        parse_task_file(ALIASED)
