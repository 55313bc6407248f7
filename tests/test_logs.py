"""Secrets never reach a log line."""

from __future__ import annotations

import io
import logging

import pytest

from addon.logs import MASK, SecretFilter, log_formatter
from addon.store.database import Store
from addon.store.tools import stored_secrets


def test_secret_in_message_arguments_is_masked(caplog: pytest.LogCaptureFixture) -> None:
    """A secret passed as a log argument is replaced before any handler sees it."""
    logger = logging.getLogger("test.secrets")
    logger.addFilter(SecretFilter(["sk-secret-value"]))
    with caplog.at_level(logging.INFO, logger="test.secrets"):
        logger.info("calling %s with key %s", "https://api.example", "sk-secret-value")
    assert "sk-secret-value" not in caplog.text
    assert MASK in caplog.text


def test_secret_in_exception_text_is_masked(caplog: pytest.LogCaptureFixture) -> None:
    """An exception whose message carries a secret is scrubbed in the traceback too."""
    logger = logging.getLogger("test.secrets.exc")
    logger.addFilter(SecretFilter(["tok-abcdef"]))
    with caplog.at_level(logging.INFO, logger="test.secrets.exc"):
        try:
            raise RuntimeError("auth failed for tok-abcdef")
        except RuntimeError:
            logger.exception("request failed")
    assert "tok-abcdef" not in caplog.text


def test_a_remembered_secret_is_masked_in_its_encoded_forms() -> None:
    """The filter learns stored secrets and masks their percent-encoded form as well."""
    secret_filter = SecretFilter(["options-key"])
    secret_filter.remember(["stored/secret&1"])
    args = ("stored%2Fsecret%261",)
    record = logging.LogRecord("x", logging.INFO, "f", 1, "GET /a?k=%s", args, None)
    secret_filter.filter(record)
    assert record.getMessage() == f"GET /a?k={MASK}"


async def test_a_secret_saved_in_the_store_is_masked_in_the_log(store: Store) -> None:
    """Saving a custom tool secret teaches the add-on log's filter its value."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(SecretFilter([]))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        async with store.sessionmaker.begin() as session:
            await stored_secrets.set_secret(session, "weather", "wx-stored-secret-42")
        logging.getLogger("test.stored").warning("answer was %s", "wx-stored-secret-42")
    finally:
        root.removeHandler(handler)
    assert "wx-stored-secret-42" not in stream.getvalue()
    assert MASK in stream.getvalue()


def test_log_lines_carry_their_time_in_utc_and_say_so() -> None:
    """A record made at a known instant is written with that instant in UTC, labelled UTC."""
    record = logging.LogRecord("addon.x", logging.INFO, __file__, 1, "hello", None, None)
    record.created = 1_764_000_000.0  # 2025-11-24 16:00:00 UTC
    line = log_formatter().format(record)
    assert line.startswith("2025-11-24 16:00:00 UTC INFO (addon.x) hello")
