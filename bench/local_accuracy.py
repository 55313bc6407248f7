"""Accuracy of the local path beside Home Assistant's own agent, on every home in devtools/homes.

Runs the whole side-by-side harness (devtools/side_by_side.py): per home a real Home Assistant
2025.4.4 with the home built by the synthetic_home integration, and Home Agent with no model
reached through Home Assistant's wyoming integration. Every sentence goes once to each agent;
a sentence passes only if the home ends exactly as expected (and a question's reply holds the
answer), scored as the product's own evaluation scores (addon/eval/scoring.py). Then the
questions section (devtools/homes/questions, devtools/questions.py): questions on the same
homes, each home booted again with the entities its questions read, a reply passing only when
it holds an expected answer as whole words and is not a failure. Prints a table per home, then
the sentence forms our local path fails most, then one JSON line: ``ours`` and ``ha`` are the
shares of command sentences passed, ``wrong_actions`` ours, ``questions_ours`` and
``questions_ha`` the shares of questions answered.
Targets: ours ≥ ha + 0.05 overall and on every home, 0 wrong actions (issue 13);
questions_ours > questions_ha (issue 22). About a minute per home; run as
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


def main() -> None:
    configure_logging()
    paths = [Path(arg) for arg in sys.argv[1:]] or [*default_files(), *question_files()]
    result = asyncio.run(run_files(paths))
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
    print(f"target: ours ≥ ha + {MARGIN:.2f} with 0 wrong actions: {verdict}")
    asked_ours, asked_ha = result.tally(OURS, SECTION), result.tally(HA, SECTION)
    verdict = "PASS" if asked_ours.share > asked_ha.share else "FAIL"
    print(
        f"questions: ours {asked_ours.passed}/{asked_ours.total},"
        f" ha {asked_ha.passed}/{asked_ha.total}: {verdict}"
    )
    print(
        json.dumps(
            {
                "bench": "local_accuracy",
                "ours": round(ours.share, 3),
                "ha": round(ha.share, 3),
                "wrong_actions": ours.wrong_actions,
                "sentences": ours.total,
                "homes": len({home.file for home in result.homes if home.section == COMMANDS}),
                "questions_ours": round(asked_ours.share, 3),
                "questions_ha": round(asked_ha.share, 3),
                "questions": asked_ours.total,
            }
        )
    )


if __name__ == "__main__":
    main()
