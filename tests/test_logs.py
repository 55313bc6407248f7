"""Secrets never reach a log line."""

from __future__ import annotations

import logging

import pytest

from addon.logs import MASK, SecretFilter


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
