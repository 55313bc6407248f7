"""What a model answers when asked to extract memories, for the scripted model to send."""

from __future__ import annotations

import json
from typing import Any


def answer(*found: dict[str, Any]) -> str:
    """The JSON a model sends for ``found``."""
    return json.dumps({"memories": list(found)})


def memory(content: str, kind: str = "fact", importance: float = 0.6) -> dict[str, Any]:
    """One proposed memory with no entities or areas."""
    return {"content": content, "kind": kind, "importance": importance, "entities": [], "areas": []}


def facts(*contents: str) -> str:
    """An answer proposing ``contents`` as facts."""
    return answer(*(memory(content) for content in contents))
