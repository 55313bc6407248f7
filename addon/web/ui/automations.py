"""The Automations page: drafts waiting for approval, and the approved ones in Home Assistant.

Thin views over the agent's :class:`~addon.agent.automations.AutomationDrafts`
(``keys.AUTOMATIONS``): each draft with its summary, its YAML and the entities it touches, and
Approve / Edit / Discard; each approved automation with its last run and state as the live home
reports them (its entity's ``last_triggered``), and Disable / Delete. The panel is an admin's
approval: it approves covered drafts too (a spoken approval of those needs the PIN).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from addon import keys
from addon.errors import (
    AutomationDraftInvalid,
    AutomationDraftState,
    HomeAssistantError,
    NotFoundError,
)
from addon.home.model.live import HomeModel
from addon.store.automations import StoredDraft
from addon.text import dump_yaml, load_yaml
from addon.web.access import ingress_user
from addon.web.ui import notices
from addon.web.ui.saved_tests import live_home
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ShownDraft:
    """A draft as the page shows it: the row, its YAML, and its automation's live state."""

    draft: StoredDraft
    yaml: str
    entity_id: str | None = None
    state: str | None = None
    last_triggered: str | None = None


async def automations_view(request: web.Request) -> web.Response:
    """Drafts, approved automations, and what was discarded or deleted."""
    return await _page(request)


async def approve_view(request: web.Request) -> web.Response:
    """Create the draft in Home Assistant (a panel approval)."""
    return await _draft_change(request, "approved", request.app[keys.AUTOMATIONS].approve)


async def discard_view(request: web.Request) -> web.Response:
    """Drop the draft."""
    return await _draft_change(request, "discarded", request.app[keys.AUTOMATIONS].discard)


async def delete_view(request: web.Request) -> web.Response:
    """Delete the approved automation from Home Assistant."""
    return await _draft_change(request, "deleted", request.app[keys.AUTOMATIONS].delete)


async def disable_view(request: web.Request) -> web.Response:
    """Switch the approved automation off (``automation.turn_off``)."""
    draft_id = await _posted_id(request)
    drafts = request.app[keys.AUTOMATIONS]
    draft = await _draft(request, draft_id)
    shown = _shown(draft, await live_home(request))
    if shown.entity_id is None:
        return await _page(request, problem="Home Assistant has no entity for it (yet).")
    return await _change(
        request, "disabled", drafts.disable(draft_id, shown.entity_id, _by(request))
    )


async def edit_view(request: web.Request) -> web.Response:
    """The draft's configuration as YAML, to change before approving."""
    draft = await _draft(request, _draft_id(request))
    return await _page(request, editing=draft.id, text=dump_yaml(dict(draft.config)))


async def save_view(request: web.Request) -> web.Response:
    """Keep an edited draft: the gate and Home Assistant check it again first."""
    draft_id = await _posted_id(request)
    text = str((await request.post()).get("config", ""))
    try:
        config = load_yaml(text)
        if not isinstance(config, dict):
            raise AutomationDraftInvalid("the configuration is a mapping (alias, triggers, ...)")
        await request.app[keys.AUTOMATIONS].revise(draft_id, config)
    except (AutomationDraftInvalid, AutomationDraftState, HomeAssistantError, ValueError) as err:
        return await _page(request, problem=str(err), editing=draft_id, text=text)
    raise web.HTTPSeeOther(Urls.of(request).page("ui.automations", {notices.DONE: "edited"}))


async def _draft_change(
    request: web.Request, done: str, change: Callable[[int, str], Awaitable[object]]
) -> web.Response:
    """One of the drafts' changes that needs only the draft and who asks: ``change(id, by)``."""
    draft_id = await _posted_id(request)
    return await _change(request, done, change(draft_id, _by(request)))


async def _change(request: web.Request, done: str, change: Awaitable[object]) -> web.Response:
    """Run one change; its failure is said on the page."""
    try:
        await change
    except NotFoundError:
        raise web.HTTPNotFound(text="no such draft") from None
    except (AutomationDraftInvalid, AutomationDraftState, HomeAssistantError) as err:
        _LOGGER.warning("Automation change %s failed: %s", done, err)
        return await _page(request, problem=str(err))
    raise web.HTTPSeeOther(Urls.of(request).page("ui.automations", {notices.DONE: done}))


def _by(request: web.Request) -> str:
    """Who a change from the panel is credited to: the ingress user, else the admin."""
    return f"panel ({ingress_user(request) or 'admin'})"


def _draft_id(request: web.Request) -> int:
    try:
        return int(request.match_info["draft_id"])
    except ValueError:
        raise web.HTTPNotFound(text="no such draft") from None


async def _posted_id(request: web.Request) -> int:
    await request.post()  # the CSRF check reads the form
    return _draft_id(request)


async def _draft(request: web.Request, draft_id: int) -> StoredDraft:
    try:
        return await request.app[keys.AUTOMATIONS].records.get(draft_id)
    except NotFoundError:
        raise web.HTTPNotFound(text="no such draft") from None


def _shown(draft: StoredDraft, home: HomeModel | None) -> ShownDraft:
    """The draft and, once approved, its automation entity's state and last run."""
    yaml_text = dump_yaml(dict(draft.config))
    if home is None or draft.automation_id is None:
        return ShownDraft(draft, yaml_text)
    for entity_id in home.index.by_domain.get("automation", ()):
        state = home.state(entity_id)
        if state is not None and state.attributes.get("id") == draft.automation_id:
            last = state.attributes.get("last_triggered")
            return ShownDraft(draft, yaml_text, entity_id, state.state, str(last or "never"))
    return ShownDraft(draft, yaml_text)


async def _page(
    request: web.Request, *, problem: str = "", editing: int | None = None, text: str = ""
) -> web.Response:
    drafts = await request.app[keys.AUTOMATIONS].records.listed()
    home = await live_home(request)
    shown = [_shown(draft, home) for draft in drafts]
    return render(
        request,
        "automations.html",
        {
            "waiting": [item for item in shown if item.draft.state == "draft"],
            "approved": [item for item in shown if item.draft.state == "approved"],
            "past": [item for item in shown if item.draft.state in ("discarded", "deleted")],
            "problem": problem,
            "editing": editing,
            "text": text,
            "notice": notices.notice(request, notices.AUTOMATIONS),
        },
        status=422 if problem else 200,
    )
