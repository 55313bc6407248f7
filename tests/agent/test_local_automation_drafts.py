"""The local sentence family for a time-of-day automation, in every served language.

"every weekday at seven turn on the kitchen ceiling light" needs no model: it is drafted through
the same ``draft_automation`` tool (an evaluation run keeps its drafts in memory), the reply is
the approval question in the person's language, and nothing acts now.
"""

from __future__ import annotations

import pytest

from addon.config.settings import Options
from addon.eval.runner import Evaluation, RunSettings
from addon.eval.tasks import parse_task_file
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.turns import ConversationRecords
from tests.eval.tasks import TASKS_YAML
from tests.eval.test_confirmation import default_policy

SAID = {
    "en": ("every weekday at seven turn on the kitchen ceiling light", "I drafted an automation"),
    "de": (
        "jeden Werktag um sieben Uhr das Kitchen ceiling light einschalten",
        "Ich habe eine Automatisierung entworfen",
    ),
    "fr": (
        "chaque jour de semaine à sept heures allume le kitchen ceiling light",
        "J'ai préparé une automatisation",
    ),
    "es": (
        "cada día laborable a las siete enciende la kitchen ceiling light",
        "He preparado una automatización",
    ),
    "nl": (
        "elke werkdag om zeven uur de kitchen ceiling light aan",
        "Ik heb een automatisering opgesteld",
    ),
    "it": (
        "ogni giorno feriale alle sette accendi la kitchen ceiling light",
        "Ho preparato un'automazione",
    ),
    "pl": (
        "w każdy dzień roboczy o siedem włącz kitchen ceiling light",
        "Przygotowałem automatyzację",
    ),
    "pt": (
        "todos os dias úteis às sete liga a kitchen ceiling light",
        "Preparei uma automação",
    ),
}
TASK = """\
  - id: drafted
    sentence: "{sentence}"
    automation:
      triggers: [{{trigger: time, at: "07:00:00"}}]
      conditions: [{{condition: time, weekday: [mon, tue, wed, thu, fri]}}]
      actions: [{{action: light.turn_on, target: {{entity_id: light.kitchen_ceiling}}}}]
"""


@pytest.mark.parametrize("language", sorted(SAID))
async def test_a_weekday_light_at_seven_is_drafted_locally_and_asked_about(
    store: Store, local_matcher: LocalMatcher, language: str
) -> None:
    """The local path drafts the automation the sentence says and asks, in the language."""
    sentence, opening = SAID[language]
    head = TASKS_YAML.split("tasks:\n")[0].replace("language: en", f"language: {language}")
    task_file = parse_task_file(head + "tasks:\n" + TASK.format(sentence=sentence))
    evaluation = Evaluation(
        records=ConversationRecords(store),
        base_options=Options(),
        llm=None,
        local=local_matcher,
        confirmation=default_policy,
    )
    (result,) = await evaluation.run(task_file, RunSettings(model="none"))
    assert result.handled_by == "local"
    assert result.reply.startswith(opening)
    assert "07:00" in result.reply
    assert result.asked == "yes"
    # The question came where the task expects none: the only problem is that one.
    assert len(result.problems) == 1
    assert "does not expect" in result.problems[0]
