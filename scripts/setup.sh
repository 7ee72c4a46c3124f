#!/usr/bin/env bash
# Installs what `npm start`, `npm test` and `npm run bench` need on a fresh clone:
# pnpm (through corepack), the workspace's packages, and redis-server when the machine has none.
set -euo pipefail
cd "$(dirname "$0")/.."
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0

# Older corepack releases cannot verify the signatures of current pnpm releases; a current
# corepack from the npm registry can.
if ! command -v corepack >/dev/null 2>&1 || ! corepack pnpm --version >/dev/null 2>&1; then
  echo "starpost: installing a current corepack with npm" >&2
  npm install --global --silent corepack@latest >/dev/null
  hash -r
fi

if [ -f pnpm-lock.yaml ]; then
  corepack pnpm install --frozen-lockfile --reporter=silent
else
  corepack pnpm install --reporter=silent
fi

if ! command -v redis-server >/dev/null 2>&1 && [ -z "${REDIS_URL:-}" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "starpost: redis-server not found; installing Debian's redis-server package" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "starpost: redis-server is not installed. Install it (Debian/Ubuntu: sudo apt-get install redis-server)" >&2
    echo "          or set REDIS_URL to a Redis you already run." >&2
    exit 1
  fi
fi
