"""The vocabulary of target matching, named as in Home Assistant's ``helpers/intent.py``.

``MatchFailedReason``, ``MatchTargetsConstraints``, ``MatchTargetsPreferences``,
``MatchTargetsCandidate`` and ``MatchTargetsResult`` keep Home Assistant 2025.4's names, fields
and meanings, so code ported from an intent handler reads the same. Differences, all deliberate:

* every class is a frozen value object, and collections are frozensets/tuples;
* ``assistant`` defaults to ``"conversation"``: a caller must opt out of the exposure filter,
  never opt in (Home Assistant defaults to None, i.e. no filter);
* a result also carries ``candidates`` (what made a match ambiguous, with areas) and
  ``suggestions`` (the closest exposed names after a miss), so a model can correct itself.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum, auto

from addon.home.model.exposure import CONVERSATION
from addon.home.model.records import Area, Device, EntityState, Floor, RegistryEntry


class MatchFailedReason(Enum):
    """Why ``match_targets`` found nothing (Home Assistant's enum, same members)."""

    NAME = auto()
    """No entities matched name constraint."""

    AREA = auto()
    """No entities matched area constraint."""

    FLOOR = auto()
    """No entities matched floor constraint."""

    DOMAIN = auto()
    """No entities matched domain constraint."""

    DEVICE_CLASS = auto()
    """No entities matched device class constraint."""

    FEATURE = auto()
    """No entities matched supported features constraint."""

    STATE = auto()
    """No entities matched required states constraint."""

    ASSISTANT = auto()
    """No entities matched exposed to assistant constraint."""

    INVALID_AREA = auto()
    """Area name from constraint does not exist."""

    INVALID_FLOOR = auto()
    """Floor name from constraint does not exist."""

    DUPLICATE_NAME = auto()
    """Two or more entities matched the same name constraint and could not be disambiguated."""

    MULTIPLE_TARGETS = auto()
    """Two or more entities matched when a single target is required."""

    def is_no_entities_reason(self) -> bool:
        """True if the match failed because no entities matched."""
        return self not in (
            MatchFailedReason.INVALID_AREA,
            MatchFailedReason.INVALID_FLOOR,
            MatchFailedReason.DUPLICATE_NAME,
        )


def _as_set(value: Collection[str] | None) -> frozenset[str] | None:
    """None stays None (no filter); an empty collection stays empty (matches nothing)."""
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset({value})
    return frozenset(value)


@dataclass(frozen=True, slots=True)
class MatchTargetsConstraints:
    """What the targets must satisfy; every field set narrows the match."""

    name: str | None = None
    """Entity name, alias, or exact entity id."""

    area_name: str | None = None
    """Area name, id, or alias."""

    floor_name: str | None = None
    """Floor name, id, or alias."""

    domains: Collection[str] | None = None
    """Domain names; an empty set matches nothing, as in Home Assistant. Stored as a frozenset."""

    device_classes: Collection[str] | None = None
    """Device class names. Stored as a frozenset."""

    features: int | None = None
    """Required supported features (all bits)."""

    states: Collection[str] | None = None
    """Required states for entities. Stored as a frozenset."""

    assistant: str | None = CONVERSATION
    """Assistant the entities must be exposed to; None turns the exposure filter off."""

    allow_duplicate_names: bool = False
    """True if entities with duplicate names are allowed in result."""

    single_target: bool = False
    """True if result must contain a single target."""

    def __post_init__(self) -> None:
        # Accept any collection (lists from tool arguments) but store hashable sets.
        object.__setattr__(self, "domains", _as_set(self.domains))
        object.__setattr__(self, "device_classes", _as_set(self.device_classes))
        object.__setattr__(self, "states", _as_set(self.states))

    @property
    def has_constraints(self) -> bool:
        """True if at least one constraint is set (ignores assistant)."""
        return bool(
            self.name
            or self.area_name
            or self.floor_name
            or self.domains
            or self.device_classes
            or self.features
            or self.states
            or self.single_target
        )


@dataclass(frozen=True, slots=True)
class MatchTargetsPreferences:
    """Where the request came from; used only to pick one of several same-named entities."""

    area_id: str | None = None
    """Id of area to use when deduplicating names (the satellite's area)."""

    floor_id: str | None = None
    """Id of floor to use when deduplicating names."""


@dataclass(frozen=True, slots=True)
class MatchTargetsCandidate:
    """One entity considered by ``match_targets``, with what was resolved for it."""

    state: EntityState
    is_exposed: bool
    entity: RegistryEntry | None = None
    area: Area | None = None
    device: Device | None = None
    matched_name: str | None = None
    name: str = ""
    """The entity's name as Home Assistant shows it (ours; for messages)."""

    @property
    def entity_id(self) -> str:
        """The candidate's entity id."""
        return self.state.entity_id


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A close, exposed alternative after a miss: an entity (with its area) or a place."""

    name: str
    entity_id: str | None = None
    area: str | None = None


@dataclass(frozen=True, slots=True)
class MatchTargetsResult:
    """The outcome of ``match_targets``."""

    is_match: bool
    """True if one or more entities matched."""

    no_match_reason: MatchFailedReason | None = None
    """Reason for failed match when is_match = False."""

    states: tuple[EntityState, ...] = ()
    """Matched entity states (for MULTIPLE_TARGETS: all that matched)."""

    no_match_name: str | None = None
    """Name of invalid area/floor or duplicate name when match fails for those reasons."""

    areas: tuple[Area, ...] = ()
    """Areas that were targeted."""

    floors: tuple[Floor, ...] = ()
    """Floors that were targeted."""

    candidates: tuple[MatchTargetsCandidate, ...] = ()
    """For DUPLICATE_NAME and MULTIPLE_TARGETS: the exposed entities that tied (ours)."""

    suggestions: tuple[Suggestion, ...] = ()
    """After a miss: the closest exposed names, or areas/floors, best first (ours)."""

    @property
    def entity_ids(self) -> list[str]:
        """Entity ids of the matched states."""
        return [state.entity_id for state in self.states]


@dataclass(frozen=True, slots=True)
class MatchFailure:
    """What Home Assistant's ``MatchFailedError`` carries: why, and what was asked for.

    Enough to pick the sentence Home Assistant's agent speaks for the failure (its
    ``_get_match_error_response``); the explanation a model reads is built separately.
    """

    reason: MatchFailedReason
    constraints: MatchTargetsConstraints
    no_match_name: str | None = None
    """The unknown area or floor, or the name several entities share."""
    name_exists: bool = False
    """An exposed entity does have the asked name: another constraint (its state) failed."""
