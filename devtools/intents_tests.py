"""Generate tests/data/intents_suite/ from Home Assistant's intents repository.

The repository (github home-assistant/intents) tests every language with sentences, the intent
and slots each must give, and a fixture home (``tests/<lang>/*.yaml``, ``_fixtures.yaml``). We
keep a compact copy for the languages we serve, one JSON file each, holding only what scoring
needs: the home (floors, areas, entities with every name a template expands to, their area,
state and attributes) and each test's sentences with the expected intent, slots and context.
Comments, responses and timers are dropped; so are the sentences the repository itself lists
as expected to fail (``_test_failures.yaml``), which its test does not require to pass.

The tag is the one matching Home Assistant 2025.4.4's ``home-assistant-intents`` (2025.3.28,
requirements-intents.txt): those sentences are the ones that release's own agent is tested on,
and the pinned newer package's tag (2026.10.27) is not in the stored snapshot of the
repository. Run: ``.venv/bin/python -m devtools.intents_tests --git-dir DIR [--rev 2025.3.28]``
where DIR is a clone's git directory (the ``fetch`` tool's bare copy will do).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

import yaml
from hassil import is_template, parse_sentence, sample_expression

LANGUAGES = ("en", "de", "fr", "es", "nl", "it", "pl", "pt")
"""The languages the local path serves (addon/i18n): the suite covers these."""
DEFAULT_REV = "2025.3.28"
OUT_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "intents_suite"
_FIXTURES = "_fixtures.yaml"
_FAILURES = "_test_failures.yaml"


class Repository:
    """Files of one revision of a git directory, read without a work tree."""

    def __init__(self, git_dir: Path, rev: str) -> None:
        """Resolve ``rev`` once, so every file comes from the same commit."""
        self.git_dir = git_dir
        self.commit = self._git("rev-parse", f"{rev}^{{commit}}").strip()

    def _git(self, *args: str) -> str:
        return subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def files(self, folder: str) -> list[str]:
        """The paths directly under ``folder``, sorted."""
        return sorted(self._git("ls-tree", "--name-only", self.commit, f"{folder}/").split())

    def text(self, path: str) -> str:
        """The contents of ``path``."""
        return self._git("show", f"{self.commit}:{path}")

    def yaml(self, path: str) -> Any:
        """``path`` parsed as YAML."""
        return yaml.safe_load(self.text(path))

    def date(self) -> str:
        """The commit's date (ISO, day only)."""
        return self._git("log", "-1", "--format=%cs", self.commit).strip()


def expand(name: str) -> list[str]:
    """Every text a fixture name stands for, as the repository's ``shared`` module reads it."""
    if is_template(name):
        return [text.strip() for text in sample_expression(parse_sentence(name).expression)]
    return [name.strip()]


def _state(raw: Any) -> str:
    """Home Assistant's state: the fixture's ``out`` when it gives a spoken ``in`` too."""
    if raw is None:
        return "off"
    if isinstance(raw, dict):
        return str(raw["out"])
    return str(raw)


def home(fixtures: dict[str, Any]) -> dict[str, Any]:
    """The fixture home, compact: names expanded, states as Home Assistant holds them."""
    return {
        "floors": [
            {"id": floor["id"], "names": expand(floor["name"])}
            for floor in fixtures.get("floors") or []
        ],
        "areas": [
            {"id": area["id"], "names": expand(area["name"]), "floor": area.get("floor")}
            for area in fixtures.get("areas") or []
        ],
        "entities": [
            {
                "id": entity["id"],
                "names": expand(entity["name"]),
                "area": entity.get("area"),
                "state": _state(entity.get("state", "off")),
                "attributes": entity.get("attributes") or {},
            }
            for entity in fixtures["entities"]
        ],
    }


def language_suite(repo: Repository, language: str) -> dict[str, Any]:
    """One language's home and tests."""
    folder = f"tests/{language}"
    files = repo.files(folder)
    failing: set[str] = set()
    if f"{folder}/{_FAILURES}" in files:
        failing = set(repo.yaml(f"{folder}/{_FAILURES}").get("sentences") or [])
    tests = []
    for path in files:
        if path.endswith((_FIXTURES, _FAILURES)) or not path.endswith(".yaml"):
            continue
        for test in repo.yaml(path)["tests"]:
            sentences = [s for s in test.get("sentences") or [] if s not in failing]
            if not sentences:
                continue
            intent = test["intent"]
            tests.append(
                {
                    "file": Path(path).stem,
                    "intent": intent["name"],
                    "slots": intent.get("slots") or {},
                    "context": intent.get("context") or {},
                    "sentences": sentences,
                }
            )
    return {
        "language": language,
        "home": home(repo.yaml(f"{folder}/{_FIXTURES}")),
        "excluded": sorted(failing),
        "tests": tests,
    }


def generate(git_dir: Path, rev: str, out: Path) -> dict[str, int]:
    """Write every served language's suite, the licence and the README; sentences per language."""
    repo = Repository(git_dir, rev)
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for language in LANGUAGES:
        suite = language_suite(repo, language)
        counts[language] = sum(len(test["sentences"]) for test in suite["tests"])
        text = json.dumps(suite, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        (out / f"{language}.json").write_text(text + "\n", encoding="utf-8")
    (out / "LICENSE").write_text(repo.text("LICENSE.md"), encoding="utf-8")
    total = sum(counts.values())
    (out / "README.md").write_text(
        f"Generated from github.com/home-assistant/intents at tag {rev} (commit {repo.commit},"
        f" {repo.date()}) by `python -m devtools.intents_tests --git-dir DIR --rev {rev}`:"
        f" tests/<lang>/*.yaml and _fixtures.yaml of {', '.join(LANGUAGES)}, {total} sentences,"
        " without the ones _test_failures.yaml lists. The repository's licence (CC BY 4.0) is in"
        " LICENSE. Do not edit by hand; regenerate.\n",
        encoding="utf-8",
    )
    return counts


def main() -> None:
    """Parse the flags and write the suite."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, required=True, help="the intents repository")
    parser.add_argument("--rev", default=DEFAULT_REV, help="tag or commit (default %(default)s)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    counts = generate(args.git_dir, args.rev, args.out)
    print(json.dumps({**counts, "total": sum(counts.values())}))  # noqa: T201


if __name__ == "__main__":
    main()
