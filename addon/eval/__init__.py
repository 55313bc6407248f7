"""Evaluation: a task file run against the agent on a virtual copy of its home."""
