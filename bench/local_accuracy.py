"""Accuracy of the local path beside Home Assistant's own agent, on every home in devtools/homes.

Runs the whole side-by-side harness (devtools/side_by_side.py) once per supported Home Assistant
release (2025.4.4, the oldest we support, and 2026.11.0, what people run): per home a real Home
Assistant with the home built by the synthetic_home integration, and Home Agent with no model
reached through Home Assistant's wyoming integration. Every sentence goes once to each agent;
a sentence passes only if the home ends exactly as expected (and a question's reply holds the
answer), scored as the product's own evaluation scores (addon/eval/scoring.py). Then the
questions section (devtools/homes/questions, devtools/questions.py): questions on the same
homes, each home booted again with the entities its questions read, a reply passing only when
it holds an expected answer as whole words and is not a failure. Prints a table per home, then
the sentence forms our local path fails most, per release, then one JSON line: ``ours_<release>``
and ``ha_<release>`` (``ours_2026_11``...) are the shares of command sentences passed on each,
``ours`` the lowest of ours and ``ha`` the highest of theirs, ``wrong_actions`` ours over both,
``questions_ours`` and ``questions_ha`` the shares of questions answered (lowest and highest).
Targets: ours ≥ ha + 0.05 overall and on every home on each release, 0 wrong actions (issues 13
and 33); questions_ours > questions_ha (issue 22). About a minute per home and release; run as
``.venv/bin/python bench/local_accuracy.py [TASK_FILE ...]``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from devtools.home_assistant import SUPPORTED_VERSIONS
from devtools.questions import SECTION, question_files
from devtools.side_by_side import (
    COMMANDS,
    HA,
    OURS,
    RunResult,
    configure_logging,
    default_files,
    format_home,
    run_files,
)

MARGIN = 0.05
TOP_FORMS = 12


def failing_forms(result: RunResult) -> list[tuple[str, int, int]]:
    """Per tag: how many sentences we fail and how many of those Home Assistant passes."""
    ours_failed: Counter[str] = Counter()
    ha_passed: Counter[str] = Counter()
    for home in result.homes:
        ha_by_id = {o.task.id: o.score.passed for o in home.of(HA)}
        for outcome in home.of(OURS):
            if outcome.score.passed:
                continue
            for tag in outcome.task.tags:
                ours_failed[tag] += 1
                ha_passed[tag] += ha_by_id.get(outcome.task.id, False)
    return [(tag, count, ha_passed[tag]) for tag, count in ours_failed.most_common(TOP_FORMS)]


def report(result: RunResult, version: str) -> dict[str, float | int]:
    """Print one release's tables, forms and verdicts; its figures."""
    print(f"#### Home Assistant {version}")
    for home in result.homes:
        print(format_home(home))
        ours, ha = home.tally(OURS), home.tally(HA)
        verdict = "PASS" if ours.share >= ha.share + MARGIN and not ours.wrong_actions else "FAIL"
        print(f"   ours {ours.share:.3f} vs ha {ha.share:.3f}: {verdict}")
    print("our most failed forms (tag: ours failed, of which HA passed):")
    for tag, failed, ha_passed in failing_forms(result):
        print(f"   {tag:<16} {failed:>4} {ha_passed:>4}")
    print("sentences Home Assistant's agent passes and our local path fails:")
    for home in result.homes:
        ha_passed_ids = {o.task.id for o in home.of(HA) if o.score.passed}
        for outcome in home.of(OURS):
            if not outcome.score.passed and outcome.task.id in ha_passed_ids:
                print(f"   [{home.language}] {outcome.task.sentence!r} -> {outcome.reply.text!r}")
    ours, ha = result.tally(OURS, COMMANDS), result.tally(HA, COMMANDS)
    verdict = "PASS" if ours.share >= ha.share + MARGIN and not ours.wrong_actions else "FAIL"
    print(f"{version} target: ours ≥ ha + {MARGIN:.2f} with 0 wrong actions: {verdict}")
    asked_ours, asked_ha = result.tally(OURS, SECTION), result.tally(HA, SECTION)
    verdict = "PASS" if asked_ours.share > asked_ha.share else "FAIL"
    print(
        f"{version} questions: ours {asked_ours.passed}/{asked_ours.total},"
        f" ha {asked_ha.passed}/{asked_ha.total}: {verdict}"
    )
    return {
        "ours": round(ours.share, 3),
        "ha": round(ha.share, 3),
        "wrong_actions": ours.wrong_actions,
        "sentences": ours.total,
        "homes": len({home.file for home in result.homes if home.section == COMMANDS}),
        "questions_ours": round(asked_ours.share, 3),
        "questions_ha": round(asked_ha.share, 3),
        "questions": asked_ours.total,
    }


def main() -> None:
    configure_logging()
    paths = [Path(arg) for arg in sys.argv[1:]] or [*default_files(), *question_files()]
    figures = {
        version: report(asyncio.run(run_files(paths, version=version)), version)
        for version in SUPPORTED_VERSIONS
    }
    print("#### Side by side, every release")
    print(f"{'release':<12} {'ours':>6} {'ha':>6} {'wrong':>6} {'q ours':>7} {'q ha':>6}")
    for version, each in figures.items():
        print(
            f"{version:<12} {each['ours']:>6.3f} {each['ha']:>6.3f} {each['wrong_actions']:>6}"
            f" {each['questions_ours']:>7.3f} {each['questions_ha']:>6.3f}"
        )
    line: dict[str, float | int | str] = {"bench": "local_accuracy"}
    for version, each in figures.items():
        release = "_".join(version.split(".")[:2])
        line[f"ours_{release}"] = each["ours"]
        line[f"ha_{release}"] = each["ha"]
    line.update(
        ours=min(each["ours"] for each in figures.values()),
        ha=max(each["ha"] for each in figures.values()),
        wrong_actions=sum(int(each["wrong_actions"]) for each in figures.values()),
        sentences=max(int(each["sentences"]) for each in figures.values()),
        homes=max(int(each["homes"]) for each in figures.values()),
        questions_ours=min(each["questions_ours"] for each in figures.values()),
        questions_ha=max(each["questions_ha"] for each in figures.values()),
        questions=max(int(each["questions"]) for each in figures.values()),
    )
    print(json.dumps(line))


if __name__ == "__main__":
    main()
