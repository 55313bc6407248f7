"""A form body no browser would send is answered 400 with a page saying so, and no turn runs."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from addon.web.ui.forms import MALFORMED_MESSAGE, read_form
from addon.web.ui.security import COOKIE_NAME
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import TOKEN, UI

POSTS = ["/chat", "/chat/stream"]
FORM = "application/x-www-form-urlencoded"
VALID_FORM = f"text=hello&csrf_token={TOKEN}".encode()


async def post_raw(ui: UI, path: str, body: bytes, **headers: str) -> str:
    """POST ``body`` as it is, with the CSRF cookie; the page it answered, which must be a 400."""
    response = await ui.client.post(
        path,
        data=body,
        headers=ui.headers(Cookie=f"{COOKIE_NAME}={TOKEN}", **headers),
        allow_redirects=False,
    )
    html = await response.text()
    assert response.status == 400, html[:500]
    assert response.content_type == "text/html"
    return html


@pytest.mark.parametrize("path", POSTS)
async def test_multipart_body_without_its_boundary_is_a_400(
    ingress_ui: UI, scripted_llm: ScriptedLLM, path: str
) -> None:
    """A multipart body that never shows its declared boundary is refused as malformed."""
    html = await post_raw(
        ingress_ui, path, b"garbage", **{"Content-Type": "multipart/form-data; boundary=xx"}
    )
    assert "its body is malformed" in html
    assert scripted_llm.chat_requests == []


async def test_multipart_type_without_a_boundary_is_a_400(ingress_ui: UI) -> None:
    """``multipart/form-data`` with no boundary parameter cannot be split: 400."""
    await post_raw(ingress_ui, "/chat", b"text=hi", **{"Content-Type": "multipart/form-data"})


async def test_form_in_an_unknown_charset_is_a_400(ingress_ui: UI) -> None:
    """A charset Python does not know is the sender's error, not ours."""
    await post_raw(ingress_ui, "/chat", VALID_FORM, **{"Content-Type": f"{FORM}; charset=bogus"})


async def test_form_that_is_not_utf8_is_a_400(ingress_ui: UI) -> None:
    """Bytes that are not UTF-8 in a form declared (by default) as UTF-8 are refused."""
    await post_raw(ingress_ui, "/chat", VALID_FORM + b"&x=\xff\xfe", **{"Content-Type": FORM})


async def test_form_not_in_its_content_encoding_is_a_400(ingress_ui: UI) -> None:
    """A body marked gzip that is not gzip cannot be read: 400."""
    await post_raw(
        ingress_ui, "/chat", VALID_FORM, **{"Content-Type": FORM, "Content-Encoding": "gzip"}
    )


async def test_malformed_form_after_a_header_token_is_a_400(
    ingress_ui: UI, scripted_llm: ScriptedLLM
) -> None:
    """With the token in the header the check reads no form; the chat view's reading refuses it."""
    html = await post_raw(
        ingress_ui,
        "/chat/stream",
        b"--xx\r\nContent-Disposition: form-data\r\n\r\nhi\r\n--xx--\r\n",
        **{"Content-Type": "multipart/form-data; boundary=xx", "X-CSRF-Token": TOKEN},
    )
    assert MALFORMED_MESSAGE.split(":")[0] in html
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


async def test_uploaded_file_is_closed(aiohttp_client: Callable[..., Any]) -> None:
    """A file part (the UI has none) is closed once read, not left open for the collector."""

    async def handler(request: web.Request) -> web.Response:
        form = await read_form(request)
        upload = form["upload"]
        assert isinstance(upload, web.FileField)
        return web.json_response({"text": form["text"], "closed": upload.file.closed})

    app = web.Application()
    app.router.add_post("/", handler)
    client = await aiohttp_client(app)
    form = aiohttp.FormData({"text": "hello"})
    form.add_field("upload", b"x" * 100, filename="notes.txt")
    response = await client.post("/", data=form)
    assert await response.json() == {"text": "hello", "closed": True}
