"""The image carries no code only tests, benchmarks or development tools use.

Counted as used: a name the product's own code (addon/) reads, as a name or an attribute, or
one the web UI's templates mention. Defined: every module-level function, class, constant and
type alias, and every method and property of a module-level class. A method a library calls
by name (an override of its base class, a pydantic validator, a Jinja node visitor's
``visit_<Node>``) is used by that library.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "addon" / "store" / "migrations"

# Used by name from outside Python, or kept on purpose; each with its reason.
USED_ELSEWHERE = {
    # Alembic calls a revision's upgrade() and downgrade() by name.
    "downgrade": "alembic",
    # Declares id_counters in the metadata; addon/store/turns/ids.py reserves ids in it with plain
    # SQL.
    "IdCounter": "schema",
    # Home Assistant's response templates (home-assistant-intents' YAML) read state.state_with_unit.
    "state_with_unit": "response templates",
    # hassil's normalising steps call them on addon/local/forms.py's _Text (its TrackedText's
    # interface, without the offsets).
    "normalize_unicode": "hassil",
    "replace_char": "hassil",
}

# The product's few seams for tests, benches and tools: each lets them observe or drive what the
# product does without sleeping or reaching into private state.
TEST_SEAMS = {
    # Lets a test see a checkpoint round that chose not to checkpoint, instead of sleeping.
    "next_round": "store",
    # The writer's own connections, for tests that watch its statements or break its driver.
    "batch_connections": "store",
    # The first exact local match of a sentence: the benches' and tests' one-call reading.
    "recognize": "local",
}


@dataclass(frozen=True, slots=True)
class Definition:
    """A name the product defines, where, and (for a method) on which class."""

    name: str
    path: Path
    owner: str | None = None
    decorators: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f"{self.owner}.{self.name}" if self.owner else self.name
        return f"{self.path.relative_to(ROOT)}: {where}"


def _module_names(node: ast.stmt) -> list[str]:
    """The names a module-level assignment or type alias binds."""
    if isinstance(node, ast.Assign):
        return [target.id for target in node.targets if isinstance(target, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.TypeAlias) and isinstance(node.name, ast.Name):
        return [node.name.id]
    return []


def _defined_and_used() -> tuple[list[Definition], set[str]]:
    """Everything addon/ defines at module and class level, and every name its code reads."""
    defined: list[Definition] = []
    used: set[str] = set()
    for path in sorted((ROOT / "addon").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
        migration = MIGRATIONS in path.parents
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                defined.append(Definition(node.name, path))
            elif isinstance(node, ast.ClassDef):
                defined.append(Definition(node.name, path))
                defined.extend(
                    Definition(
                        item.name,
                        path,
                        node.name,
                        tuple(ast.unparse(decorator) for decorator in item.decorator_list),
                    )
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not (item.name.startswith("__") and item.name.endswith("__"))
                )
            elif not migration:
                defined.extend(
                    Definition(name, path)
                    for name in _module_names(node)
                    if name not in {"__all__", "_LOGGER"}
                )
    return defined, used


def _called_by_a_library(definition: Definition) -> bool:
    """A method a library calls by its name: an override, a validator, a node visitor."""
    if definition.owner is None:
        return False
    if any("validator" in decorator for decorator in definition.decorators):
        return True
    module = ".".join(definition.path.relative_to(ROOT).with_suffix("").parts)
    owner = getattr(importlib.import_module(module), definition.owner)
    bases = [base for base in owner.__mro__[1:] if base.__module__.split(".")[0] != "addon"]
    if any(hasattr(base, definition.name) for base in bases):
        return True
    return definition.name.startswith("visit_") and any(hasattr(b, "visit") for b in bases)


def test_everything_addon_defines_is_used_by_the_product() -> None:
    """A function, class, method, property or constant nothing in the product reads is dead."""
    defined, used = _defined_and_used()
    templates = " ".join(
        path.read_text(encoding="utf-8") for path in (ROOT / "webui").rglob("*.html")
    )
    unused = [
        str(definition)
        for definition in defined
        if definition.name not in used
        and definition.name not in templates
        and definition.name not in USED_ELSEWHERE
        and definition.name not in TEST_SEAMS
        and not _called_by_a_library(definition)
    ]
    assert unused == []


def test_the_allowed_names_are_still_defined_and_still_unread() -> None:
    """An entry that became used, or whose definition is gone, is taken off its list."""
    defined, used = _defined_and_used()
    names = {definition.name for definition in defined}
    allowed = {**USED_ELSEWHERE, **TEST_SEAMS}
    assert sorted(name for name in allowed if name not in names or name in used) == []
