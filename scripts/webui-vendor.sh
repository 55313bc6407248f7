#!/usr/bin/env bash
# The front-end packages the panel serves unchanged, from the npm registry, pinned by version and
# integrity in webui/package-lock.json (`npm ci` refuses a tarball whose hash differs), copied
# where the panel serves them: webui/static/vendor/ (not in the repository). Run by the
# Makefile before the tests and the demo, and by the Dockerfile when the image is built.
set -euo pipefail
webui="$(cd "$(dirname "$0")/../webui" && pwd)"
npm ci --prefix "$webui" --ignore-scripts --no-audit --no-fund --loglevel=error
source="$webui/node_modules/codemirror"
target="$webui/static/vendor/codemirror"
mkdir -p "$target"
cp "$source/lib/codemirror.js" "$source/lib/codemirror.css" "$source/LICENSE" "$target/"
cp "$source/mode/yaml/yaml.js" "$source/mode/javascript/javascript.js" "$target/"
rm -rf "$webui/node_modules"
