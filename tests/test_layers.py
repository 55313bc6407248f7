"""The layering of docs/ARCHITECTURE.md, read from the imports of every module under addon/.

Each module belongs to a component: a package under ``addon/``, the shared base (``errors``,
``logs``, ``health`` and the package root), ``keys``, or the app's wiring (``app``,
``__main__`` and the ``lifecycle`` modules that open a package as an app resource). A component
imports exactly the components :data:`EDGES` lists, all below it. Imports under ``TYPE_CHECKING``
count too: a cycle in the types is still a cycle in the design.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import addon

ADDON = Path(addon.__file__).parent

# The modules that wire packages into the aiohttp app: the composition root and the lifecycle
# of every package that is an app resource.
WIRING = frozenset(
    {"addon.app", "addon.__main__"}
    | {
        f"addon.{package}.lifecycle"
        for package in (
            "store",
            "ha",
            "llm",
            "embeddings",
            "memory",
            "custom_tools",
            "mcp_client",
            "agent",
            "wyoming",
            "eval",
            "web",
        )
    }
)
BASE = frozenset({"addon", "addon.errors", "addon.logs", "addon.health", "addon.text"})
# Packages whose sub-packages are each a component: ``home/model``, ``home/targeting`` and so on.
# The package's own ``__init__`` (a docstring) is the component ``home``, which imports nothing.
DIVIDED = frozenset({"home"})

# What each component imports besides itself, from the bottom of the diagram up: exactly the edges
# in use, so a new edge fails the test until it is added here (and in docs/ARCHITECTURE.md), and an
# edge no longer used fails it until it is taken out.
EDGES: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "config": frozenset({"base"}),
    # Home Agent's own words per language: every layer that speaks may use them.
    "i18n": frozenset({"base"}),
    "store": frozenset({"base"}),
    "llm": frozenset({"base"}),
    # One source of text vectors for memory recall and a large home's selection.
    "embeddings": frozenset({"base"}),
    # ``home``'s package root is a docstring; its parts, from the bottom up: the live model and its
    # indexes, target matching, the context selection for large homes, actions and executors.
    "home": frozenset(),
    "home/model": frozenset({"base"}),
    "home/targeting": frozenset({"home/model"}),
    # Names and overviews reach the model with tool-call markup broken (``llm/outside_text.py``).
    "home/context": frozenset({"base", "embeddings", "home/model", "llm"}),
    # A question's subject drops the filler words of ``home/context/lexicon.py``.
    "home/actions": frozenset({"base", "home/context", "home/model", "home/targeting", "i18n"}),
    "ha": frozenset({"base", "home/actions", "home/model"}),
    # Long-term memory: extraction asks the model, the store keeps; the agent drives it.
    "memory": frozenset({"base", "embeddings", "llm", "store"}),
    "local": frozenset({"base", "home/actions", "home/model", "home/targeting", "i18n"}),
    # Custom tools run the user's definitions; the tools package adapts them to the registry.
    "custom_tools": frozenset({"base", "home/actions"}),
    # The memory tools adapt the memory service to the registry and confirm in the user's words.
    "tools": frozenset(
        {
            "base",
            "custom_tools",
            "home/actions",
            "home/context",
            "home/model",
            "home/targeting",
            "i18n",
            "llm",
            "memory",
        }
    ),
    # MCP servers' tools: registry tools (like custom tools), their secrets masked the same way.
    "mcp_client": frozenset({"base", "custom_tools", "home/actions", "tools"}),
    "agent": frozenset(
        {
            "base",
            "config",
            "embeddings",
            "home/actions",
            "home/context",
            "home/model",
            "home/targeting",
            "i18n",
            "llm",
            "local",
            "memory",
            "store",
            "tools",
        }
    ),
    "wyoming": frozenset({"agent", "base", "i18n"}),
    # Evaluation runs the agent on a virtual home: it sits beside the endpoints, not below them.
    "eval": frozenset(
        {"agent", "base", "config", "home/actions", "home/model", "llm", "local", "store"}
    ),
    # The pages speak the add-on's own words (i18n) and read a stored tool result the way the
    # agent does (``tools/result.py``), so the trace badges a call that did nothing.
    "web": frozenset(
        {
            "agent",
            "base",
            "config",
            "custom_tools",
            "eval",
            "home/actions",
            "home/model",
            "i18n",
            "keys",
            "store",
            "tools",
        }
    ),
    # The keys name everything the app holds, for type checking only.
    "keys": frozenset(
        {
            "agent",
            "base",
            "config",
            "custom_tools",
            "embeddings",
            "eval",
            "ha",
            "llm",
            "local",
            "mcp_client",
            "memory",
            "store",
            "tools",
            "wyoming",
        }
    ),
    # The composition root and the lifecycles: everything but the layering's own order.
    "wiring": frozenset(
        {
            "agent",
            "base",
            "config",
            "custom_tools",
            "embeddings",
            "eval",
            "ha",
            "home/actions",
            "i18n",
            "keys",
            "llm",
            "local",
            "mcp_client",
            "memory",
            "store",
            "tools",
            "web",
            "wyoming",
        }
    ),
}

# The endpoints reach the agent only through its public face: the agent, its request/result, and
# how a streamed reply is pieced together (so every endpoint sends what the listener heard).
AGENT_FACE = frozenset(
    {
        "addon.agent.service",
        "addon.agent.conversation",
        "addon.agent.spoken",
        # Drafted automations: the page changes them, evaluation keeps its run's drafts.
        "addon.agent.automations",
    }
)
# The agent reaches the store only through its facade and the records it hands over.
STORE_FACE = {
    "addon.store.turns": frozenset(
        {"ConversationRecords", "TurnRecord", "LLMCallRecord", "ToolCallRecord", "OutcomeUpdate"}
    ),
    # Drafted automations: the agent's drafts service keeps them through their repository.
    "addon.store.automations": frozenset({"DraftRecords", "StoredDraft"}),
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
    """The component ``module`` belongs to: ``home``'s sub-packages are components of their own."""
    if module in WIRING:
        return "wiring"
    if module in BASE:
        return "base"
    parts = module.split(".")
    if parts[1] in DIVIDED and len(parts) > 2:
        return f"{parts[1]}/{parts[2]}"
    return parts[1]


def component_edges() -> dict[str, set[str]]:
    """The components each component imports, read from the code."""
    used: dict[str, set[str]] = {name: set() for name in EDGES}
    for found in imports():
        importer, imported = component(found.importer), component(found.imported)
        if importer != imported:
            used.setdefault(importer, set()).add(imported)
    return used


def test_every_module_belongs_to_a_known_component() -> None:
    """A new package must be placed in the layering before it can be imported."""
    assert {component(name) for name in modules()} <= set(EDGES)


def test_every_import_between_components_is_in_the_table() -> None:
    """An import that crosses components is one of the table's edges: a new one is deliberate."""
    crossing = [
        f"{found} ({component(found.importer)} -> {component(found.imported)})"
        for found in imports()
        if component(found.imported) != component(found.importer)
        and component(found.imported) not in EDGES[component(found.importer)]
    ]
    assert crossing == []


def test_every_edge_in_the_table_is_in_use() -> None:
    """The table lists no edge the code does not use, so it cannot hide one being added."""
    used = component_edges()
    unused = {
        (importer, imported)
        for importer, allowed in EDGES.items()
        for imported in allowed
        if imported not in used.get(importer, set())
    }
    assert unused == set()


def documented_edges() -> dict[str, frozenset[str]]:
    """The table "Who may import whom" of docs/ARCHITECTURE.md, by component."""
    text = (ADDON.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = text.split("| component | imports |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    table: dict[str, frozenset[str]] = {}
    for row in rows:
        name, imported = (cell.strip() for cell in row.strip("|").split("|"))
        table[_documented(name)] = frozenset(
            _documented(item) for item in imported.split(", ") if item != "nothing of ours"
        )
    return table


def _documented(cell: str) -> str:
    """The component a cell of the table names: base, the wiring, `keys.py` or `name/`."""
    if cell.startswith("base"):
        return "base"
    if cell.startswith("the wiring"):
        return "wiring"
    return cell.strip("`").removesuffix("/").removesuffix(".py")


def test_the_documented_table_is_the_tests_table() -> None:
    """docs/ARCHITECTURE.md lists the same edges as :data:`EDGES`, so the map stays true."""
    assert documented_edges() == EDGES


def test_components_import_one_way() -> None:
    """No two components import each other, however long the cycle: the table is a layering."""
    assert strongly_connected(component_edges()) == []


def test_no_two_modules_import_each_other() -> None:
    """The module import graph has no cycle, however long."""
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for found in imports():
        if found.imported in graph and found.imported != found.importer:
            graph[found.importer].add(found.imported)
    assert strongly_connected(graph) == []


def test_the_web_and_its_parts_import_one_way() -> None:
    """``web``'s own modules, ``web/api``, ``web/ui`` and ``web/mcp`` form no cycle among them."""

    def part(module: str) -> str:
        parts = module.split(".")
        return (
            ".".join(parts[:3])
            if len(parts) > 2 and parts[2] in {"api", "ui", "mcp"}
            else "addon.web"
        )

    graph: dict[str, set[str]] = {}
    for found in imports():
        if component(found.importer) == component(found.imported) == "web":
            importer, imported = part(found.importer), part(found.imported)
            graph.setdefault(importer, set())
            graph.setdefault(imported, set())
            if importer != imported:
                graph[importer].add(imported)
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
