"""A form body our pages would never send is refused with a page saying why, and no turn runs."""

from __future__ import annotations

import gzip

import aiohttp
import pytest

from addon.web.ui.forms import MALFORMED_MESSAGE, MULTIPART_MESSAGE
from addon.web.ui.security import COOKIE_NAME
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import TOKEN, UI

POSTS = ["/chat", "/chat/stream"]
FORM = "application/x-www-form-urlencoded"
VALID_FORM = f"text=hello&csrf_token={TOKEN}".encode()


async def post_raw(ui: UI, path: str, body: bytes, status: int, **headers: str) -> str:
    """POST ``body`` as it is, with the CSRF cookie; the page it answered with ``status``."""
    response = await ui.client.post(
        path,
        data=body,
        headers=ui.headers(Cookie=f"{COOKIE_NAME}={TOKEN}", **headers),
        allow_redirects=False,
    )
    html = await response.text()
    assert response.status == status, html[:500]
    assert response.content_type == "text/html"
    return html


@pytest.mark.parametrize("path", POSTS)
async def test_multipart_body_without_its_boundary_is_refused(
    ingress_ui: UI, scripted_llm: ScriptedLLM, path: str
) -> None:
    """A malformed multipart body is refused (415, as any multipart form is), not a 500."""
    html = await post_raw(
        ingress_ui, path, b"garbage", 415, **{"Content-Type": "multipart/form-data; boundary=xx"}
    )
    assert MULTIPART_MESSAGE.split(";")[0] in html
    assert scripted_llm.chat_requests == []


async def test_multipart_form_after_a_header_token_is_refused(
    ingress_ui: UI, scripted_llm: ScriptedLLM
) -> None:
    """With the token in the header the check reads no form; the chat view's reading refuses it."""
    form = aiohttp.FormData({"text": "hello"})
    form.add_field("upload", b"x" * 100, filename="notes.txt")
    response = await ingress_ui.client.post(
        "/chat/stream",
        data=form,
        headers=ingress_ui.headers(Cookie=f"{COOKIE_NAME}={TOKEN}", **{"X-CSRF-Token": TOKEN}),
    )
    assert response.status == 415
    assert scripted_llm.chat_requests == []


async def test_form_in_an_unknown_charset_is_a_400(ingress_ui: UI) -> None:
    """A charset Python does not know is the sender's error, not ours."""
    html = await post_raw(
        ingress_ui, "/chat", VALID_FORM, 400, **{"Content-Type": f"{FORM}; charset=bogus"}
    )
    assert MALFORMED_MESSAGE.split(":")[0] in html


async def test_form_that_is_not_utf8_is_a_400(ingress_ui: UI) -> None:
    """Bytes that are not UTF-8 in a form declared (by default) as UTF-8 are refused."""
    await post_raw(ingress_ui, "/chat", VALID_FORM + b"&x=\xff\xfe", 400, **{"Content-Type": FORM})


@pytest.mark.parametrize("path", POSTS)
async def test_form_not_in_its_content_encoding_is_a_400(
    ingress_ui: UI, scripted_llm: ScriptedLLM, path: str
) -> None:
    """A body marked gzip that is not gzip cannot be read: 400, and no turn runs."""
    await post_raw(
        ingress_ui, path, VALID_FORM, 400, **{"Content-Type": FORM, "Content-Encoding": "gzip"}
    )
    assert scripted_llm.chat_requests == []


async def test_gzipped_form_is_still_read(ingress_ui: UI, scripted_llm: ScriptedLLM) -> None:
    """A body really in its Content-Encoding passes: only malformed bodies are refused."""
    scripted_llm.reply("Hello.")
    response = await ingress_ui.client.post(
        "/chat",
        data=gzip.compress(VALID_FORM),
        headers=ingress_ui.headers(
            Cookie=f"{COOKIE_NAME}={TOKEN}", **{"Content-Type": FORM, "Content-Encoding": "gzip"}
        ),
        allow_redirects=False,
    )
    assert response.status == 303, await response.text()
