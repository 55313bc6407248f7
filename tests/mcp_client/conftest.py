"""The app with the scripted model, as for the HTTP API's tests."""

from tests.web.api.conftest import agent_settings, api, start_app

__all__ = ["agent_settings", "api", "start_app"]
