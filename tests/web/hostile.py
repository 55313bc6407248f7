"""Hostile HTTP requests: Hypothesis strategies for what a broken or malicious client could send.

Requests are written as raw bytes on a socket, not through an HTTP client, so nothing is cleaned
up on the way: methods, paths, header values and bodies may be malformed in every way the
server's own parser has to cope with. One drawn :class:`Abuse` is a way to be wrong (a body, a
content type, odd headers, a query string, a path parameter); the fuzz test sends it to every
route of the app, so each route meets each kind of abuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import strategies as st

from addon.web.ui.security import COOKIE_NAME, FORM_FIELD
from addon.web.ui.security import HEADER as CSRF_HEADER
from tests.web.csrf import TOKEN

# A CSRF token signed with the key the fuzzed app is given, sent as the cookie and the field
# alike so the abuse reaches the UI's form handlers behind the CSRF check.
CSRF_TOKEN = TOKEN
MIB = 1024 * 1024
ANSWER_TIMEOUT_S = 30.0
"""A hang guard: an answer not finished by then counts as none. Far above what any answer takes,
even a batch of a hundred 1 MiB bodies on a loaded 2-core machine, so it never judges speed."""

Framing = Literal["length", "chunked", "truncated", "none"]
Header = tuple[bytes, bytes]
MISSING = object()  # a field left out of the body
FORM = b"application/x-www-form-urlencoded"
JSON = b"application/json"


@dataclass(frozen=True)
class Fields:
    """Hostile values for the fields the POST routes read, put in the shape each route expects.

    Sent to every route at once, so one lone surrogate or wrong type reaches the conversation
    API, the façade and the chat form (and the agent behind each) in the same example.
    """

    text: Any
    conversation_id: Any
    language: Any
    device_id: Any
    user: Any
    stream: Any
    dry_run: Any

    def body_for(self, target: bytes) -> tuple[bytes, bytes]:
        """The content type and body for the route at ``target``."""
        if target.startswith(b"/v1/"):
            message = {"role": "user", "content": self.text}
            return JSON, _json_of(
                model="home-agent", messages=[message], stream=self.stream, user=self.user
            )
        if target.startswith(b"/api/"):
            return JSON, _json_of(
                text=self.text,
                conversation_id=self.conversation_id,
                language=self.language,
                device_id=self.device_id,
                dry_run=self.dry_run,
            )
        form = {
            "text": self.text,
            "conversation_id": self.conversation_id,
            "dry_run": self.dry_run,
            FORM_FIELD: CSRF_TOKEN,
        }
        return FORM, b"&".join(
            name.encode() + b"=" + _percent(str(value))
            for name, value in form.items()
            if value is not MISSING
        )


def _json_of(**fields: Any) -> bytes:
    return json.dumps({k: v for k, v in fields.items() if v is not MISSING}).encode()


def _percent(text: str) -> bytes:
    raw = text.encode("utf-8", "surrogatepass")
    return b"".join(bytes([b]) if chr(b).isalnum() else b"%%%02X" % b for b in raw)


@dataclass(frozen=True)
class Abuse:
    """One way for a request to be wrong, applicable to any route."""

    method: bytes | None  # None: the route's own method
    segment: bytes  # fills path parameters, and is appended to the static prefix
    suffix: bytes  # appended to the path as it is (percent garbage, "/..", raw bytes)
    query: bytes
    headers: tuple[Header, ...]
    body: bytes
    framing: Framing
    description: str = field(default="", compare=False)
    fields: Fields | None = None  # the body is built per route from these, when set


@dataclass(frozen=True)
class Answer:
    """The status line's code (None when the server sent none) and the first bytes.

    ``hung`` says the server neither finished its answer nor hung up within the hang guard: a
    request left waiting, which a caller counts as no answer at all.
    """

    status: int | None
    head: bytes
    hung: bool = False


def request_bytes(method: bytes, target: bytes, abuse: Abuse, auth: tuple[Header, ...]) -> bytes:
    """The request as it goes on the wire (headers first, then the body as framed)."""
    lines = [method + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1", b"Connection: close"]
    headers, body = abuse.headers, abuse.body
    if abuse.fields is not None:
        content_type, body = abuse.fields.body_for(target)
        headers = ((b"Content-Type", content_type), *headers)
    lines += [name + b": " + value for name, value in (*auth, *headers)]
    if abuse.framing == "length":
        lines.append(b"Content-Length: %d" % len(body))
    elif abuse.framing == "truncated":
        lines.append(b"Content-Length: %d" % (len(body) + 100))
    elif abuse.framing == "chunked":
        lines.append(b"Transfer-Encoding: chunked")
        body = _chunked(body)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _chunked(body: bytes) -> bytes:
    chunks = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    return b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


async def send(
    port: int, payload: bytes, *, half_close: bool, timeout_s: float = ANSWER_TIMEOUT_S
) -> Answer:
    """Send ``payload`` on a new connection and read the whole answer (the server closes).

    Writing and reading run together: a server that refuses a large body answers before it has
    read it all, and a writer that waited for the body to drain first would never see that. An
    answer not over within ``timeout_s`` is returned as it stands, marked ``hung``.
    """
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def write() -> None:
        with contextlib.suppress(ConnectionError):
            writer.write(payload)
            await writer.drain()
            if half_close:
                writer.write_eof()

    writing = asyncio.create_task(write())
    received = bytearray()
    hung = False
    try:
        async with asyncio.timeout(timeout_s):
            with contextlib.suppress(ConnectionError):
                while chunk := await reader.read(65536):
                    # Enough to see the status line; the rest is read only to let the server
                    # finish (a streamed answer ends when the server closes).
                    if len(received) < 4096:
                        received += chunk
            await writing
    except TimeoutError:
        hung = True
    finally:
        writing.cancel()
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    return Answer(_status(bytes(received)), bytes(received[:300]), hung)


def _status(received: bytes) -> int | None:
    line = received.split(b"\r\n", 1)[0]
    parts = line.split(b" ", 2)
    if len(parts) >= 2 and parts[0].startswith(b"HTTP/1.") and parts[1].isdigit():
        return int(parts[1])
    return None


# ---- the pieces --------------------------------------------------------------------------------

NASTY_TEXT = [
    "",
    " ",
    "turn on the kitchen light",
    "\ud800",  # a lone surrogate: valid in JSON escapes, not encodable as UTF-8
    "\udcff lone low",
    "\x00nul",
    "line\r\nX-Injected: 1",
    "<script>alert(1)</script>",
    "ﬀ" * 50,
    "😀" * 40,
    "a" * 5000,
    "%ff%fe",
    "../../etc/passwd",
    "9999-12-31",
]

PERCENT_GARBAGE = [
    b"%",
    b"%z",
    b"%zz",
    b"%ff%fe",
    b"%00",
    b"%ed%a0%80",  # an encoded surrogate, which is not UTF-8
    b"%c0%af",  # overlong "/"
    b"%2e%2e%2f%2e%2e%2f",
    b"%25",
    b"%u0041",
    b"\xff\xfe",
    b"\xc3\x28",
]

SEGMENTS = st.one_of(
    st.sampled_from(
        [
            b"x",
            b"0" * 64,
            b"a" * 65,
            b"conversation-1",
            b"app.css",
            b"app.js",
            b"..",
            b"%2e%2e",
            b"..%2f..%2fetc%2fpasswd",
            b"home-agent",
            b"a" * 5000,
            b" ",
            b"%20",
            *PERCENT_GARBAGE,
        ]
    ),
    st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b" ", b"%20")),
)

SUFFIXES = st.sampled_from([b"", b"", b"", b"/", b"//", b"/..", b"/.", b"%", b"%ff", b"/%00", b"?"])

QUERY_NAMES = [
    "span",
    "conversation",
    "q",
    "source",
    "device",
    "since",
    "until",
    "handled_by",
    "error",
    "flagged",
    "after",
    "before",
]
QUERY_VALUES = [
    "day",
    "month",
    "year",
    "0001-01-01",
    "9999-12-31",
    "2026-02-30",
    "-1",
    "1",
    "llm",
    "9999-12-31T23:59:59.999999_x",
    "0001-01-01T00:00:00_x",
    "2026-01-01T00:00:00+14:00_conversation",
    "_",
    "\"'NEAR(",
    "a OR b NOT c*",
    *NASTY_TEXT,
]


@st.composite
def queries(draw: st.DrawFn) -> bytes:
    """A query string: the app's own names with hostile values, percent garbage or raw bytes."""
    kind = draw(st.sampled_from(["none", "known", "garbage", "raw"]))
    if kind == "none":
        return b""
    if kind == "raw":
        return draw(st.binary(max_size=200)).replace(b" ", b"+").replace(b"#", b"%23")
    if kind == "garbage":
        return b"&".join(draw(st.lists(st.sampled_from(PERCENT_GARBAGE), min_size=1, max_size=5)))
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(QUERY_NAMES), st.sampled_from(QUERY_VALUES)),
            min_size=1,
            max_size=6,
        )
    )
    encoded = draw(st.booleans())
    return b"&".join(_pair(name, value, encoded=encoded) for name, value in pairs)


def _pair(name: str, value: str, *, encoded: bool) -> bytes:
    raw = value.encode("utf-8", "surrogatepass")
    if encoded:
        raw = b"".join(b"%%%02X" % b if not chr(b).isalnum() else bytes([b]) for b in raw)
    else:
        raw = raw.replace(b" ", b"+").replace(b"#", b"%23").replace(b"\r", b"").replace(b"\n", b"")
    return name.encode() + b"=" + raw


def _json(value: object) -> bytes:
    return json.dumps(value).encode()  # ensure_ascii, so lone surrogates travel as \ud800


@st.composite
def json_bodies(draw: st.DrawFn) -> tuple[bytes, str]:
    """A JSON body: plausible requests with hostile fields, wrong shapes, deep nesting."""
    text = draw(st.sampled_from(NASTY_TEXT))
    kind = draw(
        st.sampled_from(
            [
                "conversation",
                "conversation",
                "completion",
                "completion",
                "completion",
                "wrong types",
                "deep arrays",
                "deep objects",
                "deep inside",
                "not an object",
                "broken",
                "bad utf-8",
                "utf-16",
                "huge number",
                "duplicate keys",
            ]
        )
    )
    if kind == "conversation":
        fields = draw(
            st.fixed_dictionaries(
                {"text": st.just(text)},
                optional={
                    "conversation_id": st.sampled_from([*NASTY_TEXT, "abc", "x" * 64]),
                    "language": st.sampled_from(["en", "de-CH", "xx_YY_ZZZZZZZZZ", "\ud800", ""]),
                    "device_id": st.sampled_from(NASTY_TEXT),
                    "dry_run": st.sampled_from([True, False, None, "yes", 1]),
                    "extra": st.just(1),
                },
            )
        )
        return _json(fields), kind
    if kind == "completion":
        # Mostly well-formed, so hostile text reaches the view and the agent behind it.
        message = {
            "role": draw(st.sampled_from(["user", "user", "user", "assistant", "tool", "bogus"])),
            "content": draw(
                st.sampled_from(
                    [text, text, None, 1, [{"type": "text", "text": text}], [{"type": "image"}]]
                )
            ),
        }
        body = draw(
            st.fixed_dictionaries(
                {
                    "model": st.sampled_from(["home-agent", "home-agent", "", 1, text]),
                    "messages": st.sampled_from([[message], [message], [], None, [message] * 2]),
                },
                optional={
                    "stream": st.sampled_from([True, False, "yes"]),
                    "stream_options": st.sampled_from([{"include_usage": True}, None, 1]),
                    "user": st.sampled_from([*NASTY_TEXT, 1]),
                    "n": st.sampled_from([1, 2, -1, 10**30]),
                    "tools": st.sampled_from([[], [{"type": "function"}], "x"]),
                },
            )
        )
        return _json(body), kind
    if kind == "wrong types":
        return _json({"text": draw(st.sampled_from([1, 1.5, None, [], {}, True]))}), kind
    if kind == "deep arrays":
        return b"[" * 10_000 + b"]" * 10_000, kind
    if kind == "deep objects":
        return b'{"a":' * 5_000 + b"1" + b"}" * 5_000, kind
    if kind == "deep inside":
        return b'{"text": "hi", "device_id": ' + b"[" * 3_000 + b"]" * 3_000 + b"}", kind
    if kind == "not an object":
        return draw(st.sampled_from([b"[]", b'"text"', b"1", b"null", b"true", b"1e999"])), kind
    if kind == "broken":
        return draw(st.sampled_from([b"{", b'{"text": ', b"{'text': 'hi'}", b"", b"\x00"])), kind
    if kind == "bad utf-8":
        return b'{"text": "\xff\xfe\xc3\x28 \xed\xa0\x80"}', kind
    if kind == "utf-16":
        return '{"text": "hi"}'.encode("utf-16"), kind
    if kind == "huge number":
        return b'{"text": "hi", "dry_run": ' + b"9" * 5000 + b"}", kind
    return b'{"text": "a", "text": "b", "text": ' + _json(text) + b"}", kind


@st.composite
def form_bodies(draw: st.DrawFn) -> tuple[bytes, str]:
    """An urlencoded form: the UI's fields, percent garbage and bytes that are not UTF-8."""
    pairs = [b"text=" + draw(st.sampled_from([b"hi", b"%ff%fe", b"\xff\xfe", b"a" * 3000, b""]))]
    if draw(st.booleans()):
        pairs.append(FORM_FIELD.encode() + b"=" + CSRF_TOKEN.encode())
    pairs += draw(
        st.lists(
            st.sampled_from(
                [
                    b"conversation_id=%ff",
                    b"conversation_id=abc",
                    b"dry_run=on",
                    b"dry_run=off",
                    b"=",
                    b"&&&",
                    b"%",
                    b"a=%zz",
                    b"\xc3\x28=1",
                    b"text=%ed%a0%80",
                    b"x" * 10_000,
                ]
            ),
            max_size=4,
        )
    )
    return b"&".join(pairs), "form"


@st.composite
def multipart_bodies(draw: st.DrawFn) -> tuple[bytes, bytes, str]:
    """A multipart body and its content type: good and bad boundaries, parts and endings."""
    boundary = draw(
        st.sampled_from([b"xyz", b"b" * 70, b"b" * 71, b"\xff\xfe", b"", b'"quoted"', b"a b"])
    )
    declared = draw(
        st.sampled_from(
            [
                b"multipart/form-data; boundary=" + boundary,
                b"multipart/form-data",
                b"multipart/form-data; boundary=other",
                b"multipart/form-data; boundary=" + boundary + b"; charset=bogus",
                b"multipart/mixed; boundary=" + boundary,
            ]
        )
    )
    used = boundary.strip(b'"')
    parts = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(
            st.sampled_from(
                [b'name="text"', b'name="csrf_token"', b'name="conversation_id"', b"", b'name=""']
            )
        )
        extra = draw(
            st.sampled_from(
                [
                    b"",
                    b'; filename="a.txt"',
                    b"\r\nContent-Type: text/plain; charset=bogus",
                    b"\r\nContent-Type: text/plain; charset=utf-16",
                    b"\r\nContent-Transfer-Encoding: base64",
                    b"\r\nContent-Transfer-Encoding: quoted-printable",
                    b"\r\nContent-Transfer-Encoding: x-bogus",
                    b"\r\nContent-Encoding: gzip",
                    b"\r\nContent-Encoding: x-bogus",
                    b"\r\nContent-Type: multipart/mixed; boundary=inner",
                    b"\r\nBroken header line",
                ]
            )
        )
        value = draw(
            st.sampled_from(
                [b"hi", CSRF_TOKEN.encode(), b"\xff\xfe", b"=?x?=", b"!!!not base64", b""]
            )
        )
        disposition = b"Content-Disposition: form-data; " + name + extra
        parts.append(b"--" + used + b"\r\n" + disposition + b"\r\n\r\n" + value)
    ending = draw(st.sampled_from([b"\r\n--" + used + b"--\r\n", b"", b"\r\n--" + used, b"--"]))
    body = b"\r\n".join(parts) + ending
    if draw(st.booleans()):
        body = draw(st.binary(max_size=100)) + body
    return body, declared, "multipart"


def hostile_fields() -> st.SearchStrategy[Fields]:
    """Mostly well-formed values, so the hostile ones get past validation to the agent."""
    return st.builds(
        Fields,
        text=st.sampled_from([*NASTY_TEXT, 1, None]),
        conversation_id=st.sampled_from([MISSING, MISSING, "abc", "x" * 64, "\ud800", "", 1]),
        language=st.sampled_from([MISSING, MISSING, "en", "de-CH", "\ud800", 1]),
        device_id=st.sampled_from([MISSING, MISSING, "kitchen", "\udcff", ""]),
        user=st.sampled_from([MISSING, "alice", "\ud800", "", 1]),
        stream=st.sampled_from([MISSING, False, True]),
        dry_run=st.sampled_from([MISSING, True, False, "on"]),
    )


CONTENT_TYPES = [
    b"application/json",
    b"application/json; charset=bogus",
    b"application/json; charset=utf-16",
    b"application/problem+json",
    b"application/x-www-form-urlencoded",
    b"application/x-www-form-urlencoded; charset=bogus",
    b"application/x-www-form-urlencoded; charset=utf-16",
    b"multipart/form-data",
    b"text/plain",
    b"application/octet-stream",
    b"",
    b";;;",
    b"\xff\xfe/\xc3\x28",
    b"application/json\x00",
    b"text/html; charset=" + b"x" * 200,
]

ODD_HEADERS: list[tuple[Header, ...]] = [
    ((b"X-Fuzz", b"a" * 8_000),),
    ((b"X-Fuzz", b"a" * 70_000),),
    tuple((b"X-Many-%d" % n, b"v") for n in range(150)),
    ((b"X-Ingress-Path", b"/api/hassio_ingress/\xff\xfe"),),
    ((b"X-Ingress-Path", b"//evil.example"),),
    ((b"X-Ingress-Path", b"/a/../b\"'><"),),
    ((b"X-Ingress-Path", b"/api/hassio_ingress/" + b"t" * 5_000),),
    ((b"X-Forwarded-For", b"172.30.32.2"),),
    ((b"Cookie", b'home_agent_csrf="\\\xff; =; ;;' + b"c" * 3000),),
    ((b"Cookie", COOKIE_NAME.encode() + b"=" + b"\xed\xa0\x80" * 14 + b"x"),),
    ((CSRF_HEADER.encode(), b"\xff" * 43),),
    ((b"Sec-Fetch-Site", b"cross-site"),),
    ((b"Accept-Language", b"\xff;q=nan, *;q=-1"),),
    ((b"Accept-Encoding", b"gzip;q=bogus, br, zstd, \xff"),),
    ((b"Content-Encoding", b"gzip"),),
    ((b"Content-Encoding", b"deflate"),),
    ((b"Content-Encoding", b"br"),),
    ((b"Content-Encoding", b"x-bogus"),),
    ((b"Expect", b"100-continue"),),
    ((b"Upgrade", b"websocket"), (b"Connection", b"Upgrade")),
    ((b"Range", b"bytes=5-1, -0, x-y"),),
    ((b"Range", b"bytes=0-0," * 500),),
    ((b"If-Modified-Since", b"not a date \xff"),),
    ((b"If-None-Match", b'"\xff", W/'),),
    ((b"If-Range", b"\xff"),),
    ((b"Content-Length", b"-1"),),
    ((b"Content-Length", b"99999999999999999999999"),),
    ((b"Content-Length", b"1, 2"),),
    ((b"Transfer-Encoding", b"gzip, chunked"),),
    ((b"Host", b"\xff\xfe:bad"),),
    ((b"X Bad Name", b"1"),),
    ((b"X-Folded", b"a\r\n continued"),),
    ((b"X-Nul", b"a\x00b"),),
    ((b"Authorization", b"Bearer \xff\xfe"),),
    ((b"Authorization", b"Basic " + b"A" * 5000),),
]


# Every method to every route: GET to a POST-only route (as ``GET /mcp``, which once hung), the
# others, and ones no server knows.
METHODS = (
    b"GET",
    b"HEAD",
    b"POST",
    b"PUT",
    b"DELETE",
    b"PATCH",
    b"OPTIONS",
    b"TRACE",
    b"BREW",
    b"G\xffT",
)


@st.composite
def abuses(draw: st.DrawFn) -> Abuse:
    """One hostile request shape, to be sent to every route."""
    # JSON twice as often: three of the app's POST routes read it, and reach the agent with it.
    family = draw(
        st.sampled_from(
            ["fields", "fields", "json", "json", "form", "multipart", "bytes", "none", "oversize"]
        )
    )
    if family == "fields":  # well-framed, to every route's own path, so the values reach handlers
        cookie = (b"Cookie", f"{COOKIE_NAME}={CSRF_TOKEN}".encode())
        framing: Framing = draw(st.sampled_from(["length", "chunked"]))
        fields = draw(hostile_fields())
        return Abuse(None, draw(SEGMENTS), b"", b"", (cookie,), b"", framing, "fields", fields)
    if family == "json":
        body, description = draw(json_bodies())
        content_type: bytes | None = b"application/json"
    elif family == "form":
        body, description = draw(form_bodies())
        content_type = b"application/x-www-form-urlencoded"
    elif family == "multipart":
        body, content_type, description = draw(multipart_bodies())
    elif family == "bytes":
        body, description = draw(st.binary(max_size=2000)), "random bytes"
        content_type = None
    elif family == "oversize":
        size = draw(st.sampled_from([64 * 1024 + 1, MIB + 1]))
        body = b'{"text": "' + b"a" * size + b'"}'
        description = f"{size} byte body"
        content_type = b"application/json"
    else:
        body, description, content_type = b"", "no body", None
    if draw(st.integers(0, 3)) == 0:  # the wrong content type for this body, now and then
        content_type = draw(st.sampled_from([*CONTENT_TYPES, None]))
    headers: list[Header] = []
    if content_type is not None:
        headers.append((b"Content-Type", content_type))
    if draw(st.booleans()):  # the CSRF pair, so UI forms get past the check to their handlers
        headers.append((b"Cookie", f"{COOKIE_NAME}={CSRF_TOKEN}".encode()))
        if draw(st.booleans()):
            headers.append((CSRF_HEADER.encode(), CSRF_TOKEN.encode()))
    for odd in draw(st.lists(st.sampled_from(ODD_HEADERS), max_size=2)):
        headers.extend(odd)
    framing = draw(st.sampled_from(["length", "length", "length", "chunked", "truncated"]))
    if not body and draw(st.booleans()):
        framing = "none"
    method = draw(st.none() | st.none() | st.sampled_from(METHODS))
    return Abuse(
        method=method,
        segment=draw(SEGMENTS),
        suffix=draw(SUFFIXES),
        query=draw(queries()),
        headers=tuple(headers),
        body=body,
        framing=framing,
        description=description,
    )
