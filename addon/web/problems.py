"""Refusing a request clearly: what was wrong and which field, as JSON a caller can act on.

The house shape is ``{"error": code, "message": text, "field": name?}``; under :data:`OPENAI_PREFIX`
the same problem is rendered in OpenAI's ``{"error": {"message", "type", "param", "code"}}`` so the
official clients raise their own, readable exceptions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from aiohttp import web
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from addon.text import JsonObject, is_unicode

OPENAI_PREFIX = "/v1"
KIB = 1024

# OpenAI's error ``type`` for each status class; clients show it, some branch on it.
_OPENAI_TYPES = {401: "invalid_request_error", 403: "permission_error", 429: "rate_limit_error"}


class RequestProblem(web.HTTPError):
    """A request refused at the edge, before any service ran.

    An HTTP exception rather than a domain error (:mod:`addon.errors`) because it is found while
    parsing, at the edge itself: the error middleware passes it through as it is, and the façade's
    middleware re-renders it in OpenAI's shape.
    """

    def __init__(
        self,
        status: int,
        error: str,
        message: str,
        *,
        field: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        # aiohttp reads the status from the class; one class with the status per instance keeps
        # the body shape in a single place.
        self.status_code = status
        self.error = error
        self.message = message
        self.field = field
        body = {"error": error, "message": message}
        if field is not None:
            body["field"] = field
        super().__init__(
            text=json.dumps(body, ensure_ascii=False),
            content_type="application/json",
            headers=headers,
        )


def openai_error(
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> web.Response:
    """An error in OpenAI's body shape, which the official clients parse into their exceptions."""
    kind = _OPENAI_TYPES.get(status, "invalid_request_error" if status < 500 else "server_error")
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return web.json_response(body, status=status, headers=headers)


def openai_problem(problem: RequestProblem) -> web.Response:
    """The same refusal in OpenAI's shape; our error code becomes its ``code``."""
    return openai_error(
        problem.status_code,
        problem.message,
        param=problem.field,
        code=problem.error,
        headers={k: v for k, v in problem.headers.items() if k.lower() == "www-authenticate"},
    )


def is_openai_path(path: str) -> bool:
    """Whether ``path`` belongs to the façade, whose callers expect OpenAI's error shape."""
    return path == OPENAI_PREFIX or path.startswith(OPENAI_PREFIX + "/")


async def read_json_object(request: web.Request, *, limit: int) -> JsonObject:
    """The body as a JSON object, refused before parsing when it is not JSON or too big.

    Read in chunks against ``limit`` (not the app's 1 MiB ``client_max_size``) so an oversized or
    chunked body is cut off as soon as it passes the limit instead of after it is all in memory.
    """
    if not _is_json(request.content_type):
        raise RequestProblem(
            415,
            "unsupported_media_type",
            "send the body as JSON with 'Content-Type: application/json' "
            f"(got '{request.content_type}')",
        )
    if request.content_length is not None and request.content_length > limit:
        raise _too_large(limit)
    raw = bytearray()
    try:
        async for chunk in request.content.iter_any():
            raw += chunk
            if len(raw) > limit:
                raise _too_large(limit)
    except web.RequestPayloadError as err:  # e.g. "Content-Encoding: gzip" on bytes that are not
        raise RequestProblem(400, "invalid_body", f"the body could not be read: {err}") from err
    try:
        data = json.loads(raw)
        unicode = is_unicode(data)
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError both
        raise RequestProblem(400, "invalid_json", f"the body is not valid JSON: {err}") from err
    except RecursionError as err:  # the parser recurses per level: 10,000 "[" exhaust the stack
        raise RequestProblem(
            400, "invalid_json", "the body is not valid JSON: it is nested too deeply"
        ) from err
    if not isinstance(data, dict):
        raise RequestProblem(
            400, "invalid_json", f"the body must be a JSON object, not {_json_type(data)}"
        )
    if not unicode:
        raise RequestProblem(
            400,
            "invalid_json",
            "a string in the body holds a lone surrogate escape (such as '\\ud800'), "
            "which is not Unicode text",
        )
    return data


def invalid_fields(err: ValidationError) -> RequestProblem:
    """A 422 naming every invalid field, the first of them in ``field``."""
    errors = err.errors(include_url=False)
    described = [f"{field_path(e['loc']) or 'body'}: {_message(e)}" for e in errors]
    return RequestProblem(
        422, "invalid_field", "; ".join(described), field=field_path(errors[0]["loc"]) or None
    )


def invalid_value(err: ValidationError) -> RequestProblem:
    """A 400 naming the first invalid field, worded as OpenAI words it: ``Invalid 'x': why``."""
    first = err.errors(include_url=False)[0]
    where = field_path(first["loc"]) or "body"
    return RequestProblem(
        400, "invalid_value", f"Invalid '{where}': {_message(first)}", field=where
    )


async def read_model[M: BaseModel](
    request: web.Request,
    model: type[M],
    *,
    limit: int,
    refusal: Callable[[ValidationError], RequestProblem] = invalid_fields,
) -> M:
    """The body as ``model``: a JSON object (:func:`read_json_object`), validated by the model.

    What the model refuses is answered as ``refusal`` words it: our API names every invalid field
    at once (:func:`invalid_fields`), the façade the first, as OpenAI does (:func:`invalid_value`).
    """
    data = await read_json_object(request, limit=limit)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise refusal(err) from err


def field_path(loc: Sequence[int | str]) -> str:
    """``("messages", 0, "content")`` as ``messages[0].content``, the way clients write it."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def _message(error: ErrorDetails) -> str:
    message = str(error["msg"])
    # Our own validators raise ValueError; pydantic prefixes their text with its class name.
    return message.removeprefix("Value error, ")


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or (
        content_type.startswith("application/") and content_type.endswith("+json")
    )


def _too_large(limit: int) -> RequestProblem:
    return RequestProblem(
        413, "payload_too_large", f"the body is larger than {limit // KIB} KiB", field="body"
    )


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"
