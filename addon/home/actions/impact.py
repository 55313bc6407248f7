"""What an action does to each entity: the confirmation policy judges effects, not names.

A policy entry says "unlocking a lock asks first". Judged by the action's name, that promise
breaks wherever Home Assistant reaches the lock under another name: ``homeassistant.toggle`` on
a garage door (Home Assistant calls ``cover.toggle``), a call on the garage's area, a scene that
sets the lock to ``unlocked``, ``scene.apply`` with the lock in its entities, a script (called as
``script.turn_on`` or as ``script.<name>``) or a triggered automation whose actions unlock it.
:meth:`Impacts.of` expands a call into :class:`Effect` s, one per entity it reaches and the
entity's own domain action, the way Home Assistant would carry it out:

* targets by area, device, floor and label are resolved through the home model;
* ``homeassistant.turn_on``/``turn_off``/``toggle`` become the target's own domain service when
  that domain has one (``components/homeassistant``: ``has_service(domain, service)``, else
  nothing happens: a lock has no ``turn_on``);
* a service that can open a cover or valve (``toggle``, ``set_cover_position``) also counts as
  opening it, so an entry naming ``open_cover`` holds a toggle of a closed garage door;
* a scene becomes the states it sets (``unlocked`` is ``lock.unlock``), ``scene.apply`` the
  states in its data; a script or an automation the services its actions call, at any depth
  (``choose``, ``if``, ``sequence``, ``parallel``, ``repeat``, scenes and other scripts).

Where what happens cannot be known (a template in a target or a service name, a device
action, an action type we do not read, a configuration Home Assistant did not give), the
expansion says so (:attr:`Impact.unknown`) and the policy holds the call if it covers
anything. Expansions of scenes, scripts and automations are kept per model object and
revision (:class:`ImpactCache`), so a call costs dictionary lookups, not a walk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from addon.home.model.live import HomeModel
from addon.text import JsonValue

GENERIC_SERVICES = frozenset({"turn_on", "turn_off", "toggle"})
"""``homeassistant``'s services that Home Assistant passes on to each target's own domain."""

DOMAIN_SERVICES: Mapping[str, frozenset[str]] = {
    "cover": frozenset(
        {
            "open_cover", "close_cover", "toggle", "set_cover_position", "stop_cover",
            "open_cover_tilt", "close_cover_tilt", "toggle_cover_tilt",
            "set_cover_tilt_position", "stop_cover_tilt",
        }
    ),
    "lock": frozenset({"lock", "unlock", "open"}),
    "alarm_control_panel": frozenset(
        {
            "alarm_disarm", "alarm_arm_home", "alarm_arm_away", "alarm_arm_night",
            "alarm_arm_vacation", "alarm_arm_custom_bypass", "alarm_trigger",
        }
    ),
    "valve": frozenset(
        {"open_valve", "close_valve", "toggle", "set_valve_position", "stop_valve"}
    ),
}  # fmt: skip
"""The services of the domains the default policy is about (Home Assistant 2025.4 and 2026.11):
a generic service its domain lacks does nothing there. Other domains are assumed to have it."""

IMPLIED: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("cover", "toggle"): ("toggle", "open_cover"),
    ("cover", "set_cover_position"): ("set_cover_position", "open_cover"),
    ("valve", "toggle"): ("toggle", "open_valve"),
    ("valve", "set_valve_position"): ("set_valve_position", "open_valve"),
    ("lock", "open"): ("open", "unlock"),
}
"""What a service may amount to besides its name: a toggle of a closed garage door opens it."""

SCENE_STATES: Mapping[str, Mapping[str, str]] = {
    "lock": {"locked": "lock", "unlocked": "unlock", "open": "open", "opening": "open"},
    "cover": {"open": "open_cover", "opening": "open_cover", "closed": "close_cover",
              "closing": "close_cover"},
    "valve": {"open": "open_valve", "opening": "open_valve", "closed": "close_valve",
              "closing": "close_valve"},
    "alarm_control_panel": {
        "disarmed": "alarm_disarm", "armed_home": "alarm_arm_home",
        "armed_away": "alarm_arm_away", "armed_night": "alarm_arm_night",
        "armed_vacation": "alarm_arm_vacation", "armed_custom_bypass": "alarm_arm_custom_bypass",
        "triggered": "alarm_trigger",
    },
}  # fmt: skip
"""The service a scene's state for an entity amounts to (Home Assistant's ``reproduce_state``
of each domain); elsewhere ``on`` and ``off`` are ``turn_on`` and ``turn_off``."""

GROUP_KEYS = ("area_id", "device_id", "floor_id", "label_id")

HARMLESS_ACTIONS = frozenset(
    {
        "delay", "wait_template", "wait_for_trigger", "condition", "variables", "stop",
        "event", "set_conversation_response",
    }
)  # fmt: skip
"""Action types of a script or automation that act on no entity (an ``event`` is fired, which
only an automation listening for it acts on: see DOCS, "The gate")."""

MAX_DEPTH = 8
"""Scripts calling scripts: deeper than this, what happens counts as unknowable."""


@dataclass(frozen=True, slots=True)
class Effect:
    """What a call does to one entity: the entity's own domain and the services it amounts to.

    ``entity_id`` None: some entities of ``domain`` that cannot be named (a template target);
    ``services`` None: something is done to the entity, but what cannot be told (a scene's
    state we cannot read), so any entry on it holds.
    """

    domain: str
    entity_id: str | None
    services: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Impact:
    """Every effect of a call, and why what it does cannot be known (empty when it can)."""

    effects: tuple[Effect, ...] = ()
    unknown: str = ""


def is_template(value: object) -> bool:
    """Whether a string holds a Jinja template Home Assistant would render."""
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _values(value: JsonValue) -> list[str]:
    """A target's values: a string (perhaps comma-separated) or a list of them."""
    if value is None:
        return []
    items: Iterable[JsonValue] = value if isinstance(value, list | tuple) else [value]
    found: list[str] = []
    for item in items:
        if is_template(item):
            found.append(str(item))
        else:
            found.extend(part.strip() for part in str(item).split(",") if part.strip())
    return found


@dataclass(slots=True)
class _Walk:
    """One expansion in progress: the effects found, why not everything is known."""

    effects: list[Effect] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def impact(self) -> Impact:
        return Impact(tuple(dict.fromkeys(self.effects)), "; ".join(dict.fromkeys(self.unknown)))


class Impacts:
    """The expansion of calls in one home (one model object at one revision).

    Routines (scenes, scripts, automations) and groups (areas, devices, floors, labels) are
    expanded once each and kept; a plain call (``light.turn_off`` on entity ids) is one lookup.
    ``model`` None: nothing is known of the home; a group or a routine is unknowable, except a
    routine when the model read none (a fixture home), which is judged by name alone.
    """

    __slots__ = ("_groups", "_model", "_routines")

    def __init__(self, model: HomeModel | None) -> None:
        """Expansions in ``model``; nothing is computed until asked."""
        self._model = model
        self._routines: dict[str, Impact] = {}
        self._groups: dict[str, dict[str, tuple[str, ...]]] | None = None

    @property
    def model(self) -> HomeModel | None:
        """The home the expansions are of."""
        return self._model

    def of(
        self,
        domain: str,
        service: str,
        entity_ids: Sequence[str],
        data: Mapping[str, JsonValue],
        groups: Mapping[str, Sequence[str]] | None = None,
    ) -> Impact | None:
        """What ``domain.service`` on ``entity_ids`` (and ``groups``: ``area_id`` → ids) does.

        None when the call does exactly what it says to the entities it names (``light.turn_off``
        on entity ids), the common case, which the policy checks by name alone.
        """
        if (
            not groups
            and domain not in _EXPANDED_DOMAINS
            and (domain, service) not in IMPLIED
            and not is_template(service)
        ):
            return None
        walk = _Walk()
        targets: dict[str, list[str]] = {"entity_id": list(entity_ids)}
        for key, values in (groups or {}).items():
            targets.setdefault(key, []).extend(values)
        self._call(walk, domain, service, targets, data, 0)
        return walk.impact()

    # -- one call --------------------------------------------------------------------------

    def _call(
        self,
        walk: _Walk,
        domain: str,
        service: str,
        targets: Mapping[str, Sequence[str]],
        data: Mapping[str, JsonValue],
        depth: int,
    ) -> None:
        action = f"{domain}.{service}"
        if is_template(action):
            walk.unknown.append(f"the action is a template ({action})")
            return
        entity_ids, unresolved = self._entities(walk, targets)
        if domain == "scene" and service == "apply":
            self._scene_states(walk, data.get("entities"), "scene.apply")
            return
        if domain == "homeassistant" and service in GENERIC_SERVICES:
            if unresolved:
                walk.unknown.append(f"{action} on {unresolved}, which cannot be resolved")
            for entity_id in entity_ids:
                own = entity_id.partition(".")[0]
                known = DOMAIN_SERVICES.get(own)
                if own != "homeassistant" and (known is None or service in known):
                    self._on_entity(walk, own, service, entity_id, depth)
            return
        if unresolved:
            if domain in _EXPANDED_DOMAINS:
                walk.unknown.append(f"{action} on {unresolved}, which cannot be resolved")
            else:
                walk.effects.append(
                    Effect(domain, None, IMPLIED.get((domain, service), (service,)))
                )
        if domain == "script" and service not in _SCRIPT_OWN_SERVICES:
            # script.<name>: the script itself, called as a service.
            self._routine(walk, self._script_entity(service), "script", depth)
            return
        for entity_id in entity_ids:
            own = entity_id.partition(".")[0]
            if own == domain:
                self._on_entity(walk, domain, service, entity_id, depth)

    def _on_entity(
        self, walk: _Walk, domain: str, service: str, entity_id: str, depth: int
    ) -> None:
        """``domain.service`` on one entity of that domain."""
        if domain == "scene" and service == "turn_on":
            self._routine(walk, entity_id, "scene", depth)
        elif domain == "script" and service in ("turn_on", "toggle"):
            self._routine(walk, entity_id, "script", depth)
        elif domain == "automation" and service == "trigger":
            self._routine(walk, entity_id, "automation", depth)
        else:
            walk.effects.append(
                Effect(domain, entity_id, IMPLIED.get((domain, service), (service,)))
            )

    def _entities(self, walk: _Walk, targets: Mapping[str, Sequence[str]]) -> tuple[list[str], str]:
        """The entity ids the targets name, and the targets that could not be resolved."""
        entity_ids: list[str] = []
        unresolved: list[str] = []
        for key, values in targets.items():
            for value in values:
                if is_template(value):
                    unresolved.append(f"a template ({value})")
                elif key == "entity_id":
                    if value == "all":
                        unresolved.append("all entities")
                    else:
                        entity_ids.append(value)
                elif key in GROUP_KEYS:
                    members = self._group(key, value)
                    if members is None:
                        unresolved.append(f"{key.removesuffix('_id')} {value}")
                    else:
                        entity_ids.extend(members)
        return entity_ids, ", ".join(unresolved)

    # -- routines --------------------------------------------------------------------------

    def _routine(self, walk: _Walk, entity_id: str, kind: str, depth: int) -> None:
        """A scene, script or automation: its own effects (kept), then its own unknowns."""
        if entity_id in walk.seen:
            return  # a script calling itself does nothing it has not already done
        if depth >= MAX_DEPTH:
            walk.unknown.append(f"{entity_id} calls routines too deeply nested to follow")
            return
        impact = self._routines.get(entity_id)
        if impact is None:
            inner = _Walk(seen={*walk.seen, entity_id})
            self._expand_routine(inner, entity_id, kind, depth + 1)
            impact = inner.impact()
            if not walk.seen:
                self._routines[entity_id] = impact
        walk.effects.extend(impact.effects)
        if impact.unknown:
            walk.unknown.append(impact.unknown)

    def _expand_routine(self, walk: _Walk, entity_id: str, kind: str, depth: int) -> None:
        model = self._model
        routines = model.routines if model is not None else None
        if kind == "scene":
            states = routines.scenes.get(entity_id) if routines is not None else None
            if states is not None:
                self._scene_states(walk, states, entity_id)
                return
            state = model.state(entity_id) if model is not None else None
            listed = state.attributes.get("entity_id") if state is not None else None
            if not isinstance(listed, list | tuple):
                walk.unknown.append(f"what {entity_id} sets is not known")
                return
            for member in listed:
                member = str(member)
                walk.effects.append(Effect(member.partition(".")[0], member, None))
            return
        if model is not None and routines is None:
            return  # nothing was read of this home's routines: judged by name only
        table = (
            None
            if routines is None
            else (routines.scripts if kind == "script" else routines.automations)
        )
        config = table.get(entity_id) if table is not None else None
        if config is None:
            walk.unknown.append(f"the configuration of {entity_id} could not be read")
            return
        actions = (
            config.get("sequence")
            if kind == "script"
            else (config.get("actions", config.get("action")))
        )
        self._actions(walk, actions, entity_id, depth)

    def _scene_states(
        self, walk: _Walk, states: JsonValue | Mapping[str, JsonValue], where: str
    ) -> None:
        """The effects of setting each entity to a state (a scene's entities)."""
        if is_template(states) or not isinstance(states, Mapping):
            walk.unknown.append(f"the states {where} sets are not known")
            return
        for entity_id, wanted in states.items():
            entity_id = str(entity_id)
            domain = entity_id.partition(".")[0]
            state = wanted.get("state") if isinstance(wanted, Mapping) else wanted
            walk.effects.append(Effect(domain, entity_id, _service_for_state(domain, state)))

    def _actions(self, walk: _Walk, actions: JsonValue, where: str, depth: int) -> None:
        """Every service an action sequence calls, at any depth of its building blocks."""
        if actions is None:
            return
        if isinstance(actions, Mapping):
            actions = [actions]
        if not isinstance(actions, list | tuple):
            walk.unknown.append(f"{where} has actions that cannot be read")
            return
        for action in actions:
            if not isinstance(action, Mapping):
                walk.unknown.append(f"{where} has an action that cannot be read")
            elif action.get("enabled") is not False:
                self._action(walk, action, where, depth)

    def _action(self, walk: _Walk, action: Mapping[str, JsonValue], where: str, depth: int) -> None:
        name = action.get("action", action.get("service"))
        if name is not None:
            self._service_action(walk, str(name), action, where, depth)
        elif "scene" in action:
            for scene in _values(action.get("scene")):
                if is_template(scene):
                    walk.unknown.append(f"{where} turns on a scene named by a template")
                else:
                    self._routine(walk, scene, "scene", depth)
        elif "choose" in action:
            options = action.get("choose")
            for option in options if isinstance(options, list) else [options]:
                if isinstance(option, Mapping):
                    self._actions(walk, option.get("sequence"), where, depth)
                else:
                    walk.unknown.append(f"{where} has a choice that cannot be read")
            self._actions(walk, action.get("default"), where, depth)
        elif "if" in action:
            self._actions(walk, action.get("then"), where, depth)
            self._actions(walk, action.get("else"), where, depth)
        elif "parallel" in action:
            branches = action.get("parallel")
            for branch in branches if isinstance(branches, list) else [branches]:
                if isinstance(branch, Mapping) and "sequence" in branch and len(branch) <= 2:
                    self._actions(walk, branch.get("sequence"), where, depth)
                else:
                    self._actions(walk, branch, where, depth)
        elif "sequence" in action:
            self._actions(walk, action.get("sequence"), where, depth)
        elif "repeat" in action:
            repeat = action.get("repeat")
            inner = repeat.get("sequence") if isinstance(repeat, Mapping) else None
            self._actions(walk, inner, where, depth)
        elif "device_id" in action:
            walk.unknown.append(f"{where} has a device action")
        elif not HARMLESS_ACTIONS.intersection(action):
            kinds = ", ".join(sorted(str(key) for key in action)) or "empty"
            walk.unknown.append(f"{where} has an action we do not read ({kinds})")

    def _service_action(
        self, walk: _Walk, name: str, action: Mapping[str, JsonValue], where: str, depth: int
    ) -> None:
        if is_template(name) or "." not in name:
            walk.unknown.append(f"{where} calls an action named by a template ({name})")
            return
        domain, service = name.split(".", 1)
        targets: dict[str, list[str]] = {}
        data = action.get("data", action.get("data_template"))
        if is_template(data):
            walk.unknown.append(f"{where} calls {name} with data from a template")
            return
        data = data if isinstance(data, Mapping) else {}
        target = action.get("target")
        if is_template(target):
            walk.unknown.append(f"{where} calls {name} on a target from a template")
            return
        for source in (action, target if isinstance(target, Mapping) else {}, data):
            for key in ("entity_id", *GROUP_KEYS):
                if key in source:
                    targets.setdefault(key, []).extend(_values(source[key]))
        if not any(targets.values()) and domain in _EXPANDED_DOMAINS - {"script"}:
            walk.unknown.append(f"{where} calls {name} without a target")
            return
        if not any(targets.values()) and domain not in _EXPANDED_DOMAINS:
            walk.effects.append(Effect(domain, None, IMPLIED.get((domain, service), (service,))))
            return
        self._call(walk, domain, service, targets, data, depth)

    # -- the home --------------------------------------------------------------------------

    def _script_entity(self, service: str) -> str:
        """The script entity whose service is ``script.<service>``."""
        model = self._model
        if model is not None:
            for entity_id in model.index.by_domain.get("script", ()):
                if model.script_service_name(entity_id) == service:
                    return entity_id
        return f"script.{service}"

    def _group(self, key: str, value: str) -> tuple[str, ...] | None:
        """The entities in an area, device, floor or label; None when the home has no such."""
        if self._model is None:
            return None
        if self._groups is None:
            self._groups = _group_index(self._model)
        return self._groups[key].get(value)


def _group_index(model: HomeModel) -> dict[str, dict[str, tuple[str, ...]]]:
    """Entity ids by area, device, floor and label (every group the home knows, even empty)."""
    index: dict[str, dict[str, list[str]]] = {key: {} for key in GROUP_KEYS}
    for area_id, area in model.areas.items():
        index["area_id"].setdefault(area_id, [])
        if area.floor_id:
            index["floor_id"].setdefault(area.floor_id, [])
    for floor_id in model.floors:
        index["floor_id"].setdefault(floor_id, [])
    for device_id, device in model.devices.items():
        index["device_id"].setdefault(device_id, [])
        for label in device.labels:
            index["label_id"].setdefault(label, [])
    for entity_id in model.entity_ids():
        entity = model.entity(entity_id)
        if entity is None:
            continue
        for key, value in (
            ("area_id", entity.area_id),
            ("floor_id", entity.floor_id),
            ("device_id", entity.device_id),
        ):
            if value:
                index[key].setdefault(value, []).append(entity_id)
        labels = set(entity.entry.labels if entity.entry is not None else ())
        if entity.device_id and entity.device_id in model.devices:
            labels.update(model.devices[entity.device_id].labels)
        for label in labels:
            index["label_id"].setdefault(label, []).append(entity_id)
    return {
        key: {group: tuple(ids) for group, ids in groups.items()} for key, groups in index.items()
    }


def _service_for_state(domain: str, state: JsonValue) -> tuple[str, ...] | None:
    """The service setting ``domain``'s entity to ``state`` amounts to; None: cannot tell."""
    text = str(state).lower() if state is not None else ""
    service = SCENE_STATES.get(domain, {}).get(text)
    if service is None and domain not in SCENE_STATES:
        service = {"on": "turn_on", "off": "turn_off"}.get(text)
    if service is None:
        return None
    return IMPLIED.get((domain, service), (service,))


_EXPANDED_DOMAINS = frozenset({"homeassistant", "scene", "script", "automation"})
"""Domains whose services act through other entities' services."""

_SCRIPT_OWN_SERVICES = frozenset({"turn_on", "turn_off", "toggle", "reload"})
"""The ``script`` integration's own services; any other ``script.<name>`` runs a script."""


@dataclass(slots=True)
class ImpactCache:
    """The :class:`Impacts` of the current home, kept while the model object and revision last."""

    _current: Impacts | None = None
    _revision: int = -1

    def of(self, model: HomeModel | None) -> Impacts:
        """The expansions of ``model`` (new when the model or its revision changed)."""
        current = self._current
        revision = model.revision if model is not None else -1
        if current is None or current.model is not model or self._revision != revision:
            current = Impacts(model)
            self._current, self._revision = current, revision
        return current
