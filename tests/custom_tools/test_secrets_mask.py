"""Secrets are masked in every form a request may carry them."""

from __future__ import annotations

import base64

import yarl

from addon.custom_tools.secrets_mask import MASK, SecretMask

SECRET = "s3cr3t&token/value"


def test_raw_url_encoded_and_json_escaped_forms_are_masked() -> None:
    """The value, its percent-encoding and its JSON escape all disappear."""
    mask = SecretMask([SECRET])
    text = f"a={SECRET} b=s3cr3t%26token%2Fvalue c=" + '"s3cr3t&token\\/value"'.replace("\\/", "/")
    masked = mask.text(text)
    assert "s3cr3t" not in masked
    assert masked.count(MASK) == 3


def test_basic_auth_is_masked() -> None:
    """The secret inside a base64 ``user:secret`` header is masked."""
    header = "Basic " + base64.b64encode(f"user:{SECRET}".encode()).decode()
    masked = SecretMask([SECRET]).text(header)
    assert base64.b64encode(f"user:{SECRET}".encode()).decode() not in masked
    assert MASK in masked


def test_structures_are_masked_keys_included() -> None:
    """Mappings and lists are walked; other values pass through."""
    masked = SecretMask([SECRET]).value({SECRET: [SECRET, 3], "n": None})
    assert masked == {MASK: [MASK, 3], "n": None}


def test_the_forms_yarl_writes_in_a_url_are_masked() -> None:
    """In a query yarl keeps ``/ : @ ?`` and writes a space as ``+``; in a path ``%20``."""
    secret = "k3y/With+plus and:space@?~x"
    url = yarl.URL("http://h/p").with_query({"key": secret})
    path = yarl.URL("http://h/").joinpath(secret)
    masked = SecretMask([secret]).text(f"{url} {path.raw_path}")
    assert masked == f"http://h/p?key={MASK} /{MASK}"
