"""The gate's rules on their own: what acts, which targets are checked, what a template read."""

from __future__ import annotations

from addon.home.actions.gate import Gate, TemplateReads, acts, walk_targets

EXPOSED = frozenset({"light.kitchen", "sensor.temperature"})


def gate(dry_run: bool = False) -> Gate:
    return Gate(dry_run, EXPOSED.__contains__)


def test_a_script_or_an_action_acts_whatever_it_declares() -> None:
    """``acts: false`` does not make a service, a script or a POST read-only."""
    assert acts("service", declared=False)
    assert acts("script", declared=False)
    assert acts("rest", declared=False, method="POST")
    assert not acts("rest", declared=False, method="GET")
    assert not acts("template", declared=False)


def test_a_dry_run_holds_what_acts_and_records_it() -> None:
    """The hold is a decision kept for the trace."""
    judged = gate(dry_run=True)
    assert judged.send("light.turn_on", kind="service", declared=False) is False
    assert [(d.verdict, d.rule) for d in judged.decisions] == [("hold", "dry_run")]


def test_every_target_key_is_found_at_any_depth() -> None:
    """Entities under entity_id, entities (keys of a mapping) and strings shaped like one."""
    found = list(
        walk_targets(
            {
                "entity_id": "light.a, light.b",
                "entities": {"lock.front": {"state": "unlocked"}},
                "nested": [{"area_id": "garage"}],
                "message": "light.c",
                "note": "version 1.5",
            }
        )
    )
    assert found == [
        ("entity_id", "light.a"),
        ("entity_id", "light.b"),
        ("entities", "lock.front"),
        ("area_id", "garage"),
        ("entity_id", "light.c"),
    ]


def test_a_literal_target_passes_and_a_hidden_one_is_refused() -> None:
    """The user's own entities pass; one from the arguments must be exposed."""
    judged = gate()
    literal = frozenset({"lock.front"})
    assert judged.targets("x", {"entity_id": "lock.front"}, literal).allowed
    refused = judged.targets("x", {"entity_id": "lock.back"}, literal)
    assert refused.verdict == "refuse"
    assert refused.reason == "lock.back is not exposed to Assist"


def test_a_template_that_read_only_exposed_entities_passes() -> None:
    """Home Assistant's listeners naming exposed entities only: the result is kept."""
    reads = TemplateReads.of({"all": False, "entities": ["sensor.temperature"], "domains": []})
    assert gate().reads("template", reads).allowed


def test_a_template_without_listeners_is_refused() -> None:
    """No listeners reported: the gate cannot tell what was read, so it refuses."""
    assert not gate().reads("template", TemplateReads.of(None)).allowed
