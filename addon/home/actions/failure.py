"""Turning a failed target match into a sentence a model can act on.

Home Assistant's default agent picks an error message from the failure reason and the
constraints (``conversation/default_agent.py`` ``_get_match_error_response``): the device class
is blamed before the domain, a duplicate name before a missing area, and so on. We blame the
same constraint, then add what Home Assistant's message lacks and a model needs to recover in
one step: the closest exposed names after a miss, the tied entities (with their areas) when a
name is ambiguous or one target was needed, and which state or feature the intent requires.
Nothing here names an entity the assistant may not see: suggestions and candidates come from
the resolver, which only considers exposed entities.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from addon.home.actions.response import ErrorCode, IntentResult, error_result
from addon.home.model.live import HomeModel
from addon.home.model.records import Area, Floor
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchFailure,
    MatchTargetsCandidate,
    MatchTargetsConstraints,
    MatchTargetsResult,
    Suggestion,
)

_MAX_LISTED = 8
"""Most entities named in one message; a model does not need the whole house to choose."""


def match_failed(
    intent: str,
    result: MatchTargetsResult,
    constraints: MatchTargetsConstraints,
    model: HomeModel,
    *,
    language: str,
    requirement: str | None = None,
) -> IntentResult:
    """The ``no_valid_targets`` answer for a failed match: the model's explanation and why.

    The explanation (:func:`describe_failure`) is for a model; the :class:`MatchFailure` lets
    the local path say the failure to a person as Home Assistant's agent would.
    """
    reason = result.no_match_reason or MatchFailedReason.NAME
    failure = MatchFailure(
        reason,
        constraints,
        no_match_name=result.no_match_name,
        name_exists=reason is MatchFailedReason.NAME and _named(result, constraints),
    )
    message = describe_failure(result, constraints, model, requirement=requirement)
    return error_result(
        intent, ErrorCode.NO_VALID_TARGETS, message, language=language, failure=failure
    )


def describe_failure(
    result: MatchTargetsResult,
    constraints: MatchTargetsConstraints,
    model: HomeModel,
    *,
    requirement: str | None = None,
) -> str:
    """Why nothing matched, which constraint to change, and what would match instead.

    ``requirement`` says in words what the intent's required states or features mean
    ("playing", "able to skip to the next track") for STATE and FEATURE failures.
    """
    reason = result.no_match_reason
    where = _where(constraints)
    what = _what(constraints)
    if reason in (MatchFailedReason.DEVICE_CLASS, MatchFailedReason.DOMAIN) and (
        constraints.device_classes or constraints.domains
    ):
        text = f"No exposed {what}{where}."
    elif reason is MatchFailedReason.DUPLICATE_NAME:
        text = (
            f"More than one exposed entity is named '{result.no_match_name}'{where}: "
            f"{_candidates(result.candidates)}. Add an area or floor, or pass the "
            "entity id as the name."
        )
    elif reason is MatchFailedReason.INVALID_AREA:
        text = f"There is no area named '{result.no_match_name}'."
        return text + _known(result.suggestions, model.areas.values(), "Areas")
    elif reason is MatchFailedReason.INVALID_FLOOR:
        text = f"There is no floor named '{result.no_match_name}'."
        return text + _known(result.suggestions, model.floors.values(), "Floors")
    elif reason is MatchFailedReason.NAME and requirement and _named(result, constraints):
        # Home Assistant filters on state and domain before names, so a paused player asked
        # to pause fails on its name; say what is really wrong.
        return f"'{constraints.name}' is not {requirement}."
    elif reason is MatchFailedReason.NAME:
        text = f"No exposed entity is named '{constraints.name}'{where}."
    elif reason is MatchFailedReason.AREA:
        text = f"No exposed {what} in area '{constraints.area_name}'."
    elif reason is MatchFailedReason.FLOOR:
        text = f"No exposed {what} on floor '{constraints.floor_name}'."
    elif reason is MatchFailedReason.FEATURE:
        need = requirement or "able to do this"
        text = f"No matching {what}{where} is {need}."
    elif reason is MatchFailedReason.STATE:
        states = requirement or " or ".join(sorted(constraints.states or ()))
        text = f"No matching {what}{where} is {states}."
    elif reason is MatchFailedReason.ASSISTANT:
        target = f"'{constraints.name}'" if constraints.name else f"any {what}{where}"
        text = (
            f"{target} is not exposed to Assist, so it cannot be used; the user can expose "
            "it in Home Assistant's voice assistant settings (Settings > Voice assistants > "
            "Expose), which also works for an entity without a unique ID, whose own settings "
            "dialog cannot."
        )
    elif reason is MatchFailedReason.MULTIPLE_TARGETS:
        text = (
            f"This needs exactly one target, but several match: "
            f"{_candidates(result.candidates)}. Name one of them."
        )
    else:
        text = f"Nothing exposed matches {what}{where}."
    return text + _suggested(result.suggestions)


def _named(result: MatchTargetsResult, constraints: MatchTargetsConstraints) -> bool:
    """True when a suggested entity has exactly the asked name (so the name was not wrong)."""
    wanted = (constraints.name or "").strip().casefold()
    return any(
        wanted in (s.name.strip().casefold(), (s.entity_id or "").casefold())
        for s in result.suggestions
    )


def _what(constraints: MatchTargetsConstraints) -> str:
    """'light', 'media_player or fan entity', 'window device' … for a message."""
    classes = _sorted(constraints.device_classes)
    domains = _sorted(constraints.domains)
    if classes:
        return f"{' or '.join(classes)} device"
    if domains:
        return f"{' or '.join(domains)} entity"
    return "entity"


def _where(constraints: MatchTargetsConstraints) -> str:
    """' named X in area Y on floor Z' (only the parts given)."""
    parts = []
    if constraints.area_name:
        parts.append(f" in area '{constraints.area_name}'")
    if constraints.floor_name:
        parts.append(f" on floor '{constraints.floor_name}'")
    return "".join(parts)


def _sorted(values: Collection[str] | None) -> list[str]:
    return sorted(values) if values else []


def _candidates(candidates: tuple[MatchTargetsCandidate, ...]) -> str:
    """'Lamp (light.lamp_1, area Kitchen), …' for the tied entities."""
    described = [
        f"{c.name or c.entity_id} ({c.entity_id}"
        + (f", area {c.area.name})" if c.area is not None else ")")
        for c in candidates[:_MAX_LISTED]
    ]
    if len(candidates) > _MAX_LISTED:
        described.append(f"and {len(candidates) - _MAX_LISTED} more")
    return ", ".join(described) if described else "several entities"


def _known(suggestions: tuple[Suggestion, ...], places: Iterable[Area | Floor], label: str) -> str:
    """' Areas with close names: …' or, when none is close, every area (homes have few)."""
    close = [suggestion.name for suggestion in suggestions]
    if close:
        return f" {label} with close names: {', '.join(close)}."
    every = [place.name for place in places][:_MAX_LISTED]
    return f" {label}: {', '.join(every)}." if every else f" This home has no {label.lower()}."


def _suggested(suggestions: tuple[Suggestion, ...]) -> str:
    """' Closest exposed names: A (light.a, area Kitchen), B.' after a miss."""
    if not suggestions:
        return ""
    shown = []
    for suggestion in suggestions[:_MAX_LISTED]:
        details = [part for part in (suggestion.entity_id, suggestion.area) if part]
        shown.append(f"{suggestion.name} ({', '.join(details)})" if details else suggestion.name)
    return f" Closest exposed matches: {', '.join(shown)}."
