"""Which Home Assistant release a home runs, and which of Home Assistant's behaviours it has.

Target matching and the intent handlers are ports of Home Assistant's own, first of 2025.4.
Where a later release answers the same request differently (another handler constraint, another
way of naming an entity), we answer as the connected release does: the user hears, and a model
is told, what that Home Assistant itself would do, and the contract tests can hold each release
to its own behaviour. The release is ``get_config``'s ``version`` (what the WebSocket ``auth_ok``
also reports).

We know two releases for certain, 2025.4.4 and 2026.11.0, both run by the test suite. A change
is dated to the first release we checked that has it; a release in between is treated as the
older one, the behaviour everything was ported from. So is a home whose release is unknown (a
task file or hand-made home without ``version``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True, slots=True, order=True)
class Release:
    """A Home Assistant release as ``year.month.patch``; ordered, so ``release >= X`` reads well."""

    year: int
    month: int
    patch: int = 0

    @classmethod
    def parse(cls, version: object) -> Release:
        """The release of a version string ("2026.11.0", "2026.11.0b1", "2026.12.0.dev0").

        Anything else (None, an unknown shape) is :data:`BASELINE`: see the module docstring.
        """
        found = _VERSION.match(version) if isinstance(version, str) else None
        if found is None:
            return BASELINE
        year, month, patch = found.groups()
        return cls(int(year), int(month), int(patch or 0))

    def __str__(self) -> str:
        return f"{self.year}.{self.month}.{self.patch}"

    @property
    def handlers_require_what_they_call(self) -> bool:
        """Service intent handlers match only entities their service can act on.

        From 2026.11 ``HassLightSet`` matches lights only (``required_domains``), and
        ``HassVacuumStart``/``HassVacuumReturnToBase`` only vacuums with the START/RETURN_HOME
        feature (``required_features``). In 2025.4 the same requests match every entity in the
        area or domain and call the service on each, including those it cannot act on.
        """
        return self >= RELEASE_2026_11

    @property
    def sets_volume_in_any_state(self) -> bool:
        """``HassSetVolume`` sets a player's volume whatever it is doing.

        2026.11's handler (``components/media_player/intent.py``) has no ``required_states``;
        2025.4's matches only playing players, so "set the kitchen speaker volume to 60%" on a
        paused speaker is "no device is playing" there and done in 2026.11.
        """
        return self >= RELEASE_2026_11

    @property
    def names_are_registry_aliases(self) -> bool:
        """An entity with a registry entry is named by its registry aliases only.

        From 2026.11 the entity registry keeps one ordered alias list in which ``None`` stands
        for the computed name (``COMPUTED_NAME``), and ``helpers/intent.py`` matches a name only
        against that list (``async_get_entity_aliases``), no longer against the state's friendly
        name or the registry name. 2025.4 matches the friendly name, the registry name and each
        alias.
        """
        return self >= RELEASE_2026_11

    @property
    def never_exposes_all_locks(self) -> bool:
        """``group.all_locks`` is never exposed to an assistant (``CLOUD_NEVER_EXPOSED_ENTITIES``).

        2025.4 has the rule; 2026.11 dropped it, and the group follows the usual exposure rules.
        """
        return self < RELEASE_2026_11


BASELINE = Release(2025, 4, 4)
"""The release everything was first ported from."""

RELEASE_2026_11 = Release(2026, 11, 0)
"""The first release checked to have the changes the properties of :class:`Release` name."""
