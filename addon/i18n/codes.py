"""Reading the language codes that requests carry ("de", "de-DE", "pt_BR", "EN")."""

from __future__ import annotations

import re

_SEPARATOR = re.compile(r"[-_]")


def base_language(code: str) -> str:
    """The language without its region or script, lower-cased: "de-DE" → "de"."""
    return _SEPARATOR.split(code.strip(), maxsplit=1)[0].casefold()
