"""No function in ``addon/agent/`` runs over 60 lines (issue 38).

The agent is where a turn's order of work has to stay readable: a function that grows past a
screen hides that order (the turn, the local path and the model path had grown to 100-150
lines each). Counted from the ``def`` line to the last line, docstring included; a function
that needs more is split into helpers with one job each.
"""

from __future__ import annotations

import ast
from pathlib import Path

AGENT = Path(__file__).resolve().parents[2] / "addon" / "agent"
MAX_LINES = 60


def long_functions() -> list[str]:
    """Every function or method in the agent package longer than :data:`MAX_LINES`."""
    found: list[str] = []
    for path in sorted(AGENT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_LINES:
                found.append(f"{path.relative_to(AGENT.parents[1])}:{node.name} ({lines} lines)")
    return found


def test_the_agent_package_is_read_by_this_test() -> None:
    """The check looks where the agent's code is, so an empty result means something."""
    assert (AGENT / "service.py").is_file()
    assert len(list(AGENT.rglob("*.py"))) > 20


def test_no_agent_function_is_over_sixty_lines() -> None:
    """Every function in addon/agent/ fits in 60 lines, docstring included."""
    assert long_functions() == []
