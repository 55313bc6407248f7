"""Our subclasses of library classes use the libraries' public surface, never their internals.

A private attribute of a library's class (``AsyncEventHandler._is_running``) can change meaning
or vanish in any release; writing or reading it from a subclass ties us to one version without
a test saying so. For every class under addon/ this collects the ``self._name`` attributes and
``_name`` methods it uses and checks that no library class in its MRO uses the same name.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from functools import cache
from pathlib import Path

import addon


def private_names(source: str) -> set[str]:
    """Single-underscore names ``source`` uses as attributes or defines as methods."""
    names = set()
    for node in ast.walk(ast.parse(textwrap.dedent(source))):
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name
        else:
            continue
        if name.startswith("_") and not name.startswith("__"):
            names.add(name)
    return names


@cache
def source_private_names(cls: type) -> frozenset[str]:
    """:func:`private_names` of a class's source, read once per class."""
    return frozenset(private_names(inspect.getsource(cls)))


def library_bases(cls: type) -> list[type]:
    """The classes ``cls`` inherits from that are not ours and whose Python source we can read."""
    bases = []
    for base in cls.__mro__[1:]:
        if base.__module__.split(".")[0] in {"addon", "builtins", "typing", "abc"}:
            continue
        try:
            source_private_names(base)
        except (OSError, TypeError):  # written in C, or generated: nothing private to reach
            continue
        bases.append(base)
    return bases


def our_classes() -> list[type]:
    """Every class defined in a module under addon/ (Alembic runs the migrations, not us)."""
    root = Path(addon.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if "migrations" in parts:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        module = importlib.import_module(name)
        found.extend(
            value
            for value in vars(module).values()
            if inspect.isclass(value) and value.__module__ == name
        )
    return found


def test_no_class_uses_a_private_name_of_a_library_base() -> None:
    """No ``self._x`` of ours is also a private attribute or method of a library base class."""
    shared = {
        f"{cls.__module__}.{cls.__qualname__} uses {base.__module__}.{base.__qualname__}.{name}"
        for cls in our_classes()
        for base in library_bases(cls)
        for name in source_private_names(cls) & source_private_names(base)
    }
    assert shared == set()
