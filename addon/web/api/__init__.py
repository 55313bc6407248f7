"""The HTTP conversation API (``/api``) and the OpenAI-compatible façade (``/v1``)."""
