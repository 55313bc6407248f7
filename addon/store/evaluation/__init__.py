"""Evaluation runs (``eval_runs``) and the tests saved from turns (``eval_tasks``)."""

from addon.store.evaluation import eval_runs, eval_tasks

__all__ = [
    "eval_runs",
    "eval_tasks",
]
