"""The model endpoint's failures as our errors, of the kind that tells the user what to fix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from addon.errors import (
    LLMAuthError,
    LLMError,
    LLMModelNotFoundError,
    LLMRateLimitedError,
    LLMServerError,
)
from addon.logs import scrub

if TYPE_CHECKING:
    import openai


def root_cause(err: BaseException) -> BaseException:
    """The exception at the bottom of ``err``'s chain of causes."""
    seen = {id(err)}
    while (inner := err.__cause__ or err.__context__) is not None and id(inner) not in seen:
        seen.add(id(inner))
        err = inner
    return err


def refused(err: openai.APITimeoutError) -> bool:
    """Whether a "timeout" was really a connection that failed at once.

    The package's aiohttp transport reports every failure to connect (refused, no route, a
    name that does not resolve) as a connect timeout; the socket error underneath tells them
    apart. ``TimeoutError`` is an ``OSError`` too, and the one that is a timeout.
    """
    root = root_cause(err)
    return isinstance(root, OSError) and not isinstance(root, TimeoutError)


def status_error(err: openai.APIStatusError, model: str, api_key: str) -> LLMError:
    """The error for an HTTP error answer, of the kind that tells the user what to fix.

    A 404 is a missing model only when the answer says so (OpenAI's ``model_not_found`` code,
    Ollama's "model … not found"); a 404 for the path itself means a wrong ``llm_base_url``.
    429 reaches here only after the client's own retries.
    """
    message = _message(err, api_key)
    text = f"the model endpoint answered {err.status_code}: {message}"
    if err.status_code == 401:
        return LLMAuthError(f"the model endpoint refused the API key ({text})")
    if err.status_code == 404 and (err.code == "model_not_found" or "model" in message.lower()):
        return LLMModelNotFoundError(f"the model endpoint does not know model {model!r} ({text})")
    if err.status_code == 429:
        return LLMRateLimitedError(f"the model endpoint is rate limiting requests ({text})")
    if err.status_code >= 500:
        return LLMServerError(text)
    return LLMError(text)


def _message(err: openai.APIStatusError, api_key: str) -> str:
    """The endpoint's error message, the key masked before it is cut (a proxy may echo it)."""
    body = err.body
    text = str(err.message)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            text = str(inner["message"])
    return scrub(text, [api_key])[:300]
