"""The app on its direct port with the scripted model, as for the HTTP API's tests."""

from tests.web.api.conftest import agent_settings, direct, start_app

__all__ = ["agent_settings", "direct", "start_app"]
