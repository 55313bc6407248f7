"""Generate tests/data/intents_suite/ from Home Assistant's intents repository.

The repository (github home-assistant/intents) tests every language with sentences, the intent
and slots each must give, and a fixture home (``tests/<lang>/*.yaml``, ``_fixtures.yaml``). We
keep a compact copy for the languages we serve, one JSON file each, holding only what scoring
needs: the home (floors, areas, entities with every name a template expands to, their area,
state and attributes) and each test's sentences with the expected intent, slots and context.
Comments, responses and timers are dropped; so are the sentences the repository itself lists
as expected to fail (``_test_failures.yaml``), which its test does not require to pass.

Two revisions are kept, one per pinned ``home-assistant-intents`` (tests/data/intents_suite/<rev>/):
2025.3.28 (requirements-intents.txt, Home Assistant 2025.4.4's) and the newer pinned package's
(requirements.txt, 2026.10.27, Home Assistant 2026.11.0's). The repository moved to
github.com/OHF-Voice/intents; its stored snapshot ends before the 2026.10.27 tag, so the newer
copy is made from the snapshot's newest commit (see that copy's README).

From 2026 the repository tests most intents per slot combination:
``tests/<lang>/<Intent>/<combination>.yaml``, each file with its own small home (``entities``,
``areas``, ``floors``) and groups of sentences with the slots they must give, the combinations
described in ``intents.yaml`` (whether the satellite's area is in the context, which domain
a sentence implies). Those files are read as their script (tests/test_slot_combinations.py)
reads them: each file's home is kept under ``homes`` by the file's name, the satellite's area
becomes the test's ``area`` context and an expected ``area`` slot, and the domains a sentence
may imply become the expected ``domain`` where the group gives none, listed under the test's
``one_of``: the value read must be one of them (their script's check), not all of them.

Run: ``.venv/bin/python -m devtools.intents_tests --git-dir DIR --rev REV --out DIR`` where
DIR is a clone's git directory (the ``fetch`` tool's bare copy will do).
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
CONTEXT_AREA = "__context_area__"
"""The satellite's area when a slot-combination file marks none of its areas (their script's
sentinel): a name no sentence says."""


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

    def tree(self, folder: str) -> list[str]:
        """The file paths anywhere under ``folder``, sorted."""
        return sorted(self._git("ls-tree", "-r", "--name-only", self.commit, f"{folder}/").split())

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file of this revision."""
        return bool(self._git("ls-tree", "--name-only", self.commit, path).strip())

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


def _slug(name: str) -> str:
    """An id from a name, as the slot-combination script makes one."""
    return name.strip().casefold().replace(" ", "_")


def combination_home(test_file: dict[str, Any], context_area: str | None) -> dict[str, Any]:
    """A slot-combination file's own home, in the compact shape of :func:`home`."""
    areas = [
        {"id": _slug(a["name"]), "names": expand(a["name"]), "floor": _floor_id(a)}
        for a in test_file.get("areas") or []
    ]
    if context_area == CONTEXT_AREA:
        areas.append({"id": CONTEXT_AREA, "names": [CONTEXT_AREA], "floor": None})
    return {
        "floors": [
            {"id": _slug(f["name"]), "names": expand(f["name"])}
            for f in test_file.get("floors") or []
        ],
        "areas": areas,
        "entities": [
            {
                "id": f"{e['domain']}.{_slug(e['name'])}",
                "names": expand(e["name"]),
                "area": _slug(e["area"]) if e.get("area") else None,
                "state": _state(e.get("state", e.get("state_with_unit", "off"))),
                "attributes": e.get("attributes") or {},
            }
            for e in test_file.get("entities") or []
        ],
    }


def _floor_id(area: dict[str, Any]) -> str | None:
    return _slug(area["floor"]) if area.get("floor") else None


def _implied_domains(combination: dict[str, Any]) -> list[str]:
    """Every domain a combination's sentences may imply (required and optional alike)."""
    return sorted({d for ds in (combination.get("inferred_domains") or {}).values() for d in ds})


def combination_tests(
    repo: Repository, path: str, combination: dict[str, Any], failing: set[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One slot-combination file: its home and its groups as tests."""
    intent = path.split("/")[-2]
    test_file = repo.yaml(path)
    marked = [a["name"] for a in test_file.get("areas") or [] if a.get("context_area")]
    context_area = None
    if combination.get("context_area"):
        context_area = marked[0] if marked else CONTEXT_AREA
    name = f"{intent}/{Path(path).stem}"
    implied = _implied_domains(combination)
    tests = []
    for group in test_file["tests"]:
        sentences = [s for s in group.get("sentences") or [] if s not in failing]
        if not sentences:
            continue
        slots = dict(group.get("slots") or {})
        one_of = []
        if implied and "domain" not in slots:
            # Their script's check: the domain read is one of those the sentence may imply.
            slots["domain"] = implied
            one_of.append("domain")
        # Their script compares every list slot so: a group's sentences each give one of
        # the listed values ("ouvre les volets à 80%", "règle les rideaux sur 40%").
        one_of.extend(k for k, v in slots.items() if isinstance(v, list) and k not in one_of)
        if context_area is not None:
            slots["area"] = context_area
        test = {
            "file": name,
            "intent": intent,
            "slots": slots,
            "context": {} if context_area is None else {"area": context_area},
            "sentences": sentences,
        }
        if one_of:
            test["one_of"] = one_of
        tests.append(test)
    return combination_home(test_file, context_area), tests


def language_suite(
    repo: Repository, language: str, combinations: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One language's home(s) and tests."""
    folder = f"tests/{language}"
    files = repo.files(folder)
    failing: set[str] = set()
    if f"{folder}/{_FAILURES}" in files:
        failing = set(repo.yaml(f"{folder}/{_FAILURES}").get("sentences") or [])
    tests = []
    homes: dict[str, Any] = {}
    for path in repo.tree(folder):
        parts = path.split("/")
        if len(parts) != 4 or not path.endswith(".yaml") or combinations is None:
            continue
        combination = combinations.get(parts[2], {}).get("slot_combinations", {})
        file_home, file_tests = combination_tests(
            repo, path, combination.get(Path(path).stem, {}), failing
        )
        if file_tests:
            homes[file_tests[0]["file"]] = file_home
            tests.extend(file_tests)
    flat = [
        path
        for path in files
        if path.endswith(".yaml") and not path.endswith((_FIXTURES, _FAILURES))
    ]
    for path in flat:
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
    suite: dict[str, Any] = {
        "language": language,
        "home": home(repo.yaml(f"{folder}/{_FIXTURES}"))
        if flat
        else {"floors": [], "areas": [], "entities": []},
        "excluded": sorted(failing),
        "tests": tests,
    }
    if homes:
        suite["homes"] = homes
    return suite


def generate(git_dir: Path, rev: str, out: Path, note: str = "") -> dict[str, int]:
    """Write every served language's suite, the licence and the README; sentences per language."""
    repo = Repository(git_dir, rev)
    out.mkdir(parents=True, exist_ok=True)
    combinations = repo.yaml("intents.yaml") if repo.exists("intents.yaml") else None
    counts: dict[str, int] = {}
    for language in LANGUAGES:
        suite = language_suite(repo, language, combinations)
        counts[language] = sum(len(test["sentences"]) for test in suite["tests"])
        text = json.dumps(suite, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        (out / f"{language}.json").write_text(text + "\n", encoding="utf-8")
    (out / "LICENSE").write_text(repo.text("LICENSE.md"), encoding="utf-8")
    total = sum(counts.values())
    (out / "README.md").write_text(
        f"Generated from the intents repository (github.com/home-assistant/intents, now"
        f" github.com/OHF-Voice/intents) at {rev} (commit {repo.commit}, {repo.date()}) by"
        f" `python -m devtools.intents_tests --git-dir DIR --rev {rev} --out {out.name}`:"
        f" the tests of {', '.join(LANGUAGES)} (tests/<lang>/*.yaml with _fixtures.yaml, and"
        f" tests/<lang>/<Intent>/*.yaml with their own homes), {total} sentences, without the"
        " ones _test_failures.yaml lists. The repository's licence (CC BY 4.0) is in LICENSE."
        f" Do not edit by hand; regenerate.{note}\n",
        encoding="utf-8",
    )
    return counts


def main() -> None:
    """Parse the flags and write the suite."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, required=True, help="the intents repository")
    parser.add_argument("--rev", default=DEFAULT_REV, help="tag or commit (default %(default)s)")
    parser.add_argument("--out", type=Path, default=None, help="default: OUT_DIR/<rev>")
    parser.add_argument("--note", default="", help="a sentence added to the README")
    args = parser.parse_args()
    out = args.out if args.out is not None else OUT_DIR / args.rev
    counts = generate(args.git_dir, args.rev, out, f" {args.note}" if args.note else "")
    print(json.dumps({**counts, "total": sum(counts.values())}))  # noqa: T201


if __name__ == "__main__":
    main()
