"""The layering of docs/ARCHITECTURE.md, read from the imports of every module under addon/.

Each module belongs to a component: a package under ``addon/``, the shared base (``errors``,
``logs``, ``health`` and the package root), ``keys``, or the app's wiring (``app``,
``__main__`` and the ``lifecycle`` modules that open a package as an app resource). A component
may import only those below it, as :data:`ALLOWED` lists them. Imports under ``TYPE_CHECKING``
count too: a cycle in the types is still a cycle in the design.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import addon

ADDON = Path(addon.__file__).parent

# The modules that wire packages into the aiohttp app; the store has none (app.py wires it).
WIRING = frozenset(
    {"addon.app", "addon.__main__"}
    | {f"addon.{package}.lifecycle" for package in ("ha", "llm", "agent", "wyoming", "eval")}
)
BASE = frozenset({"addon", "addon.errors", "addon.logs", "addon.health", "addon.text"})

# What each component may import besides itself, from the bottom of the diagram up.
ALLOWED: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "config": frozenset({"base"}),
    # Home Agent's own words per language: every layer that speaks may use them.
    "i18n": frozenset({"base"}),
    "store": frozenset({"base"}),
    "home": frozenset({"base"}),
    "llm": frozenset({"base"}),
    "ha": frozenset({"base", "home"}),
    # Long-term memory: extraction asks the model, the store keeps; the agent drives it.
    "memory": frozenset({"base", "config", "i18n", "llm", "store", "home"}),
    "local": frozenset({"base", "home", "i18n"}),
    # Custom tools run the user's definitions; the tools package adapts them to the registry.
    "custom_tools": frozenset({"base", "config", "i18n", "home"}),
    # The memory tools adapt the memory service to the registry and confirm in the user's words.
    "tools": frozenset({"base", "home", "i18n", "custom_tools", "memory"}),
    "agent": frozenset(
        {"base", "config", "i18n", "home", "llm", "local", "memory", "store", "tools"}
    ),
    # MCP servers' tools: registry tools (like custom tools), their secrets masked the same way.
    "mcp_client": frozenset({"base", "home", "custom_tools", "tools"}),
    "wyoming": frozenset({"base", "config", "i18n", "home", "agent"}),
    # Evaluation runs the agent on a virtual home: it sits beside the endpoints, not below them.
    "eval": frozenset({"base", "config", "i18n", "home", "llm", "local", "store", "agent"}),
    "web": frozenset(
        {"base", "config", "i18n", "home", "store", "agent", "keys", "custom_tools", "eval"}
    ),
    # The keys name everything the app holds, for type checking only.
    "keys": frozenset(
        {
            "base",
            "config",
            "store",
            "llm",
            "local",
            "ha",
            "agent",
            "wyoming",
            "custom_tools",
            "eval",
            "mcp_client",
        }
    ),
    "wiring": frozenset(
        {
            "base",
            "config",
            "i18n",
            "store",
            "home",
            "llm",
            "ha",
            "local",
            "memory",
            "custom_tools",
            "tools",
            "mcp_client",
            "agent",
            "wyoming",
            "eval",
            "web",
            "keys",
        }
    ),
}

# The endpoints reach the agent only through its public face: the agent, its request/result, and
# how a streamed reply is pieced together (so every endpoint sends what the listener heard).
AGENT_FACE = frozenset({"addon.agent.service", "addon.agent.conversation", "addon.agent.spoken"})
# The agent reaches the store only through its facade and the records it hands over.
STORE_FACE = {
    "addon.store.records": frozenset({"ConversationRecords"}),
    "addon.store.conversations": frozenset(
        {"TurnRecord", "LLMCallRecord", "ToolCallRecord", "OutcomeUpdate"}
    ),
}


@dataclass(frozen=True, slots=True)
class Import:
    """One module imported by another, with the names taken from it (empty for ``import x``)."""

    importer: str
    imported: str
    names: tuple[str, ...]
    line: int

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} imports {self.imported}"


def modules() -> dict[str, Path]:
    """Every module under addon/ by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for path in sorted(ADDON.rglob("*.py")):
        parts = list(path.relative_to(ADDON.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports() -> Iterator[Import]:
    """Every import of one addon module by another, ``from addon import keys`` as addon.keys."""
    known = modules()
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "addon":
                        yield Import(name, alias.name, (), node.lineno)
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                assert node.level == 0, f"{name}:{node.lineno} uses a relative import"
                if node.module.split(".")[0] != "addon":
                    continue
                names = []
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    if submodule in known:
                        yield Import(name, submodule, (), node.lineno)
                    else:
                        names.append(alias.name)
                if names:
                    yield Import(name, node.module, tuple(names), node.lineno)


def component(module: str) -> str:
    """The component ``module`` belongs to."""
    if module in WIRING:
        return "wiring"
    if module in BASE:
        return "base"
    return module.split(".")[1]


def test_every_module_belongs_to_a_known_component() -> None:
    """A new package must be placed in the layering before it can be imported."""
    assert {component(name) for name in modules()} <= set(ALLOWED)


def test_no_component_imports_one_above_it() -> None:
    """The store, home, tools, local and the rest import only what lies below them."""
    upward = [
        f"{found} ({component(found.importer)} -> {component(found.imported)})"
        for found in imports()
        if component(found.imported) != component(found.importer)
        and component(found.imported) not in ALLOWED[component(found.importer)]
    ]
    assert upward == []


def test_no_two_modules_import_each_other() -> None:
    """The module import graph has no cycle, however long."""
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for found in imports():
        if found.imported in graph and found.imported != found.importer:
            graph[found.importer].add(found.imported)
    assert strongly_connected(graph) == []


def test_endpoints_use_only_the_agents_public_face() -> None:
    """Wyoming, the web and evaluation hand requests to the Agent and read results, nothing else."""
    reaching_in = [
        str(found)
        for found in imports()
        if component(found.importer) in {"web", "wyoming", "eval"}
        and component(found.imported) == "agent"
        and found.imported not in AGENT_FACE
    ]
    assert reaching_in == []


def test_agent_uses_the_store_only_through_its_records() -> None:
    """The agent never drives the writer or opens sessions: ConversationRecords is its store."""
    reaching_in = [
        f"{found} {found.names}"
        for found in imports()
        if component(found.importer) == "agent"
        and component(found.imported) == "store"
        and not (found.names and set(found.names) <= STORE_FACE.get(found.imported, frozenset()))
    ]
    assert reaching_in == []


def test_only_the_web_and_the_wiring_know_the_aiohttp_app() -> None:
    """``aiohttp.web`` belongs to the app: the store and the domain packages never import it."""
    users = set()
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Import) and any(a.name == "aiohttp.web" for a in node.names)
            ) or (
                isinstance(node, ast.ImportFrom)
                and (
                    node.module == "aiohttp.web"
                    or (node.module == "aiohttp" and any(a.name == "web" for a in node.names))
                )
            ):
                users.add(name)
    assert {name for name in users if component(name) not in {"web", "keys", "wiring"}} == set()


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of ``graph``: its strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                cycles.append(sorted(members))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles
