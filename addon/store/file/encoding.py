"""Text as SQLite can store it: lone surrogates become U+FFFD on the way in.

A Python string may hold a lone surrogate (U+D800 to U+DFFF alone: a model's output, or a
client's JSON with half of an escaped pair, decoded as it came), and SQLite takes only UTF-8,
which cannot encode one: the driver raises ``UnicodeEncodeError`` and the whole row is refused. The
store does not drop a turn for one bad character, so every text parameter of every statement
the store's engine runs is made encodable first (:func:`install`): each lone surrogate becomes
the replacement character, and valid text is passed on as the very same object. JSON columns
are serialised as UTF-8 text (:func:`dumps`) rather than ASCII escapes, so the same check sees
inside them too; readers get the same values back either way.

Cleaning at the engine, not field by field, covers every column (turn and reply text, model
calls and their payloads, tool arguments and results, errors, conversation ids) whoever writes
them, and a read with the same bad id finds the row stored under the cleaned one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPICursor, ExecutionContext


def storable(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD; ``text`` itself if it has none.

    Checking costs next to nothing for ASCII; otherwise one encode. A surrogate pair stored as
    two code points is joined into the character it stands for.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps`` builds an encoder for each call with options; a turn writes a dozen columns."""


def dumps(value: object) -> str:
    """The JSON columns' serialiser: UTF-8 text, which :func:`install`'s check then covers."""
    return _ENCODER.encode(value)


def install(engine: Engine) -> None:
    """Make every text parameter of ``engine``'s statements storable (see the module's doc)."""
    event.listen(engine, "before_cursor_execute", _storable_parameters, retval=True)


def _storable_parameters(
    _connection: Connection,
    _cursor: DBAPICursor,
    statement: str,
    parameters: object,
    _context: ExecutionContext | None,
    executemany: bool,
) -> tuple[str, object]:
    if executemany and isinstance(parameters, Sequence):
        return statement, [_storable_row(row) for row in parameters]
    return statement, _storable_row(parameters)


def storable_row(row: tuple[object, ...]) -> tuple[object, ...]:
    """A row of positional parameters made storable; the same tuple if it is already.

    For the writer's own connections, which run statements outside the engine
    (:mod:`addon.store.turns.driver`).
    """
    if all(type(value) is not str or value.isascii() for value in row):
        return row
    return tuple(_storable_value(value) for value in row)


def _storable_row(row: object) -> object:
    """One statement's parameters, the same object unless a value needed cleaning."""
    if isinstance(row, Mapping):
        if all(type(value) is not str or value.isascii() for value in row.values()):
            return row
        return {key: _storable_value(value) for key, value in row.items()}
    if isinstance(row, Sequence) and not isinstance(row, str):
        if all(type(value) is not str or value.isascii() for value in row):
            return row
        return tuple(_storable_value(value) for value in row)
    return row


def _storable_value(value: object) -> object:
    return storable(value) if isinstance(value, str) else value
