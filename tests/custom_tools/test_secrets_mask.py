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


def test_lowercase_percent_encoding_is_masked() -> None:
    """``%2f`` is as much the secret as ``%2F``: some encoders write hex in lower case."""
    masked = SecretMask([SECRET]).text("k=s3cr3t%26token%2fvalue")
    assert masked == f"k={MASK}"


def test_json_escaped_slash_and_unicode_ampersand_are_masked() -> None:
    """Escaped slashes and ``u0026``-style escapes (HTML-safe JSON encoders) hide nothing."""
    masked = SecretMask([SECRET]).text('{"a": "s3cr3t\\u0026token\\/value"}')
    assert "s3cr3t" not in masked
    assert MASK in masked


def test_base64_of_a_short_value_is_masked() -> None:
    """A five-character password inside a Basic header is masked too."""
    header = base64.b64encode(b"admin:pw123").decode()
    whole = base64.b64encode(b"pw123").decode()
    masked = SecretMask(["pw123"]).text(f"Basic {header} and {whole}")
    assert whole not in masked
    assert header not in masked


def test_a_bare_bearer_token_of_an_mcp_server_is_masked() -> None:
    """The header ``Bearer tok`` makes the bare ``tok`` a secret as well."""
    mask = SecretMask.of_connection("http://h/mcp", ["Bearer mcp-token-123456"])
    assert mask.text("token mcp-token-123456 rejected") == f"token {MASK} rejected"


def test_credentials_in_an_mcp_server_url_are_masked() -> None:
    """Userinfo and a ``?key=`` in the server's URL are secrets too."""
    mask = SecretMask.of_connection("http://bob:hunter2pw@h/mcp?key=k-998877&v=1", [])
    assert mask.text("hunter2pw k-998877 v=1") == f"{MASK} {MASK} v=1"
