"""Masking secret values wherever custom tools' data goes: traces, logs, try-it output, events.

A secret reaches a request in more than its raw form: percent-encoded in a query string (as
:mod:`urllib` writes it, and as yarl does, which leaves ``/ : @ ?`` as they are and writes a space
as ``+``), in a path, escaped in a JSON body, base64-encoded in a Basic ``Authorization`` header.
Each form is masked; longer values first, so a secret that contains another is masked whole.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

import yarl

MASK = "••••••"


class SecretMask:
    """Replaces every known form of every secret value with :data:`MASK`."""

    __slots__ = ("_forms",)

    def __init__(self, values: Iterable[str]) -> None:
        forms: set[str] = set()
        for value in values:
            if not value:
                continue
            forms.update(
                {
                    value,
                    quote(value, safe=""),
                    quote_plus(value),
                    json.dumps(value, ensure_ascii=False)[1:-1],
                    json.dumps(value)[1:-1],
                }
            )
            forms.update(_url_forms(value))
            forms.update(_base64_forms(value))
        self._forms = tuple(sorted(forms, key=len, reverse=True))

    @classmethod
    def of(cls, secrets: Mapping[str, str]) -> SecretMask:
        """The mask of every value in a secrets table."""
        return cls(secrets.values())

    def __bool__(self) -> bool:
        return bool(self._forms)

    def text(self, text: str) -> str:
        """``text`` with every secret form masked."""
        for form in self._forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def value(self, value: Any) -> Any:
        """A copy of ``value`` (mappings, lists, strings) with every secret form masked."""
        if not self._forms:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(key)): self.value(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value


def _url_forms(value: str) -> set[str]:
    """The secret as yarl writes it in a query value and in a path (the rest kind's URLs)."""
    base = yarl.URL("http://h/")
    try:
        return {
            base.with_query({"k": value}).raw_query_string.removeprefix("k="),
            base.joinpath(value).raw_path.removeprefix("/"),
        }
    except ValueError:  # not a valid path segment; then it cannot be in a path either
        return {base.with_query({"k": value}).raw_query_string.removeprefix("k=")}


def _base64_forms(value: str) -> set[str]:
    """The secret inside base64 text, as in ``user:secret`` of Basic auth, at each alignment.

    Base64 encodes three bytes at a time, so inside a longer text the secret shows as the
    encoding of its bytes from the first group boundary on; one form per possible boundary.
    """
    raw = value.encode()
    forms = set()
    for shift in range(3):
        chunk = raw[shift:]
        chunk = chunk[: len(chunk) // 3 * 3]
        if len(chunk) >= 6:
            forms.add(base64.b64encode(chunk).decode())
    return forms
