"""What a turn has done so far, read from its successful tool results.

A turn cut off at ``max_tool_iterations`` may already have acted; DOCS.md promises that the
reply then says what was done ("I turned on the kitchen lights, but couldn't finish the rest").
Each successful intent reports the entities it acted on in its response data (``success``), with
the names Home Assistant speaks; that is what the reply lists. Queries and failed calls did
nothing to the home and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from addon.i18n.messages import Action, Done
from addon.tools.registry import ToolOutcome

_ACTIONS: dict[str, Action] = {
    "HassTurnOn": Action.TURNED_ON,
    "HassTurnOff": Action.TURNED_OFF,
    "HassToggle": Action.TOGGLED,
    "HassLightSet": Action.SET,
    "HassSetPosition": Action.SET,
    "HassSetVolume": Action.SET,
    "HassFanSetSpeed": Action.SET,
    "HassClimateSetTemperature": Action.SET,
}


def done_so_far(outcomes: Sequence[ToolOutcome]) -> list[Done]:
    """The actions that succeeded, one entry per kind in first-done order, names de-duplicated."""
    names: dict[Action, list[str]] = {}
    for outcome in outcomes:
        if not outcome.ok:
            continue
        for name in outcome.result.named_things():
            acted = names.setdefault(_ACTIONS.get(outcome.name, Action.CONTROLLED), [])
            if name not in acted:
                acted.append(name)
    return [Done(action, tuple(acted)) for action, acted in names.items()]
