"""Home Agent: a Home Assistant add-on that gives the home an LLM voice and chat agent."""

__version__ = "0.1.0"
