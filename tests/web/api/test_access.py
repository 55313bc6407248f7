"""Who gets in, and for what: ingress for everything, the direct port with a token's scope."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

from addon.web.access import is_trusted
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeSettings
from tests.web.api.conftest import ADMIN_TOKEN, TOKEN, AppClient, StartApp, on_direct_port

BEARER = {"Authorization": f"Bearer {TOKEN}"}
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
# A route of each kind of administration, API and panel; the api_token opens none of them.
ADMIN_ROUTES = [
    ("GET", "/api/tools"),
    ("POST", "/api/tools/try"),
    ("GET", "/api/secrets"),
    ("PUT", "/api/secrets/key"),
    ("GET", "/tools"),
    ("POST", "/tools/secrets"),
    ("GET", "/mcp-servers"),
    ("POST", "/mcp-servers"),
    ("GET", "/memories"),
    ("POST", "/memories/new"),
    ("POST", "/evaluate"),
    ("POST", "/api/evaluations"),
    ("GET", "/api/evaluations/1"),
    ("GET", "/settings"),
    ("GET", "/conversations"),
    ("GET", "/"),
]


async def test_direct_port_without_token_is_401(direct: AppClient) -> None:
    """No Authorization header on the direct port: 401 with a bearer challenge."""
    response = await direct.post("/api/conversation", json={"text": "hi"})
    assert response.status == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="Home Agent"'
    assert (await response.json())["error"] == "unauthorized"


async def test_wrong_token_is_401(direct: AppClient) -> None:
    """A token that does not match is refused, and the challenge says why."""
    response = await direct.post(
        "/api/conversation", json={"text": "hi"}, headers={"Authorization": "Bearer nope-" + TOKEN}
    )
    assert response.status == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]
    assert (await response.json())["error"] == "invalid_token"


async def test_other_scheme_is_401(direct: AppClient) -> None:
    """The token sent as Basic credentials does not count."""
    response = await direct.get("/api/openapi.json", headers={"Authorization": f"Basic {TOKEN}"})
    assert response.status == 401


async def test_right_token_is_let_in(direct: AppClient, scripted_llm: ScriptedLLM) -> None:
    """With the bearer token the direct port answers."""
    scripted_llm.reply("Hello.")
    response = await direct.post("/api/conversation", json={"text": "hi"}, headers=BEARER)
    assert response.status == 200
    assert (await response.json())["reply"] == "Hello."


async def test_no_api_token_refuses_the_direct_port(
    start_app: StartApp, make_settings: MakeSettings
) -> None:
    """With no api_token set the direct port is closed: 403 explaining which option opens it."""
    client = await start_app(on_direct_port(make_settings()))
    response = await client.post("/api/conversation", json={"text": "hi"}, headers=BEARER)
    assert response.status == 403
    body = await response.json()
    assert body["error"] == "direct_access_disabled"
    assert "api_token" in body["message"]


async def test_ingress_needs_no_token(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """From the ingress proxy's address no credentials are needed."""
    scripted_llm.reply("Hello.")
    response = await api.post("/api/conversation", json={"text": "hi"})
    assert response.status == 200


async def test_ingress_path_is_kept_for_the_request(api: AppClient) -> None:
    """X-Ingress-Path from the proxy becomes the URL prefix (seen in the OpenAPI servers)."""
    response = await api.get(
        "/api/openapi.json", headers={"X-Ingress-Path": "/api/hassio_ingress/abc-123_XYZ"}
    )
    assert (await response.json())["servers"] == [{"url": "/api/hassio_ingress/abc-123_XYZ"}]


async def test_malformed_ingress_path_is_ignored(api: AppClient) -> None:
    """A prefix that is not a plain path is not put into anything we render."""
    response = await api.get(
        "/api/openapi.json", headers={"X-Ingress-Path": '/x"><script>alert(1)</script>'}
    )
    assert (await response.json())["servers"] == [{"url": "/"}]


async def test_forwarded_for_does_not_make_ingress(direct: AppClient) -> None:
    """Claiming the proxy's address in X-Forwarded-For does not get past the token check."""
    response = await direct.post(
        "/api/conversation",
        json={"text": "hi"},
        headers={"X-Forwarded-For": "172.30.32.2", "X-Real-IP": "172.30.32.2"},
    )
    assert response.status == 401


async def test_health_is_open_on_the_direct_port(direct: AppClient) -> None:
    """/health answers without credentials on the direct port (the watchdog has none)."""
    assert (await direct.get("/health")).status == 200


async def test_health_tells_an_anonymous_caller_only_the_status(direct: AppClient) -> None:
    """Without credentials /health says ok or down, not the version or any component's detail."""
    response = await direct.get("/health")
    assert await response.json() == {"status": "ok"}


async def test_health_tells_a_token_holder_the_details(direct: AppClient) -> None:
    """With the api_token (or through ingress) /health reports every component."""
    body = await (await direct.get("/health", headers=BEARER)).json()
    assert body["components"]["store"]["status"] == "ok"
    assert "version" in body


async def test_health_tells_a_wrong_token_only_the_status(direct: AppClient) -> None:
    """A wrong token is not refused on /health, but told no more than an anonymous caller."""
    response = await direct.get("/health", headers={"Authorization": "Bearer nope-" + TOKEN})
    assert await response.json() == {"status": "ok"}


async def test_health_is_open_through_ingress(api: AppClient) -> None:
    """/health answers through ingress too."""
    assert (await api.get("/health")).status == 200


async def test_health_is_open_with_the_direct_port_closed(
    start_app: StartApp, make_settings: MakeSettings
) -> None:
    """Even with no api_token set, Docker's HEALTHCHECK gets its 200."""
    client = await start_app(on_direct_port(make_settings()))
    assert (await client.get("/health")).status == 200


async def test_facade_refusal_is_an_openai_error(direct: AppClient) -> None:
    """The official client, with a wrong key, raises its AuthenticationError with our message."""
    async with AsyncOpenAI(
        base_url=str(direct.make_url("/v1")), api_key="wrong-key", max_retries=0
    ) as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.models.list()
    assert caught.value.code == "invalid_token"
    assert "api_token" in caught.value.message


@pytest.mark.parametrize(("method", "path"), ADMIN_ROUTES)
async def test_the_api_token_cannot_administer(direct: AppClient, method: str, path: str) -> None:
    """The conversation token on an administration route: 403 insufficient_scope, in JSON."""
    response = await direct.request(method, path, json={}, headers=BEARER)
    assert response.status == 403
    assert response.content_type == "application/json"
    body = await response.json()
    assert body["error"] == "insufficient_scope"
    assert "admin_token" in body["message"]
    assert 'error="insufficient_scope"' in response.headers["WWW-Authenticate"]


async def test_the_api_token_changes_nothing_it_is_refused(direct: AppClient) -> None:
    """A secret PUT with the api_token is refused before the store sees it."""
    await direct.put("/api/secrets/key", json={"value": "planted-value"}, headers=BEARER)
    names = await (await direct.get("/api/secrets", headers=ADMIN)).json()
    assert names["secrets"] == []


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/tools"), ("GET", "/tools")])
async def test_the_admin_token_administers(direct: AppClient, method: str, path: str) -> None:
    """The admin_token opens the tools API and the panel's pages on the direct port."""
    response = await direct.request(method, path, headers=ADMIN)
    assert response.status == 200


async def test_the_admin_token_also_converses(direct: AppClient, scripted_llm: ScriptedLLM) -> None:
    """Administration includes the conversation scope."""
    scripted_llm.reply("Hello.")
    response = await direct.post("/api/conversation", json={"text": "hi"}, headers=ADMIN)
    assert response.status == 200


async def test_ingress_administers_without_a_token(api: AppClient) -> None:
    """Through ingress the administration routes answer, as the panel needs."""
    response = await api.get("/api/tools")
    assert response.status == 200


async def test_the_api_token_reaches_the_openai_facade(direct: AppClient) -> None:
    """The conversation scope includes the façade under /v1."""
    response = await direct.get("/v1/models", headers=BEARER)
    assert response.status == 200


async def test_admin_token_alone_opens_the_direct_port(
    start_app: StartApp, make_settings: MakeSettings
) -> None:
    """With only admin_token set the port answers it, and a guess is refused as a wrong token."""
    client = await start_app(on_direct_port(make_settings(admin_token=ADMIN_TOKEN)))
    assert (await client.get("/api/tools", headers=ADMIN)).status == 200
    assert (await client.get("/api/tools", headers=BEARER)).status == 401


def test_ipv4_mapped_peer_matches_the_proxy() -> None:
    """A dual-stack listener's ::ffff:a.b.c.d is the same peer as a.b.c.d."""
    assert is_trusted("::ffff:172.30.32.2", ("172.30.32.2",))
    assert not is_trusted("172.30.32.3", ("172.30.32.2",))
    assert not is_trusted(None, ("172.30.32.2",))
