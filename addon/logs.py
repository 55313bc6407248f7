r"""Logging set-up, and what a secret looks like written down: masked in every record.

Home Assistant's level names; a filter on the add-on log's handler that replaces every known
secret, in every form it is commonly written in, with a mask. The same forms serve the custom
tools' and MCP servers' masks (``addon/custom_tools/secrets_mask.py``), so a log line, a trace and
a tool result agree on what counts as a secret:

- the value itself, percent-encoded (``quote``, ``quote_plus`` and yarl's query and path forms,
  the hex digits in either case);
- JSON-escaped (non-ASCII as ``\\uXXXX`` or not, ``/`` as ``\\/``, and HTML-safe encoders'
  ``\\u0026``-style escapes of punctuation, in either case);
- base64 (standard and URL-safe, whole or inside a longer text at each alignment, as in the
  ``user:password`` of a Basic header), down to three bytes;
- for a header value such as ``Bearer <token>``, the bare token too; for a URL, its userinfo and
  the values of credential-like query parameters (``key``, ``token``, ``secret`` ...).
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import re
import sys
import time
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit

import yarl

TRACE = 5
NOTICE = 25
LEVELS = {
    "trace": TRACE,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": NOTICE,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "fatal": logging.CRITICAL,
}
MASK = "**********"
MIN_LOGGED_SECRET = 4
"""Shorter values are not masked in the log: they would mask ordinary words and numbers."""
_PERCENT = re.compile(r"%[0-9A-F]{2}")
_UNICODE_ESCAPE = re.compile(r"\\u[0-9A-F]{4}")
_HTML_UNSAFE = "&<>'=+"
_CREDENTIAL_PARAM = re.compile(
    r"key|token|secret|pass|auth|sig|credential|session|code", re.IGNORECASE
)
_AUTH_SCHEME = re.compile(r"^\s*[A-Za-z][A-Za-z0-9._~+/-]*\s+(\S.*?)\s*$")


def secret_forms(value: str) -> set[str]:
    """Every common written form of ``value`` (see the module's docstring); empty for ''."""
    if not value:
        return set()
    forms = {value, quote(value, safe=""), quote_plus(value), *_yarl_forms(value)}
    forms |= {_PERCENT.sub(lambda m: m.group(0).lower(), form) for form in forms}
    forms |= _json_forms(value)
    forms |= _base64_forms(value)
    forms.discard("")
    return forms


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form of ``secrets`` masked: for text about to be cut, before the cut."""
    forms = {
        form
        for secret in secrets
        if len(secret) >= MIN_LOGGED_SECRET
        for form in secret_forms(secret)
        if len(form) >= MIN_LOGGED_SECRET
    }
    for form in sorted(forms, key=len, reverse=True):
        if form in text:
            text = text.replace(form, MASK)
    return text


def header_secrets(value: str) -> list[str]:
    """A header value as a secret: the whole value and, after a scheme word, the bare token."""
    values = [value]
    match = _AUTH_SCHEME.match(value)
    if match is not None:
        values.append(match.group(1))
    return values


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: userinfo and credential-like query parameters' values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    if parts.username:
        found.append(unquote(parts.username))
    if parts.password:
        found.append(unquote(parts.password))
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if _CREDENTIAL_PARAM.search(name):
            found.append(value)
    return found


def _yarl_forms(value: str) -> set[str]:
    """The secret as yarl writes it in a query value and in a path (the rest kind's URLs)."""
    base = yarl.URL("http://h/")
    forms = {base.with_query({"k": value}).raw_query_string.removeprefix("k=")}
    # A value that is not a valid path segment cannot be in a path either.
    with contextlib.suppress(ValueError):
        forms.add(base.joinpath(value).raw_path.removeprefix("/"))
    return forms


def _json_forms(value: str) -> set[str]:
    """The secret inside a JSON string as common encoders write it."""
    plain = {json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1]}
    forms = set(plain)
    for text in plain:
        slashed = text.replace("/", "\\/")
        html = "".join(f"\\u{ord(c):04x}" if c in _HTML_UNSAFE else c for c in slashed)
        every = "".join(c if c.isalnum() or not c.isascii() else f"\\u{ord(c):04x}" for c in value)
        forms.update({slashed, html, every})
    forms |= {_UNICODE_ESCAPE.sub(lambda m: m.group(0).lower(), f) for f in forms}
    forms |= {re.sub(r"\\u[0-9a-f]{4}", lambda m: "\\u" + m.group(0)[2:].upper(), f) for f in forms}
    return forms


def _base64_forms(value: str) -> set[str]:
    """The secret inside base64 text, whole or at each alignment, standard and URL-safe.

    Base64 encodes three bytes at a time, so inside a longer text the secret shows as the
    encoding of its bytes from the first group boundary on; one form per possible boundary.
    """
    raw = value.encode()
    encoded = {base64.b64encode(raw).decode()}
    encoded.add(next(iter(encoded)).rstrip("="))
    for shift in range(3):
        chunk = raw[shift:]
        chunk = chunk[: len(chunk) // 3 * 3]
        if len(chunk) >= 3:
            encoded.add(base64.b64encode(chunk).decode())
    return encoded | {form.replace("+", "-").replace("/", "_") for form in encoded}


class SecretFilter(logging.Filter):
    """Replaces every known secret's forms in a formatted record with a mask.

    Code never logs secrets on purpose; this is the net for an exception message or a URL that
    carries one by accident. It starts with the options' secrets and learns the stored ones
    (custom tools' secrets, MCP servers' headers and URL credentials) through :meth:`remember`.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._values: set[str] = set()
        self._forms: tuple[str, ...] = ()
        self.remember(secrets)

    def remember(self, secrets: Iterable[str]) -> None:
        """Mask these values (and their forms) from now on, besides those already known."""
        new = {s for s in secrets if len(s) >= MIN_LOGGED_SECRET} - self._values
        if not new:
            return
        self._values |= new
        forms = {form for value in self._values for form in secret_forms(value)}
        self._forms = tuple(
            sorted((f for f in forms if len(f) >= MIN_LOGGED_SECRET), key=len, reverse=True)
        )

    def scrub(self, text: str) -> str:
        """``text`` with every known form masked."""
        for form in self._forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it."""
        if not self._forms:
            return True
        message = record.getMessage()
        scrubbed = self.scrub(message)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        return True


def remember_secrets(secrets: Iterable[str]) -> None:
    """Teach the add-on log's filters these secrets (the store calls it as it reads or saves)."""
    values = list(secrets)
    for handler in logging.getLogger().handlers:
        for item in handler.filters:
            if isinstance(item, SecretFilter):
                item.remember(values)


def log_formatter() -> logging.Formatter:
    """The add-on log's lines, their time in UTC and labelled so.

    The panel shows times in the home's zone; the log's are UTC whatever the container's zone,
    and say it, so a line and a trace can be matched without guessing.
    """
    formatter = logging.Formatter(
        "%(asctime)s %(levelname)s (%(name)s) %(message)s", "%Y-%m-%d %H:%M:%S UTC"
    )
    formatter.converter = time.gmtime
    return formatter


def configure_logging(level: str, secrets: Iterable[str]) -> None:
    """Send records to stderr (the add-on log) at ``level``, with secrets masked."""
    logging.addLevelName(TRACE, "TRACE")
    logging.addLevelName(NOTICE, "NOTICE")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(log_formatter())
    handler.addFilter(SecretFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(LEVELS[level])
    # Library chatter at debug hides our own lines; keep it at info unless tracing.
    if LEVELS[level] > TRACE:
        for noisy in ("aiosqlite", "httpx", "httpcore", "openai"):
            logging.getLogger(noisy).setLevel(max(LEVELS[level], logging.INFO))
        # Alembic narrates every migration step at info; our store logs the outcome itself.
        logging.getLogger("alembic").setLevel(max(LEVELS[level], logging.WARNING))
