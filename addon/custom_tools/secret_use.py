"""Where a definition uses secrets: the names it writes, and the fields they may go into.

A secret goes only into a ``rest`` request (its ``url``, ``query``, ``headers`` and ``body``,
also as a composite's ``rest`` step); anywhere else (a result template, a service's data, a Home
Assistant template) a template could hand the value to the model, so the definition is refused
with the field named. Only template markup counts: the word "secrets" in plain text is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

REQUEST_FIELDS = ("url", "query", "headers", "body")
"""Where a ``rest`` request may use a secret: nowhere else in any definition."""
_MARKUP_BLOCK = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_SECRETS_WORD = re.compile(r"\bsecrets\b")
_SECRET_REFERENCE = re.compile(
    r"\bsecrets\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*[\'\"]([^\'\"]+)[\'\"]\s*\])"
)


def secret_references(text: str) -> set[str]:
    """The secret names ``text``'s template markup names literally."""
    names: set[str] = set()
    for block in _MARKUP_BLOCK.findall(text):
        for match in _SECRET_REFERENCE.finditer(block):
            names.add(match.group(1) or match.group(2))
    return names


def _uses_secrets(text: str) -> bool:
    return any(_SECRETS_WORD.search(block) for block in _MARKUP_BLOCK.findall(text))


def settings_texts(value: object, path: str, kind: str) -> Iterator[tuple[str, str, bool]]:
    """Every string in a kind's dumped settings: (path, text, whether a rest request holds it)."""
    if isinstance(value, str):
        head = path.split(".")
        # ``rest.url``, ``composite.steps.0.rest.headers.X``: the field after the kind's name.
        field = head[head.index(kind) + 1] if kind in head[:-1] else ""
        yield path, value, kind == "rest" and field in REQUEST_FIELDS
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from settings_texts(item, f"{path}.{key}", kind)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from settings_texts(item, f"{path}.{index}", kind)


def secret_problems(
    texts: Iterable[tuple[str, str, bool]], declared: list[str] | None
) -> list[tuple[str, str]]:
    """Secrets named outside a rest request, or (with a declaration) not among those declared."""
    problems = []
    for path, text, request in texts:
        if not _uses_secrets(text):
            continue
        if not request:
            problems.append(
                (
                    path,
                    "a secret can go only into a rest request (its url, query, headers or "
                    "body), never into a result or another kind",
                )
            )
        elif declared is not None:
            undeclared = sorted(secret_references(text) - set(declared))
            if undeclared:
                problems.append((path, f"uses secrets {undeclared} not declared under 'secrets'"))
    return problems
