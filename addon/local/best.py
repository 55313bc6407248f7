"""Choosing among a sentence's readings: hassil's order, then the reading the home can do.

``hassil.recognize_best`` prefers a custom sentence, then a reading with a real ``name``, the
longest name, fewer wildcards and more literal text; hassil 3.12 breaks what is still tied by
the intent's name, alphabetically. "What is the furnace temperature" then reads as
``HassClimateGetTemperature`` ("Climate" sorts before "GetState") although the Furnace is a
temperature sensor, and "muda a persiana para 50%" as ``HassLightSet`` on a cover. Before that
last tie-break we prefer the reading whose named entity's domain the intent can act on (its
spec's ``platforms``), which is what Home Assistant's handler would then need: a reading it
would refuse loses to one it can carry out. Everything else is hassil's order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hassil.recognize import RecognizeResult

from addon.home.actions.intents import INTENTS
from addon.local.slots import reading_values

Present = Callable[[frozenset[str], frozenset[str]], bool]
"""Whether the home has an exposed entity of one of these domains (and device classes)."""


def best_reading(
    results: Iterable[RecognizeResult],
    *,
    best_metadata_key: str | None = None,
    best_slot_name: str | None = None,
    present: Present | None = None,
) -> RecognizeResult | None:
    """``recognize_best``'s choice among ``results`` (``recognize_all``'s), ties to the doable.

    ``present`` tells a reading by kind ("which gates are closed") that the home can answer
    from one about a kind it has none of (the same words read as locks).
    """
    metadata_found = slot_found = False
    best: list[RecognizeResult] = []
    best_quality: int | None = None
    for result in results:
        if best_metadata_key is not None:
            is_metadata = bool(
                result.intent_metadata is not None and result.intent_metadata.get(best_metadata_key)
            )
            if metadata_found and not is_metadata:
                continue
            if not metadata_found and is_metadata:
                metadata_found = True
                slot_found = False
                best = []
                best_quality = None
        if best_slot_name:
            entity = result.entities.get(best_slot_name)
            is_slot = entity is not None and not entity.is_wildcard
            if slot_found and not is_slot:
                continue
            if not slot_found and is_slot:
                slot_found = True
                best = []
            if is_slot and entity is not None and isinstance(entity.value, str):
                quality = len(entity.text)
                if best_quality is None or quality > best_quality:
                    best_quality = quality
                    best = []
                elif quality < best_quality:
                    continue
        best.append(result)
    if not best:
        return None
    if len(best) == 1:
        return best[0]

    def score(result: RecognizeResult) -> tuple[int, int, int, int, int, str]:
        """Hassil's sort key, then whether the reading fits the home, then the intent's name.

        Hassil's: fewer wildcards, more literal text, less text in wildcards. Between two
        readings that both fit, the one that says more (a device class beside the domain)
        is the narrower one.
        """
        wildcards = [entity for entity in result.entities_list if entity.is_wildcard]
        return (
            len(wildcards),
            -result.text_chunks_matched,
            sum(len(entity.text or "") for entity in wildcards),
            0 if _fits(result, present) else 1,
            -len(result.entities),
            result.intent.name,
        )

    return sorted(best, key=score)[0]


def _fits(result: RecognizeResult, present: Present | None) -> bool:
    """Whether the reading can be carried out on what it names.

    The named entity's domain is one the intent acts on and the one the template says
    (a fan is not turned on as a scene); a reading by kind names a kind the home has.
    """
    named = (result.context or {}).get("domain")
    domains = reading_values(result, "domain")
    if isinstance(named, str):
        spec = INTENTS.get(result.intent.name)
        if spec is not None and spec.platforms is not None and named not in spec.platforms:
            return False
        return not domains or named in domains
    if present is not None and domains and "name" not in result.entities:
        return present(domains, reading_values(result, "device_class"))
    return True
