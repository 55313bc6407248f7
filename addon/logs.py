"""Logging set-up: Home Assistant's level names, and secrets scrubbed from every record."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable

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


class SecretFilter(logging.Filter):
    """Replaces any configured secret that appears in a formatted record with a mask.

    Code never logs secrets on purpose; this is the net for an exception message or a URL that
    carries one by accident.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it."""
        if not self._secrets:
            return True
        message = record.getMessage()
        scrubbed = message
        for secret in self._secrets:
            scrubbed = scrubbed.replace(secret, MASK)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            for secret in self._secrets:
                record.exc_text = record.exc_text.replace(secret, MASK)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        return True


def configure_logging(level: str, secrets: Iterable[str]) -> None:
    """Send records to stderr (the add-on log) at ``level``, with secrets masked."""
    logging.addLevelName(TRACE, "TRACE")
    logging.addLevelName(NOTICE, "NOTICE")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s (%(name)s) %(message)s", "%Y-%m-%d %H:%M:%S")
    )
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
