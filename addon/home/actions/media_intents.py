"""The media player intents that are more than one service call per matched player.

Ports of Home Assistant 2026.11's ``MediaSetVolumeRelativeHandler`` and
``MediaSearchAndPlayHandler`` (``components/media_player/intent.py``):

* HassSetVolumeRelative matches players that can set their volume; with several matched and
  no name, only the playing ones. "up"/"down" is one volume step (Home Assistant calls the
  entity's ``async_volume_up``/``down``, which is what ``media_player.volume_up``/``down``
  run), a number is that many percent added to each player's level, kept within 0..100. Its
  answer lists no targets, as Home Assistant's does;
* HassMediaSearchAndPlay matches one player that can search and play, reads the first result
  of ``media_player.search_media`` (a read: it changes nothing) and plays it with
  ``media_player.play_media``. The answer carries the result as the ``media`` speech slot.
"""

from __future__ import annotations

import asyncio

from addon.errors import ToolError
from addon.home.actions.direct_intents import one_able
from addon.home.actions.executor import ServiceCall
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import ErrorCode, IntentResult
from addon.home.actions.slot_targets import target_constraints
from addon.home.actions.slots import SlotValue, slot_text
from addon.home.actions.wire import as_object
from addon.home.model.features import MediaPlayerEntityFeature
from addon.home.model.records import EntityState
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsResult,
)
from addon.text import JsonObject


async def set_volume_relative(request: IntentRequest) -> IntentResult:
    """HassSetVolumeRelative: step each matched player's volume up or down."""
    step = request.slots["volume_step"]
    constraints = target_constraints(
        request.slots,
        domains={"media_player"},
        by_class=False,
        features=MediaPlayerEntityFeature.VOLUME_SET,
    )
    result = match_targets(request.model, constraints, request.preferences)
    if not result.is_match:
        return request.no_match(result, constraints, "able to set volume")
    states = list(result.states)
    if len(states) > 1 and "name" not in request.slots:
        states = [state for state in states if state.state == "playing"]
        if not states:
            none_playing = MatchTargetsResult(
                is_match=False, no_match_reason=MatchFailedReason.STATE
            )
            return request.no_match(none_playing, constraints, "playing")
    try:
        calls = [_volume_call(state, step) for state in states]
        await asyncio.gather(*(request.perform(c) for c in calls))
    except ToolError as err:
        message = f"Error setting relative volume: {err}"
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    return request.done(
        tuple(calls),
    )


def _volume_call(state: EntityState, step: SlotValue) -> ServiceCall:
    """The call that moves one player's volume by ``step`` ("up", "down" or a percentage)."""
    if step in ("up", "down"):
        return ServiceCall("media_player", f"volume_{step}", (state.entity_id,), {})
    level = state.attributes.get("volume_level")
    if not isinstance(level, int | float) or not isinstance(step, int):
        raise ToolError(f"{state.entity_id} reports no volume level to change")
    volume = max(0.0, min(1.0, level + step / 100))
    return ServiceCall("media_player", "volume_set", (state.entity_id,), {"volume_level": volume})


async def search_and_play(request: IntentRequest) -> IntentResult:
    """HassMediaSearchAndPlay: search the one matched player, play the first result."""
    query = str(request.slots["search_query"])
    result = one_able(
        request,
        "media_player",
        MediaPlayerEntityFeature.SEARCH_MEDIA | MediaPlayerEntityFeature.PLAY_MEDIA,
        "able to search and play media",
    )
    if isinstance(result, IntentResult):
        return result
    player = result.states[0].entity_id
    search: JsonObject = {"search_query": query}
    media_class = slot_text(request.slots, "media_class")
    if media_class:
        search["media_filter_classes"] = [media_class]
    try:
        answer = await request.executor.read(
            ServiceCall("media_player", "search_media", (player,), search)
        )
    except ToolError as err:
        message = f"Error searching media: {err}"
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    found = as_object(answer.get(player)).get("result")
    first = found[0] if isinstance(found, list) and found else None
    if not isinstance(first, dict):
        message = f"No results found for {query}"
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    call = ServiceCall(
        "media_player",
        "play_media",
        (player,),
        {
            "media_content_id": first.get("media_content_id"),
            "media_content_type": first.get("media_content_type"),
        },
    )
    try:
        await request.perform(call)
    except ToolError as err:
        message = f"Error playing media: {err}"
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    return request.done(
        (call,),
        speech_slots={"media": dict(first)},
    )
