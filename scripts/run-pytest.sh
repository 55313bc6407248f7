#!/usr/bin/env bash
# Runs pytest with the given interpreter and fails when it ran no test (pytest's exit code 5).
set -uo pipefail
python="$1"
shift
"$python" -m pytest "$@"
code=$?
if [ "$code" -eq 5 ]; then
  echo "run-pytest: pytest collected no tests; that is a failure here." >&2
  exit 1
fi
exit "$code"
