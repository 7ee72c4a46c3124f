#!/usr/bin/env bash
# Installs what `npm start`, `npm test` and `npm run bench` need on a fresh clone:
# pnpm (through corepack), the workspace's packages, and redis-server when the machine has none.
# `setup.sh test` also brings Debian's python-telegram-bot, a client in another language that the
# end-to-end suite runs against starpost, and Debian's chromium, which the console's browser test drives.
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

apt_install() { # package, why
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "starpost: installing Debian's $1 package ($2)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
  else
    echo "starpost: $2. Install Debian's $1 package (sudo apt-get install $1)." >&2
    return 1
  fi
}

if ! command -v redis-server >/dev/null 2>&1 && [ -z "${REDIS_URL:-}" ]; then
  apt_install redis-server "redis-server is not installed" || {
    echo "          Or set REDIS_URL to a Redis you already run." >&2
    exit 1
  }
fi

if [ "${1:-}" = "test" ] && ! /usr/bin/python3 -c "import telegram" >/dev/null 2>&1; then
  apt_install python3-python-telegram-bot "the end-to-end suite runs python-telegram-bot" || exit 1
fi

if [ "${1:-}" = "test" ] && [ -z "${CHROMIUM_PATH:-}" ] && ! [ -x /usr/bin/chromium ]; then
  apt_install chromium "the console's browser test drives Chromium" || exit 1
  # Emoji in the console's screenshots (Stars, the shop's texts); the test passes without them.
  apt_install fonts-noto-color-emoji "emoji in the console's screenshots" || true
fi
