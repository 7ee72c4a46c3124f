#!/usr/bin/env bash
# `npm run pack:kit [dir]`: the test kit's tarballs, for a bot's own repository (docs/testing-bots.md):
# @starpost/client (built to JavaScript with declarations) and @starpost/cli (the `starpost`
# command with the stack's bundles), written to <dir> (default: kit/). Each package's `prepack`
# builds it first.
set -euo pipefail
cd "$(dirname "$0")/.."
dest="$(mkdir -p "${1:-kit}" && cd "${1:-kit}" && pwd)"
for pkg in client cli; do
  file="$(cd "packages/$pkg" && npm pack --pack-destination "$dest" 2>/dev/null | tail -n 1)"
  echo "starpost: packed $dest/$file"
done
