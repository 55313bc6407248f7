"""``python -m addon.eval TASKS.yaml [--model M] [--no-local-first] [--instructions FILE]``."""

from __future__ import annotations

import asyncio
import logging
import sys

from addon.config.load import environment
from addon.eval.cli import run_cli


def main() -> None:
    """Run the command line and exit with its code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sys.exit(asyncio.run(run_cli(sys.argv[1:], environment(), sys.stdout)))


if __name__ == "__main__":
    main()
