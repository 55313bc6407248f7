"""Text checks shared by the edges that parse JSON from clients (HTTP API, façade, Wyoming)."""

from __future__ import annotations

import json
from typing import Any


def is_unicode(data: Any) -> bool:
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
