"""Masking secret values wherever custom tools' and MCP servers' data goes: traces, results, logs.

A secret reaches a request in more than its raw form: percent-encoded in a query string or a
path, escaped in a JSON body, base64-encoded in a Basic ``Authorization`` header. Each form
:func:`addon.logs.secret_forms` knows is masked (the log filter masks the same ones); longer forms
first, so a secret that contains another is masked whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import overload

from addon.logs import header_secrets, secret_forms, url_secrets
from addon.text import JsonObject, JsonValue

MASK = "••••••"


class SecretMask:
    """Replaces every known form of every secret value with :data:`MASK`."""

    __slots__ = ("_forms",)

    def __init__(self, values: Iterable[str]) -> None:
        forms: set[str] = set()
        for value in values:
            forms |= secret_forms(value)
        self._forms = tuple(sorted(forms, key=len, reverse=True))

    @classmethod
    def of(cls, secrets: Mapping[str, str]) -> SecretMask:
        """The mask of every value in a secrets table."""
        return cls(secrets.values())

    @classmethod
    def of_connection(cls, url: str, header_values: Iterable[str]) -> SecretMask:
        """The mask of an MCP server's credentials: header values, bare tokens, URL credentials."""
        values = [secret for value in header_values for secret in header_secrets(value)]
        return cls([*values, *url_secrets(url)])

    def __bool__(self) -> bool:
        return bool(self._forms)

    def text(self, text: str) -> str:
        """``text`` with every secret form masked."""
        for form in self._forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """A copy of ``headers`` with every secret form masked in names and values."""
        return {self.text(name): self.text(value) for name, value in headers.items()}

    @overload
    def value(self, value: Mapping[str, JsonValue]) -> JsonObject: ...
    @overload
    def value(self, value: JsonValue) -> JsonValue: ...
    def value(self, value: JsonValue | Mapping[str, JsonValue]) -> JsonValue:
        """A copy of ``value`` (mappings, lists, strings) with every secret form masked."""
        if isinstance(value, Mapping):
            return {self.text(str(key)): self.value(item) for key, item in value.items()}
        if not self._forms:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value
