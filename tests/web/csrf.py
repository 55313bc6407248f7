"""A CSRF key known to the tests, planted before an app starts, and a token signed with it.

The panel signs its CSRF tokens with a key of the install (``csrf.key`` under the data
directory); tests that post forms without first loading a page plant this key, so ``TOKEN`` is
one the app itself would have issued.
"""

from __future__ import annotations

from pathlib import Path

from addon.web.ui.security import KEY_BYTES, KEY_FILE, signed_token

KEY = b"k" * KEY_BYTES
TOKEN = signed_token(KEY, "n" * 22)


def plant_key(data_dir: Path) -> None:
    """Give the app about to start in ``data_dir`` the tests' key."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / KEY_FILE).write_bytes(KEY)
