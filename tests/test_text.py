"""The text checks the edges share."""

from __future__ import annotations

import json

import pytest

from addon.text import is_unicode


@pytest.mark.parametrize(
    "document",
    ['{"text": "hi \\ud83d\\ude00"}', '["caf\\u00e9", {"k": null}]', '"plain"', "1"],
)
def test_unicode_text_passes(document: str) -> None:
    """Parsed JSON whose strings are text, surrogate pairs included, is Unicode."""
    assert is_unicode(json.loads(document))


@pytest.mark.parametrize(
    "document",
    ['{"text": "hi \\ud800"}', '{"\\udcff": 1}', '[["deep", ["\\ude00 low"]]]'],
)
def test_lone_surrogate_anywhere_is_not_unicode(document: str) -> None:
    """A lone surrogate in any value or key, however deep, is not Unicode text."""
    assert not is_unicode(json.loads(document))
