"""Text checks shared by the edges that parse JSON or YAML from clients (API, panel, Wyoming).

And the name of what JSON text holds: :data:`JsonObject`; a tool list that keeps its own JSON
text: :class:`ToolSpecs`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import yaml
from yaml.composer import ComposerError
from yaml.error import Mark
from yaml.events import AliasEvent
from yaml.nodes import Node

type JsonScalar = str | int | float | bool | None
"""A JSON leaf."""

type JsonValue = JsonScalar | list[JsonValue] | dict[str, JsonValue]
"""What JSON text holds, recursively, as Home Assistant's ``util/json.py`` says it: no ``Any``,
so a reader narrows (``isinstance``) before it uses a value, and a misspelt key or a wrong
shape is a type error, not a surprise at run time. Used at the wire edges only: HTTP bodies,
the model's wire form, Home Assistant's messages, the store's JSON columns."""

type JsonArray = list[JsonValue]
"""A JSON array."""

type JsonObject = dict[str, JsonValue]
"""A JSON object whose keys are open by nature: a tool's arguments, a JSON schema, what a tool
answers, a body or event on the wire, a payload the store keeps as JSON. Where the keys are
known and the value crosses modules, a frozen dataclass says what each field is instead."""


class ToolSpecs(list[JsonObject]):
    """A turn's OpenAI ``tools`` list, which serialises itself once, however often it is sent.

    The same list goes out with every model call of a turn and into the trace of each: as
    plain dicts it was serialised once per call for the request body and once more for the
    store, about 70 µs each at a thousand entities. :attr:`json` is that text, made on first
    use, in the form both want (UTF-8, compact, as the openai package writes a body). The
    list is read only once built: nothing would refresh the text after a change.
    """

    __slots__ = ("_json",)

    def __init__(self, specs: Iterable[JsonObject] = ()) -> None:
        super().__init__(specs)
        self._json: str | None = None

    @property
    def json(self) -> str:
        """The list as compact JSON text (``allow_nan`` off, as a request body needs)."""
        if self._json is None:
            self._json = compact_json(self)
        return self._json


def compact_json(value: object) -> str:
    """``value`` as the openai package writes a request body: compact, UTF-8, no NaN."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses aliases (``*name``).

    Aliases let 521 bytes expand to 80 MB while the event loop waits (the "billion laughs");
    nothing users write here (tool definitions, Extended OpenAI functions, task files) needs
    them, so they are refused at the first one, with its line, rather than bounded.
    """

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        """Refuse an alias before PyYAML resolves it."""
        if self.check_event(AliasEvent):
            mark: Mark | None = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise ComposerError(None, None, "aliases (*name) are not allowed here", mark)
        return super().compose_node(parent, index)


def load_yaml(text: str) -> object:
    """``yaml.safe_load`` without aliases; raises ``yaml.YAMLError`` with a line, as it does."""
    return yaml.load(text, Loader=NoAliasLoader)


def dump_yaml(data: object) -> str:
    """Block YAML, keys in their order, each scalar on one line however long.

    PyYAML folds a long plain scalar at 80 columns, which splits a Jinja expression across
    lines (``{{ value_json.city`` on one, ``}}`` on the next) in what a person reads and
    edits; a width no line reaches keeps every template whole.
    """
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1 << 30
    )


def is_unicode(data: object) -> bool:
    r"""Whether every string in parsed JSON is Unicode text, as I-JSON (RFC 7493) requires.

    ``json.loads`` turns an escaped lone surrogate (``"\ud800"``) into a ``str`` that no encoder
    accepts; let in, it fails far from the edge: in the model call, the store, the reply itself.
    ``RecursionError`` passes through for data nested deeper than the encoder goes.
    """
    try:
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True
