"""CSRF on every POST, escaping of everything others wrote, the cookie's scope."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from addon.web.ui.security import COOKIE_NAME, KEY_BYTES, load_key, signed_token
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import TOKEN, UI
from tests.web.ui.home import XSS, XSS_IMG, XSS_SCRIPT
from tests.web.ui.html import parse
from tests.web.ui.seed import T0, model_call, seed_turn, tool_call

CHAT_FORM = {"text": "tell me a joke", "dry_run": "on"}
POSTS = ["/chat", "/chat/stream"]
ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;"
ESCAPED_IMG = "&lt;img src=x onerror=alert(1)&gt;"


@pytest.mark.urls
@pytest.mark.parametrize("path", POSTS)
async def test_post_without_token_is_refused(ui: UI, path: str) -> None:
    """A form without the CSRF field is refused with 403."""
    response = await ui.post(path, CHAT_FORM, token=None)
    assert response.status == 403


@pytest.mark.urls
@pytest.mark.parametrize("path", POSTS)
async def test_post_with_wrong_token_is_refused(ui: UI, path: str) -> None:
    """A form whose token differs from the cookie is refused with 403."""
    response = await ui.post(path, CHAT_FORM, token="w" * 43)
    assert response.status == 403


@pytest.mark.urls
@pytest.mark.parametrize("path", POSTS)
async def test_post_without_cookie_is_refused(ui: UI, path: str) -> None:
    """A token with no cookie to match (another site's guess) is refused with 403."""
    response = await ui.client.post(
        path, data={**CHAT_FORM, "csrf_token": TOKEN}, headers=ui.headers(), allow_redirects=False
    )
    assert response.status == 403


@pytest.mark.urls
@pytest.mark.parametrize(
    "forged",
    ["f" * 43, signed_token(b"a key that is not the add-on's!!", "n" * 22)],
    ids=["unsigned", "another-key"],
)
async def test_a_matching_pair_without_the_key_is_refused(ui: UI, forged: str) -> None:
    """A cookie and field that match but were not signed with the add-on's key: 403."""
    response = await ui.client.post(
        "/chat",
        data={**CHAT_FORM, "csrf_token": forged},
        headers=ui.headers(Cookie=f"{COOKIE_NAME}={forged}"),
        allow_redirects=False,
    )
    assert response.status == 403


@pytest.mark.urls
async def test_a_token_the_page_issued_is_accepted(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """The cookie and field a page hands out make a POST that goes through."""
    page = await ui.get("/chat")
    issued = page.cookies[COOKIE_NAME].value
    scripted_llm.reply("Sure.")
    response = await ui.client.post(
        "/chat",
        data={**CHAT_FORM, "csrf_token": issued},
        headers=ui.headers(Cookie=f"{COOKIE_NAME}={issued}"),
        allow_redirects=False,
    )
    assert response.status == 303


@pytest.mark.urls
async def test_a_cookie_signed_elsewhere_is_replaced(ui: UI) -> None:
    """A page seen with a foreign token in the cookie sets a new, signed one."""
    foreign = signed_token(b"a key that is not the add-on's!!", "n" * 22)
    response = await ui.client.get("/chat", headers=ui.headers(Cookie=f"{COOKIE_NAME}={foreign}"))
    assert response.cookies[COOKIE_NAME].value not in (foreign, "")


def test_the_key_is_made_once_and_kept_private(tmp_path: Path) -> None:
    """The first start makes an owner-only key file; later starts read the same key."""
    path = tmp_path / "data" / "csrf.key"
    key = load_key(path)
    assert len(key) == KEY_BYTES
    assert load_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_truncated_key_is_replaced(tmp_path: Path) -> None:
    """A key file too short to sign with is replaced by a full-length key."""
    path = tmp_path / "csrf.key"
    path.write_bytes(b"short")
    assert len(load_key(path)) == KEY_BYTES
    assert path.read_bytes() != b"short"


@pytest.mark.urls
async def test_cross_site_post_is_refused_even_with_a_token(ui: UI) -> None:
    """A request the browser marks cross-site is refused whatever it carries."""
    response = await ui.post("/chat", CHAT_FORM, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status == 403


@pytest.mark.urls
async def test_refusal_is_a_page_in_the_ui(ui: UI) -> None:
    """A refused form gets an explanation page under the prefix."""
    response = await ui.post("/chat", CHAT_FORM, token=None)
    html = await response.text()
    assert response.content_type == "text/html"
    assert "reload it and try again" in html
    assert f'href="{ui.prefix}/"' in html


@pytest.mark.urls
async def test_post_with_matching_token_is_accepted(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """The same form with the cookie's token goes through."""
    scripted_llm.reply("Why did the lamp blink? It saw the light.")
    response = await ui.post("/chat", CHAT_FORM)
    assert response.status == 303


@pytest.mark.urls
async def test_token_may_come_as_a_header(ui: UI, scripted_llm: ScriptedLLM) -> None:
    """Script may send the token in X-CSRF-Token instead of a field."""
    scripted_llm.reply("Sure.")
    response = await ui.post("/chat", CHAT_FORM, token=None, headers={"X-CSRF-Token": TOKEN})
    assert response.status == 303


@pytest.mark.urls
async def test_page_sets_a_strict_cookie_scoped_to_the_ui(ui: UI) -> None:
    """The first page sets an HttpOnly, SameSite=Strict cookie whose path is the UI's root."""
    response = await ui.get("/chat")
    cookie = response.cookies[COOKIE_NAME]
    assert cookie["path"] == ui.prefix + "/"
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    field = next(i for i in parse(await response.text()).hidden_inputs if i["name"] == "csrf_token")
    assert field["value"] == cookie.value


@pytest.mark.urls
async def test_every_post_form_carries_the_token(ui: UI) -> None:
    """Each POST form on the UI's pages has the CSRF field; GET forms need none."""
    for path in ("/", "/conversations", "/chat", "/settings"):
        html = await ui.page(path)
        page = parse(html)
        posts = [form for form in page.forms if form.get("method") == "post"]
        tokens = [i for i in page.hidden_inputs if i.get("name") == "csrf_token"]
        assert len(tokens) == len(posts), path


@pytest.mark.urls
async def test_a_valid_cookie_is_kept(ui: UI) -> None:
    """A browser that already has a token keeps it; no new cookie is set."""
    response = await ui.client.get("/chat", headers=ui.headers(Cookie=f"{COOKIE_NAME}={TOKEN}"))
    assert COOKIE_NAME not in response.cookies
    assert f'value="{TOKEN}"' in await response.text()


async def test_hostile_text_in_a_trace_is_escaped(ui: UI) -> None:
    """Markup in what was said, the reply, model and tool data and errors renders as text."""
    await seed_turn(
        ui.store,
        "xss-1",
        f"say {XSS}",
        f"Sure: {XSS}",
        at=T0,
        error=XSS,
        flagged=True,
        llm_calls=[model_call(XSS, XSS, at=T0, error=XSS)],
        tool_calls=[tool_call(XSS, {"name": XSS}, {"speech": XSS}, at=T0, llm_call=0, error=XSS)],
    )
    for path in ("/conversations/xss-1", "/conversations", "/chat?conversation=xss-1"):
        html = await ui.page(path)
        page = parse(html)
        assert XSS_SCRIPT not in html, path
        assert XSS_IMG not in html, path
        assert ESCAPED_SCRIPT in html, path
        assert (page.inline_scripts, page.inline_attributes) == (0, []), path
        assert XSS in page.text or "alert(1)" in page.text, path


async def test_hostile_text_in_json_is_escaped(ui: UI) -> None:
    """JSON shown in pre blocks (arguments, results, messages) is escaped too."""
    await seed_turn(
        ui.store,
        "xss-json",
        "hi",
        "hello",
        at=T0,
        llm_calls=[model_call(XSS, "x", at=T0)],
        tool_calls=[tool_call("Tool", {"q": XSS}, {"html": XSS}, at=T0, llm_call=0)],
    )
    html = await ui.page("/conversations/xss-json")
    assert XSS_SCRIPT not in html
    assert f"&#34;html&#34;: &#34;{ESCAPED_SCRIPT}{ESCAPED_IMG}&#34;" in html


async def test_hostile_entity_name_is_escaped(ui: UI) -> None:
    """An entity named with markup (and aliased with it) is listed as text on the settings page."""
    html = await ui.page("/settings")
    assert XSS_SCRIPT not in html
    assert XSS_IMG not in html
    assert f"Bed {ESCAPED_SCRIPT}{ESCAPED_IMG}" in html


async def test_hostile_search_text_is_escaped(ui: UI) -> None:
    """What was typed into the search box is echoed as text, in the field and the heading."""
    response = await ui.get("/conversations", params={"q": XSS})
    html = await response.text()
    assert XSS_SCRIPT not in html
    assert f'value="{ESCAPED_SCRIPT}{ESCAPED_IMG}"' in html


@pytest.mark.urls
async def test_undecodable_token_is_refused(ui: UI) -> None:
    """A token header that is not valid text is refused, not an error."""
    response = await ui.post(
        "/chat", CHAT_FORM, token=None, headers={"X-CSRF-Token": "\udcff" * 43}
    )
    assert response.status == 403
