"""What the service's memory at start is made of: run by bench/startup.py in a process of its own.

Imports ``addon.__main__`` as ``python -m addon`` does and loads the configured language's
sentences as the agent's warm-up does, and attributes the growth of the resident set to each
top-level package as it is first imported (a package's own imports of other new packages count
for those), plus the sentences. Prints one JSON object: ``{name: MB}``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Measured(importlib.abc.Loader):
    """A loader that measures the resident set around a top-level module's execution."""

    def __init__(self, loader: Any, name: str, figures: dict[str, float], stack: list[float]):
        self.loader, self.name, self.figures, self.stack = loader, name, figures, stack

    def __getattr__(self, attribute: str) -> Any:
        """Everything else (resource readers, ``get_data``) is the real loader's."""
        return getattr(self.loader, attribute)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        """The real loader's module."""
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        """Run the module, counting what it grew less what the packages it imported grew."""
        before = rss_mb()
        self.stack.append(0.0)
        try:
            self.loader.exec_module(module)
        finally:
            nested = self.stack.pop()
            grown = rss_mb() - before
            self.figures[self.name] = self.figures.get(self.name, 0.0) + grown - nested
            if self.stack:
                self.stack[-1] += grown


class TopLevel(importlib.abc.MetaPathFinder):
    """Wraps the loader of every top-level module imported from now on."""

    def __init__(self) -> None:
        self.figures: dict[str, float] = {}
        self.stack: list[float] = []

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """The spec the other finders give, its loader measured."""
        if "." in name:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = Measured(spec.loader, name, self.figures, self.stack)
                return spec
        return None


def main() -> None:
    finder = TopLevel()
    sys.meta_path.insert(0, finder)
    importlib.import_module("addon.__main__")
    from addon.app import create_app  # noqa: F401 (what __main__ builds)
    from addon.local.library import SentenceLibrary

    before = rss_mb()
    SentenceLibrary().prepare("en")
    finder.figures["sentences (en)"] = rss_mb() - before
    print(json.dumps({name: round(mb, 1) for name, mb in finder.figures.items()}))


if __name__ == "__main__":
    main()
