"""What the home's scenes, scripts and automations are made of, as Home Assistant configured them.

A scene, a script or an automation can unlock a door under a name that says nothing of it. The
confirmation policy judges a call by what it does to each entity
(:mod:`addon.home.actions.impact`), so it needs their configuration; fetching it is the Home
Assistant link's job at snapshot time (:mod:`addon.ha.snapshot`), never on a call's path. Here
it is only kept, read-only, with the model it was read with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from addon.text import JsonValue

_NONE: Mapping[str, Mapping[str, JsonValue]] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Routines:
    """The configurations read at one snapshot, by entity id.

    ``scripts`` and ``automations`` hold ``script/config``'s and ``automation/config``'s
    ``config``; one missing from its table could not be read, and counts as unknowable.
    ``scenes`` holds, per scene whose configuration Home Assistant gave, the entities it sets
    and their states as written (``{"lock.front_door": "unlocked"}``, or a mapping with
    ``state``); a scene missing from it is judged by the entities its state lists.
    """

    scripts: Mapping[str, Mapping[str, JsonValue]] = field(default_factory=lambda: _NONE)
    automations: Mapping[str, Mapping[str, JsonValue]] = field(default_factory=lambda: _NONE)
    scenes: Mapping[str, Mapping[str, JsonValue]] = field(default_factory=lambda: _NONE)

    @classmethod
    def of(
        cls,
        scripts: Mapping[str, Mapping[str, JsonValue]] | None = None,
        automations: Mapping[str, Mapping[str, JsonValue]] | None = None,
        scenes: Mapping[str, Mapping[str, JsonValue]] | None = None,
    ) -> Routines:
        """Read-only copies of the three tables."""
        return cls(
            MappingProxyType(dict(scripts or {})),
            MappingProxyType(dict(automations or {})),
            MappingProxyType(dict(scenes or {})),
        )
