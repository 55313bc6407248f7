"""Assist's target resolution, ported from Home Assistant 2025.4's ``helpers/intent.py``.

Source: ``homeassistant/helpers/intent.py`` at 2025.4.4 (``async_match_targets``,
``_filter_by_name``, ``_filter_by_features``, ``_filter_by_device_classes``, ``_add_areas``,
``find_areas``/``find_floors``, ``_normalize_name``, the duplicate-name and ``single_target``
handling) and ``helpers/llm.py`` ``IntentTool.async_call`` (preferences from the satellite).

Home Assistant filters every state through the steps below, in this order, and reports the first
step that leaves nothing: domain (DOMAIN), required states (STATE), then, unless only those were
asked, name/alias/entity id (NAME), supported features (FEATURE), device class (DEVICE_CLASS),
floor (INVALID_FLOOR, FLOOR), area (INVALID_AREA, AREA), exposure (ASSISTANT), duplicate names
(DUPLICATE_NAME, or NAME when a preference leaves none) and single target (MULTIPLE_TARGETS).

We compute the same sets from the model's indexes: the smallest indexed step seeds the
candidates and every step is checked per candidate, so a 1,000-entity home resolves in
microseconds. When that leaves nothing, the steps are replayed in Home Assistant's order to name
the same failing step it would. Results keep Home Assistant's order (state machine order).

Where Home Assistant 2026.11 matches differently, the home's release decides
(:mod:`addon.home.model.release`): which names an entity answers to (its ``name_keys``, from
2026.11's registry aliases) and which entities are exposed (2026.11 no longer hides
``group.all_locks``) are settled when the model derives each entity, so the steps here are the
same for every release.

Our one addition, for models that write "kitchen-ceiling" for "Kitchen Ceiling": if the name
step fails, it is retried with loose names (:func:`loose_name`) and every other step unchanged
(exposure, areas, duplicates, single target); if that leaves nothing, Home Assistant's NAME
failure stands. Area and floor names that find no place get the same fallback. What Home
Assistant matches exactly is never widened.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from addon.home.model.live import HomeModel
from addon.home.model.names import loose_name, normalize_name
from addon.home.model.records import Area, EntityState, Floor
from addon.home.targeting.failures import failure_result, suggest_entity
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsCandidate,
    MatchTargetsConstraints,
    MatchTargetsPreferences,
    MatchTargetsResult,
)

AreaCandidateFilter = Callable[[MatchTargetsCandidate, Collection[str]], bool]
"""Home Assistant's ``area_candidate_filter``: keep a candidate for these possible area ids."""


@dataclass(frozen=True, slots=True)
class _Step:
    """One of Home Assistant's filters: its failure reason, its test, an optional index seed."""

    reason: MatchFailedReason
    keep: Callable[[str], bool]
    seed: frozenset[str] | None = None


def _never(_entity_id: str) -> bool:
    return False


def match_targets(
    model: HomeModel,
    constraints: MatchTargetsConstraints,
    preferences: MatchTargetsPreferences | None = None,
    *,
    entity_ids: Iterable[str] | None = None,
    area_candidate_filter: AreaCandidateFilter | None = None,
) -> MatchTargetsResult:
    """Match entities as Home Assistant's ``async_match_targets`` does, over ``model``.

    ``entity_ids`` restricts the search like Home Assistant's ``states`` argument (empty or
    None means every state). Only entities exposed to ``constraints.assistant`` can match.
    """
    return _Matcher(model, constraints, preferences or MatchTargetsPreferences()).run(
        entity_ids, area_candidate_filter
    )


class _Matcher:
    """One resolution; holds what the steps share so each test stays a small closure."""

    __slots__ = ("constraints", "model", "preferences")

    def __init__(
        self,
        model: HomeModel,
        constraints: MatchTargetsConstraints,
        preferences: MatchTargetsPreferences,
    ) -> None:
        self.model = model
        self.constraints = constraints
        self.preferences = preferences

    def candidate(self, entity_id: str) -> MatchTargetsCandidate:
        """Home Assistant's candidate for ``entity_id``, with entry, device and area resolved."""
        model = self.model
        entity = model.entity(entity_id)
        state = model.state(entity_id)
        assert entity is not None
        assert state is not None
        entry = entity.entry
        assistant = self.constraints.assistant
        return MatchTargetsCandidate(
            state=state,
            is_exposed=model.is_exposed(entity, assistant) if assistant else True,
            entity=entry,
            area=model.areas.get(entity.area_id) if entity.area_id else None,
            device=model.devices.get(entity.device_id) if entity.device_id else None,
            matched_name=self.constraints.name,
            name=entity.name,
        )

    def area_of(self, entity_id: str) -> str | None:
        entity = self.model.entity(entity_id)
        return entity.area_id if entity is not None else None

    def floor_of(self, entity_id: str) -> str | None:
        entity = self.model.entity(entity_id)
        return entity.floor_id if entity is not None else None

    def run(
        self, entity_ids: Iterable[str] | None, area_filter: AreaCandidateFilter | None
    ) -> MatchTargetsResult:
        """Evaluate the steps; see the module docstring for their order."""
        model, index, constraints = self.model, self.model.index, self.constraints
        domains = constraints.domains

        # Step 1, the pool: Home Assistant's hass.states.async_all(domains), or given states.
        given = list(entity_ids or ())
        assistant = constraints.assistant
        if given:
            pool = {e for e in given if model.state(e) is not None}
            if domains:
                pool = {e for e in pool if e.partition(".")[0] in domains}
            if not pool:
                return MatchTargetsResult(False, MatchFailedReason.DOMAIN)
            pool_seed: frozenset[str] | None = frozenset(pool)
        elif domains is not None:
            pool_seed = frozenset().union(*(index.by_domain.get(d, ()) for d in domains))
            if not pool_seed:
                return MatchTargetsResult(False, MatchFailedReason.DOMAIN)
        else:
            pool_seed = None
            if not index.order:
                return MatchTargetsResult(False, MatchFailedReason.DOMAIN)

        steps: list[_Step] = []
        if constraints.states:
            wanted_states = constraints.states

            def in_states(entity_id: str) -> bool:
                state = model.state(entity_id)
                return state is not None and state.state in wanted_states

            steps.append(_Step(MatchFailedReason.STATE, in_states))

        targeted_floors: tuple[Floor, ...] = ()
        targeted_areas: tuple[Area, ...] = ()
        narrowed = bool(
            constraints.name
            or constraints.features
            or constraints.device_classes
            or constraints.area_name
            or constraints.floor_name
            or constraints.single_target
        )
        if narrowed:
            steps.extend(self._name_features_classes())
            area_steps, targeted_floors, targeted_areas = self._place_steps(area_filter)
            steps.extend(area_steps)
        if assistant:
            entity_of, is_exposed = model.entity, model.is_exposed

            def exposed(entity_id: str) -> bool:
                entity = entity_of(entity_id)
                return entity is not None and is_exposed(entity, assistant)

            steps.append(_Step(MatchFailedReason.ASSISTANT, exposed))

        survivors = self._survivors(pool_seed, steps)
        if not survivors:
            failed = self._first_failure(pool_seed, steps)
            if failed is MatchFailedReason.NAME and (loose := self._loose_retry(pool_seed, steps)):
                return self._finish(loose, targeted_floors, targeted_areas, area_filter)

            def acceptable(entity_id: str) -> bool:
                # Suggestions respect the domain (or given states) and, above all, exposure.
                entity = model.entity(entity_id)
                if entity is None or (pool_seed is not None and entity_id not in pool_seed):
                    return False
                return not assistant or model.is_exposed(entity, assistant)

            return failure_result(
                model, constraints, failed, targeted_floors, targeted_areas, acceptable
            )
        if not narrowed:
            return MatchTargetsResult(True, states=self._states(survivors))
        return self._finish(survivors, targeted_floors, targeted_areas, area_filter)

    # Steps --------------------------------------------------------------------------------

    def _name_features_classes(self) -> list[_Step]:
        model, index, constraints = self.model, self.model.index, self.constraints
        steps: list[_Step] = []
        if name := constraints.name:
            key = normalize_name(name)

            def named(entity_id: str) -> bool:
                entity = model.entity(entity_id)
                return entity_id == name or (entity is not None and key in entity.name_keys)

            seed = index.by_name.get(key, frozenset())
            if name in index.order:
                seed = seed | {name}
            steps.append(_Step(MatchFailedReason.NAME, named, seed))
        if features := constraints.features:

            def supports(entity_id: str) -> bool:
                state = model.state(entity_id)
                supported = state.attributes.get("supported_features") if state else None
                return isinstance(supported, int) and (supported & features) == features

            steps.append(_Step(MatchFailedReason.FEATURE, supports))
        if classes := constraints.device_classes:

            def classed(entity_id: str) -> bool:
                entity = model.entity(entity_id)
                return entity is not None and not entity.match_device_classes.isdisjoint(classes)

            seed = frozenset().union(*(index.by_device_class.get(c, ()) for c in classes))
            steps.append(_Step(MatchFailedReason.DEVICE_CLASS, classed, seed))
        return steps

    def _place_steps(
        self, area_filter: AreaCandidateFilter | None
    ) -> tuple[list[_Step], tuple[Floor, ...], tuple[Area, ...]]:
        model, constraints = self.model, self.constraints
        steps: list[_Step] = []
        floor_name, area_name = constraints.floor_name, constraints.area_name
        floors = tuple(model.find_floors(floor_name, loose=True)) if floor_name else ()
        areas = tuple(model.find_areas(area_name, loose=True)) if area_name else ()
        if not floor_name and not area_name:
            return steps, floors, areas
        possible = set(model.areas)
        if constraints.floor_name:
            if not floors:
                steps.append(_Step(MatchFailedReason.INVALID_FLOOR, _never, frozenset()))
                return steps, floors, areas
            floor_ids = {floor.floor_id for floor in floors}
            possible = {a.area_id for a in model.areas.values() if a.floor_id in floor_ids}
            steps.append(self._in_areas(MatchFailedReason.FLOOR, frozenset(possible), area_filter))
        if constraints.area_name:
            if not areas:
                steps.append(_Step(MatchFailedReason.INVALID_AREA, _never, frozenset()))
                return steps, floors, areas
            possible &= {area.area_id for area in areas}
            steps.append(self._in_areas(MatchFailedReason.AREA, frozenset(possible), area_filter))
        return steps, floors, areas

    def _in_areas(
        self,
        reason: MatchFailedReason,
        possible: frozenset[str],
        area_filter: AreaCandidateFilter | None,
    ) -> _Step:
        if area_filter is not None:
            custom = area_filter
            return _Step(reason, lambda entity_id: custom(self.candidate(entity_id), possible))
        index = self.model.index

        def in_area(entity_id: str) -> bool:
            return self.area_of(entity_id) in possible

        seed = frozenset().union(*(index.by_area.get(area_id, ()) for area_id in possible))
        return _Step(reason, in_area, seed)

    # Evaluation ---------------------------------------------------------------------------

    def _loose_retry(self, pool_seed: frozenset[str] | None, steps: list[_Step]) -> list[str]:
        """The survivors when the failed exact name step is replaced by a loose one.

        Entity ids are not loosened: Home Assistant accepts an id only exactly.
        """
        key = loose_name(self.constraints.name or "")
        seed = self.model.index.by_loose_name.get(key) if key else None
        if not seed:
            return []
        loose = _Step(MatchFailedReason.NAME, seed.__contains__, seed)
        retried = [loose if step.reason is MatchFailedReason.NAME else step for step in steps]
        return self._survivors(pool_seed, retried)

    def _survivors(self, pool_seed: frozenset[str] | None, steps: list[_Step]) -> list[str]:
        """Entities passing every step, starting from the smallest indexed set.

        A seeded step's seed is exactly the set its test accepts, so membership replaces the
        test, and the seed we walk needs no test at all.
        """
        seeds: list[frozenset[str]] = [step.seed for step in steps if step.seed is not None]
        if pool_seed is not None:
            seeds.append(pool_seed)
        smallest = min(seeds, key=len) if seeds else None
        tests: list[Callable[[str], bool]] = [s.__contains__ for s in seeds if s is not smallest]
        tests += [step.keep for step in steps if step.seed is None]
        walk: Iterable[str] = self.model.index.order if smallest is None else smallest
        return self.model.index.ordered(e for e in walk if all(test(e) for test in tests))

    def _first_failure(
        self, pool_seed: frozenset[str] | None, steps: list[_Step]
    ) -> MatchFailedReason:
        """Replay the steps in Home Assistant's order; the first that leaves nothing failed."""
        pool: Iterable[str] = self.model.index.order if pool_seed is None else pool_seed
        passed: list[Callable[[str], bool]] = []
        current: list[str] | None = None
        if pool_seed is not None:
            passed.append(pool_seed.__contains__)
        for step in steps:
            if current is None and step.seed is not None:
                current = [e for e in step.seed if step.keep(e) and all(t(e) for t in passed)]
                if not current:
                    return step.reason
            elif current is None:
                if not any(step.keep(e) and all(test(e) for test in passed) for e in pool):
                    return step.reason
                passed.append(step.keep)
            else:
                current = [e for e in current if step.keep(e)]
                if not current:
                    return step.reason
        # Unreachable when the survivors were empty; keep a truthful answer anyway.
        return steps[-1].reason if steps else MatchFailedReason.DOMAIN

    def _states(self, entity_ids: list[str]) -> tuple[EntityState, ...]:
        model = self.model
        return tuple(state for e in entity_ids if (state := model.state(e)) is not None)

    # Outcomes -----------------------------------------------------------------------------

    def _finish(
        self,
        survivors: list[str],
        floors: tuple[Floor, ...],
        areas: tuple[Area, ...],
        area_filter: AreaCandidateFilter | None,
    ) -> MatchTargetsResult:
        """Home Assistant's duplicate-name and single-target handling, then success."""
        constraints, preferences = self.constraints, self.preferences

        def in_area(entity_id: str, area_id: str) -> bool:
            if area_filter is not None:
                return area_filter(self.candidate(entity_id), {area_id})
            return self.area_of(entity_id) == area_id

        def on_floor(entity_id: str) -> bool:
            return self.area_of(entity_id) is not None and (
                self.floor_of(entity_id) == preferences.floor_id
            )

        if constraints.name and not constraints.allow_duplicate_names and len(survivors) > 1:
            group = survivors
            settled = False
            if preferences.floor_id:
                group = [e for e in group if on_floor(e)]
                settled = len(group) < 2
            if not settled and (area_id := preferences.area_id):
                group = [e for e in group if in_area(e, area_id)]
                settled = len(group) < 2
            if not settled:
                return MatchTargetsResult(
                    False,
                    MatchFailedReason.DUPLICATE_NAME,
                    no_match_name=constraints.name,
                    areas=areas,
                    floors=floors,
                    candidates=tuple(self.candidate(e) for e in group),
                )
            if not group:
                # The preferred floor or area had none of them: Home Assistant says NAME.
                return MatchTargetsResult(
                    False,
                    MatchFailedReason.NAME,
                    areas=areas,
                    floors=floors,
                    suggestions=tuple(
                        s for e in survivors if (s := suggest_entity(self.model, e)) is not None
                    ),
                )
            survivors = group

        if constraints.single_target and len(survivors) > 1:
            chosen = survivors
            if preferences.area_id or preferences.floor_id:
                if area_id := preferences.area_id:
                    chosen = [e for e in survivors if in_area(e, area_id)]
                if len(chosen) > 1 and preferences.floor_id:
                    # As in Home Assistant: the floor filter starts again from all candidates.
                    chosen = [e for e in survivors if on_floor(e)]
            if len(chosen) != 1:
                return MatchTargetsResult(
                    False,
                    MatchFailedReason.MULTIPLE_TARGETS,
                    states=self._states(survivors),
                    candidates=tuple(self.candidate(e) for e in survivors),
                )
            survivors = chosen

        return MatchTargetsResult(True, states=self._states(survivors), areas=areas, floors=floors)
