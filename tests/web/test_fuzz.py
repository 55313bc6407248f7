"""Every route and method of the app, hit with hostile requests: never a 5xx, never a crash.

The app is the real one (``create_app``) over a copy of the migrated SQLite file, answering
through the scripted model, reached both ways a caller can: through the ingress proxy (loopback
is the trusted proxy) and on the direct port with the admin bearer token. Each Hypothesis example
is one :class:`~tests.web.hostile.Abuse` sent to every route the router lists, plus a few paths it
does not; it passes when no answer is a 5xx, every request is answered within a hang guard (one
held open counts as a failure, as ``GET /mcp`` once was), nothing was logged as an unhandled
error, and ``/health`` still answers 200 afterwards. Bounded and derandomized, so a run is the
same every time.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, example, given, settings

from addon import keys
from addon.web.ui.security import COOKIE_NAME
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings
from tests.web.csrf import plant_key
from tests.web.hostile import (
    ANSWER_TIMEOUT_S,
    CSRF_TOKEN,
    MISSING,
    Abuse,
    Answer,
    Fields,
    Header,
    abuses,
    request_bytes,
    send,
)

TOKEN = "fuzz-api-token-0123456789abcdef"
# The direct port is fuzzed with the admin token, so every route is reached past the access check.
ADMIN_TOKEN = "fuzz-admin-token-0123456789abcdef"
SUPERVISOR_PROXY = ("172.30.32.2",)
AIOHTTP_REFUSALS = (HttpProcessingError, web.RequestPayloadError, ConnectionError)
PARAMETER = re.compile(rb"\{[^}]*\}")
# A fixed budget for the suite: each example is sent to every route (about 180 of them), about
# 0.35 s, so 25 take about 10 s per access mode (twice that on the loaded CI machine); set
# FUZZ_EXAMPLES to search longer by hand.
# Derandomized either way, so a failure reproduces, and every defect found is an explicit example.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
# Paths no route serves: the router's own answers must hold up too.
UNROUTED = [(b"GET", b"/no-such-page/"), (b"POST", b"/api/"), (b"OPTIONS", b"*")]
ACCESS_HEADERS: dict[str, tuple[Header, ...]] = {
    "ingress": ((b"X-Ingress-Path", b"/api/hassio_ingress/fuzz-token"),),
    "direct": ((b"Authorization", f"Bearer {ADMIN_TOKEN}".encode()),),
}


@dataclass(frozen=True, repr=False)
class Target:
    """The started app, the headers that let a request in, and what the router serves."""

    mode: str
    client: TestClient[Any, Any]
    access: tuple[Header, ...]
    routes: tuple[tuple[bytes, str], ...]  # (method, canonical path) of every route

    def __repr__(self) -> str:
        return f"<app reached by {self.mode}>"

    @property
    def port(self) -> int:
        port = self.client.server.port
        assert port is not None
        return port


ANY_METHOD = (b"GET", b"HEAD", b"POST", b"PUT", b"PATCH", b"DELETE", b"OPTIONS")
"""What a route registered for any method (``*``) is asked with, each in turn."""


def routes_of(app: web.Application) -> tuple[tuple[bytes, str], ...]:
    """Every (method, canonical path) pair the app's router serves, sub-applications included."""
    found = {
        (method, route.resource.canonical)
        for route in app.router.routes()
        if route.resource is not None
        for method in (ANY_METHOD if route.method == "*" else (route.method.encode(),))
    }
    return tuple(sorted(found))


def target_path(canonical: str, abuse: Abuse) -> bytes:
    """The route's path with its parameters (and the static directory's file) filled in."""
    path = PARAMETER.sub(lambda _: abuse.segment, canonical.encode())
    if canonical == "/static":
        path += b"/" + abuse.segment
    path += abuse.suffix
    return path + b"?" + abuse.query if abuse.query else path


@pytest.fixture(params=["ingress", "direct"])
async def target(
    request: pytest.FixtureRequest,
    aiohttp_client: Callable[..., Any],
    make_settings: MakeSettings,
    scripted_llm: ScriptedLLM,
    make_app: MakeApp,
) -> Target:
    """The app over a copy of the migrated database, reached through ingress or directly."""
    scripted_llm.default = Completion("Done.")
    settings = make_settings(
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        api_token=TOKEN,
        admin_token=ADMIN_TOKEN,
    )
    if request.param == "direct":  # loopback is no longer the proxy: the token is needed
        settings = settings.model_copy(update={"trusted_proxies": SUPERVISOR_PROXY})
    plant_key(settings.data_dir)
    app = make_app(settings)
    client: TestClient[Any, Any] = await aiohttp_client(app)
    client.app[keys.AGENT].outcome_delay = 0.0  # no Home Assistant to compare states with
    return Target(request.param, client, ACCESS_HEADERS[request.param], routes_of(app))


def test_routes_are_enumerated_from_the_app(make_settings: MakeSettings, make_app: MakeApp) -> None:
    """The fuzzed routes are the router's own, the façade and the UI's static files included."""
    routes = routes_of(make_app(make_settings()))
    assert (b"POST", "/chat") in routes
    assert (b"POST", "/v1/chat/completions") in routes
    assert (b"GET", "/static") in routes
    assert (b"GET", "/health") in routes
    assert (b"POST", "/mcp") in routes


async def send_everywhere(target: Target, abuse: Abuse) -> list[tuple[bytes, bytes, Answer]]:
    """Send ``abuse`` to every route (and a few unrouted paths) at once; what each answered."""
    requests: list[tuple[bytes, bytes]] = []
    for method, canonical in target.routes:
        requests.append((abuse.method or method, target_path(canonical, abuse)))
    for method, path in UNROUTED:
        requests.append((abuse.method or method, path + abuse.segment if path != b"*" else path))
    requests = list(dict.fromkeys(requests))  # an abuse's own method makes some alike
    answers = await asyncio.gather(
        *(
            send(
                target.port,
                request_bytes(method, path, abuse, target.access),
                half_close=abuse.framing == "truncated",
            )
            for method, path in requests
        )
    )
    return [(*request, answer) for request, answer in zip(requests, answers, strict=True)]


def acceptable(answer: Answer, abuse: Abuse) -> bool:
    """An answer below 500, in full; none only where the client hung up mid-body itself.

    A request the server holds open past the hang guard is never acceptable, whatever was sent.
    """
    if answer.hung:
        return False
    if answer.status is None:
        return abuse.framing == "truncated"
    return answer.status < 500


def described(method: bytes, path: bytes, answer: Answer) -> str:
    """One line for a failed request: what was asked and what came back (or that nothing did)."""
    outcome = f"{answer.status}: {answer.head[:200]!r}"
    if answer.hung:
        outcome = f"no answer within {ANSWER_TIMEOUT_S:g} s (status {outcome})"
    return f"{method!r} {path[:120]!r} -> {outcome}"


def unhandled(records: list[logging.LogRecord]) -> list[str]:
    """Errors logged while serving: an unhandled exception, or one caught at a stream's edge.

    aiohttp logs some refusals of bad input at error level itself: its parser refusing a
    malformed request (answered 400 before any handler runs), a body it cannot decode that it
    was draining after the answer had gone (a handler that never reads the body), and a client
    that hung up before aiohttp's own "100 Continue" could reach it. None is a failure of ours,
    and the answers are checked on their own.
    """
    return [
        f"{r.name}: {r.getMessage()} ({r.exc_info[1] if r.exc_info else 'no exception'!r})"
        for r in records
        if r.levelno >= logging.ERROR
        and r.name.startswith(("addon", "aiohttp"))
        and not (
            r.name == "aiohttp.server"
            and r.exc_info
            and isinstance(r.exc_info[1], AIOHTTP_REFUSALS)
        )
    ]


def defect(description: str, body: bytes, *headers: Header, segment: bytes = b"x") -> Abuse:
    """A request that once answered 500, sent to every route on every run."""
    cookie = (b"Cookie", f"{COOKIE_NAME}={CSRF_TOKEN}".encode())
    return Abuse(None, segment, b"", b"", (cookie, *headers), body, "length", description)


FORM_TYPE = (b"Content-Type", b"application/x-www-form-urlencoded")
JSON_TYPE = (b"Content-Type", b"application/json")
FOUND_DEFECTS = [
    defect("multipart without its boundary", b"x", (b"Content-Type", b"multipart/form-data; b=x")),
    defect("form in an unknown charset", b"text=hi", (FORM_TYPE[0], FORM_TYPE[1] + b"; charset=x")),
    defect("form that is not UTF-8", b"text=\xff", FORM_TYPE),
    defect("JSON nested 10,000 deep", b"[" * 10_000 + b"]" * 10_000, JSON_TYPE),
    defect("not in its encoding", b'{"text": "hi"}', JSON_TYPE, (b"Content-Encoding", b"gzip")),
    defect("file name too long", b"", segment=b"a" * 300),
    Abuse(
        None,
        b"x",
        b"",
        b"",
        (),
        b"",
        "length",
        "text and user that are not Unicode",
        Fields("hi \ud800", MISSING, MISSING, MISSING, "\ud800", MISSING, MISSING),
    ),
    Abuse(
        b"GET",
        b"x",
        b"",
        b"",
        ((b"Accept", b"text/event-stream"),),
        b"",
        "none",
        "a GET asking for an event stream (held open by /mcp, never answered)",
    ),
]


def with_found_defects(test: Callable[..., Any]) -> Callable[..., Any]:
    """Run every found defect as an explicit example, ahead of the generated ones."""
    for abuse in reversed(FOUND_DEFECTS):
        test = example(abuse=abuse)(test)
    return test


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        # One app serves every example on purpose: it must survive all of them in a row.
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(abuse=abuses())
@with_found_defects
async def test_no_hostile_request_gets_a_server_error(
    target: Target, abuse: Abuse, caplog: pytest.LogCaptureFixture
) -> None:
    """Hostile requests to every route answer below 500, log no error, and /health still works."""
    caplog.clear()
    answers = await send_everywhere(target, abuse)
    failed = [
        described(method, path, answer)
        for method, path, answer in answers
        if not acceptable(answer, abuse)
    ]
    assert not failed, f"{abuse.description}: " + "\n".join(failed)
    assert not unhandled(caplog.records), unhandled(caplog.records)
    health = await target.client.get("/health")
    assert health.status == 200, await health.text()
