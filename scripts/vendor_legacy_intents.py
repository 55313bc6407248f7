"""Vendor Home Assistant 2025.4's sentences (home-assistant-intents 2025.3.28) for the local path.

Home Assistant 2025.4.4 matches with these; the pinned, newer ``home-assistant-intents`` dropped
some of their forms ("lock the {area} lock", "open the garage door", "turn on all the lights"),
so the local path matches them as a second stage (docs/DECISIONS.md, "Local first"). Run with
the wheel downloaded by ``pip download home-assistant-intents==2025.3.28 --no-deps -d DIR``:

    python scripts/vendor_legacy_intents.py DIR/home_assistant_intents-2025.3.28-py3-none-any.whl
"""

from __future__ import annotations

import gzip
import json
import sys
import zipfile
from pathlib import Path

LANGUAGES = ("de", "de-CH", "en", "es", "fr", "it", "nl", "pl", "pt", "pt-br")
"""The languages Home Agent serves in full (``info``); ``pt-br`` is the 2025.3.28 file name."""
TARGET = Path(__file__).resolve().parent.parent / "addon" / "local" / "legacy"


def main(wheel: str) -> None:
    """Write one gzipped JSON file per language, as the wheel ships it."""
    with zipfile.ZipFile(wheel) as archive:
        for language in LANGUAGES:
            data = json.loads(archive.read(f"home_assistant_intents/data/{language}.json"))
            text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            path = TARGET / f"{language.lower()}.json.gz"
            # mtime=0: the same wheel gives byte-identical files.
            with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
                out.write(text.encode("utf-8"))
            sys.stdout.write(f"{path.name} {path.stat().st_size}\n")


if __name__ == "__main__":
    main(sys.argv[1])
