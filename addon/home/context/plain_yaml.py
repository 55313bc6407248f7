"""Block YAML for the prompt's overviews, written directly when every scalar is plain.

An overview is mappings of names to mappings and lists of names. PyYAML spends nearly all of its
time on such data in its representer and serializer, which are Python even with libyaml: about 0.2
ms for the few dozen devices a large home selects for a turn, on the path of every turn. When every
key and item is a string PyYAML would write plain (no quotes) on a line it would not fold, the text
is written here instead, character for character what ``yaml.dump`` writes
(``tests/home/context/test_plain_yaml.py`` compares both over whole homes); anything else gives
None, and the caller asks PyYAML.
"""

from __future__ import annotations

import re

WIDTH = 80
"""PyYAML's preferred width: past it, a plain scalar may be folded at a space."""
LONGEST_KEY = 128
"""Past this, PyYAML writes a key in the explicit ``? key`` form."""
# Words YAML 1.1 reads as booleans or null when plain (checked case-blind, so a few more than
# PyYAML quotes: those go to PyYAML, which is never wrong).
RESERVED = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})
# A letter first (after an opening parenthesis), then letters, digits, spaces and marks that
# mean nothing to YAML inside a plain scalar in block context; no space last.
PLAIN = re.compile(r"\(?[^\W\d_][\w ,.'()/&+-]*(?<! )")


def plain(text: str) -> bool:
    """Whether PyYAML writes ``text`` as is, unquoted (see ``PLAIN`` and ``RESERVED``)."""
    return PLAIN.fullmatch(text) is not None and text.lower() not in RESERVED


def dump_plain(value: object) -> str | None:
    """``value`` as PyYAML's block style would write it, or None if it is not all plain."""
    lines: list[str] = []
    if isinstance(value, dict) and _mapping(value, 0, lines):
        return "\n".join(lines) + "\n"
    if isinstance(value, list) and _sequence(value, 0, lines):
        return "\n".join(lines) + "\n"
    return None


def _mapping(mapping: dict[object, object], indent: int, lines: list[str]) -> bool:
    if not mapping:
        return False
    pad = " " * indent
    for key, item in mapping.items():
        if type(key) is not str or not plain(key) or len(key) > LONGEST_KEY:
            return False
        if indent + len(key) + 1 > WIDTH:
            return False
        if type(item) is str:
            if not plain(item) or indent + len(key) + 2 + len(item) > WIDTH:
                return False
            lines.append(f"{pad}{key}: {item}")
            continue
        lines.append(f"{pad}{key}:")
        if isinstance(item, dict):
            if not _mapping(item, indent + 2, lines):
                return False
        elif isinstance(item, list):
            # PyYAML writes a sequence in a mapping at the key's own indent.
            if not _sequence(item, indent, lines):
                return False
        else:
            return False
    return True


def _sequence(sequence: list[object], indent: int, lines: list[str]) -> bool:
    if not sequence:
        return False
    pad = " " * indent
    for item in sequence:
        if type(item) is not str or not plain(item) or indent + 2 + len(item) > WIDTH:
            return False
        lines.append(f"{pad}- {item}")
    return True
