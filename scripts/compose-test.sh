#!/usr/bin/env bash
# `npm run test:compose`: starpost's image and docker-compose.yml, for real, on this machine.
#  1. installs Docker (Debian's docker.io) and debootstrap when missing (as root; otherwise it says
#     what to install), and Compose v2 (Debian 13's docker-compose, unpacked privately) when the
#     docker command has no `compose`;
#  2. uses the running Docker engine, or starts a private dockerd (own data root, socket and exec
#     root under $STATE) and stops it at the end;
#  3. builds the base images from Debian packages (debootstrap --variant=minbase + docker import):
#     Node from Debian 13, Redis from Debian 12, standing in for the public bases of the compose file;
#  4. builds starpost's image from the Dockerfile (dist/ built here first, see PREBUILT_DIST below);
#  5. `docker compose up` of the compose file as it ships, only the bases substituted, and the
#     end-to-end client suites and the webhook crash test against the gateway's published port;
#  6. `docker compose up --scale webhook-worker=4`, kills a worker container and crashes Redis
#     (restarted by its policy) mid-delivery, and checks that nothing is lost;
#  7. stops Redis and checks that every starpost container's health check (readiness) fails;
#  8. tears everything down.
# Base images and the build cache stay in $STATE between runs (delete it for a cold run).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
STATE=${STARPOST_COMPOSE_STATE:-/var/tmp/starpost-compose}
# Build containers on this machine cannot use the npm registry (it is reached through a proxy whose
# certificate only the host trusts), so by default dist/ is built on the host and the Dockerfile's
# build stage takes it as it is. STARPOST_PREBUILT_DIST=false builds inside the image instead.
PREBUILT_DIST=${STARPOST_PREBUILT_DIST:-true}
PROJECT=starpost-compose-test
IMAGE=starpost:compose-test
NODE_BASE=starpost-local/node:trixie
REDIS_BASE=starpost-local/redis:bookworm
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0

started=$(date +%s)
say() { echo "compose-test [$(($(date +%s) - started))s]: $*" >&2; }
mkdir -p "$STATE"

# --- 1. tools -------------------------------------------------------------------------------
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "compose-test: needs Debian's ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# The Debian mirror this machine's apt uses (deb822 or one-line sources), for debootstrap.
MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
  grep -oE '^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)https?://[^[:space:]]+/debian/?([[:space:]]|$)' |
  grep -oE 'https?://[^[:space:]]+' | head -n 1 || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# Private apt state for a suite this machine's apt is not set up for (Compose v2 is in Debian 13).
apt_private() {
  apt-get -q -o Dir::Etc::SourceList="$STATE/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$STATE/apt/lists" -o Dir::Cache="$STATE/apt/cache" -o Dir::State::status=/dev/null "$@"
}

if ! docker compose version >/dev/null 2>&1; then
  export DOCKER_CONFIG="$STATE/docker-config"
  if ! docker compose version >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || { echo "compose-test: needs Docker Compose v2 (docker compose): install Debian 13's docker-compose" >&2; exit 1; }
    say "unpacking Debian 13's docker-compose (Compose v2) into $DOCKER_CONFIG/cli-plugins"
    mkdir -p "$STATE/apt/lists/partial" "$STATE/apt/cache/archives/partial" "$DOCKER_CONFIG/cli-plugins"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" >"$STATE/apt/sources.list"
    apt_private update >/dev/null
    (cd "$STATE/apt" && rm -f docker-compose_*.deb && apt_private download docker-compose >/dev/null 2>&1)
    rm -rf "$STATE/apt/compose" && dpkg-deb -x "$STATE"/apt/docker-compose_*.deb "$STATE/apt/compose"
    install -m 755 "$STATE/apt/compose/usr/libexec/docker/cli-plugins/docker-compose" "$DOCKER_CONFIG/cli-plugins/docker-compose"
  fi
fi
say "$(docker compose version), Debian mirror $MIRROR"

# --- 2. the engine --------------------------------------------------------------------------
DOCKERD_PID=""
cleanup() {
  local code=$?
  if [ -n "${COMPOSE_READY:-}" ]; then
    say "tearing down"
    compose down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1 || true
  fi
  if [ -n "$DOCKERD_PID" ]; then
    say "stopping the private dockerd"
    kill "$DOCKERD_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.2; done
  fi
  say "finished with code $code after $(($(date +%s) - started)) s"
}
trap cleanup EXIT

if docker info >/dev/null 2>&1; then
  say "using the running Docker engine"
else
  [ "$(id -u)" = 0 ] || { echo "compose-test: no Docker engine runs and starting one needs root" >&2; exit 1; }
  if [ -f "$STATE/dockerd.pid" ] && kill -0 "$(cat "$STATE/dockerd.pid")" 2>/dev/null; then
    say "stopping the private dockerd an earlier run left behind"
    kill "$(cat "$STATE/dockerd.pid")"
    while kill -0 "$(cat "$STATE/dockerd.pid" 2>/dev/null)" 2>/dev/null; do sleep 0.2; done
  fi
  export DOCKER_HOST="unix://$STATE/docker.sock"
  say "starting a private dockerd (data root $STATE/data)"
  dockerd --data-root "$STATE/data" --exec-root "$STATE/exec" --host "$DOCKER_HOST" \
    --pidfile "$STATE/dockerd.pid" >"$STATE/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  for _ in $(seq 1 150); do docker info >/dev/null 2>&1 && break; sleep 0.2; done
  docker info >/dev/null 2>&1 || { tail -n 20 "$STATE/dockerd.log" >&2; echo "compose-test: dockerd did not start" >&2; exit 1; }
fi

# --- 3. base images from Debian packages ------------------------------------------------------
# tag, suite, packages, setup run in the root filesystem, docker import --change options...
base_image() {
  local tag=$1 suite=$2 packages=$3 setup=$4
  shift 4
  if docker image inspect "$tag" >/dev/null 2>&1; then return; fi
  [ "$(id -u)" = 0 ] || { echo "compose-test: building $tag with debootstrap needs root" >&2; exit 1; }
  local root="$STATE/rootfs-${tag//[\/:]/-}"
  say "debootstrap $suite ($packages) for $tag"
  rm -rf "$root"
  debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$MIRROR" >"$root.log" 2>&1 ||
    { tail -n 20 "$root.log" >&2; exit 1; }
  chroot "$root" sh -c "$setup"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
    "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/usr/share/info/*
  tar -C "$root" -c . | docker import "$@" - "$tag" >/dev/null
  rm -rf "$root" "$root.log"
}
# As the official Node images: node on the PATH and a `node` user (uid 1000).
base_image "$NODE_BASE" trixie nodejs "useradd --uid 1000 --create-home --shell /bin/sh node" \
  --change 'CMD ["node"]'
# As the official Redis image: the `redis-server` command, /data as the working directory, the
# redis user, and protected mode off (the container network is the boundary).
base_image "$REDIS_BASE" bookworm redis-server "mkdir -p /data && chown redis:redis /data && printf '%s\n' \
  '#!/bin/sh' 'if [ \"\$1\" = redis-server ]; then shift; exec redis-server --protected-mode no \"\$@\"; fi' 'exec \"\$@\"' \
  >/usr/local/bin/docker-entrypoint.sh && chmod 755 /usr/local/bin/docker-entrypoint.sh" \
  --change 'WORKDIR /data' --change 'USER redis' --change 'EXPOSE 6379' \
  --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' --change 'CMD ["redis-server"]'

# --- 4. starpost's image ----------------------------------------------------------------------
if [ "$PREBUILT_DIST" = true ]; then
  say "pnpm run build (dist/ for the image)"
  bash scripts/setup.sh >/dev/null
  corepack pnpm run --silent build >/dev/null
fi
say "docker build (BASE_IMAGE=$NODE_BASE, PREBUILT_DIST=$PREBUILT_DIST)"
DOCKER_BUILDKIT=0 docker build --quiet --build-arg BASE_IMAGE="$NODE_BASE" --build-arg PREBUILT_DIST="$PREBUILT_DIST" \
  -t "$IMAGE" . >/dev/null 2>"$STATE/build.log" || { cat "$STATE/build.log" >&2; exit 1; }
IMAGE_BYTES=$(docker image inspect -f '{{.Size}}' "$IMAGE")
BASE_BYTES=$(docker image inspect -f '{{.Size}}' "$NODE_BASE")
say "image $IMAGE: $((IMAGE_BYTES / 1000000)) MB ($(((IMAGE_BYTES - BASE_BYTES) / 1000000)) MB over its base, $((BASE_BYTES / 1000000)) MB)"

# --- 5. compose up and the end-to-end suites ---------------------------------------------------
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export STARPOST_IMAGE=$IMAGE REDIS_IMAGE=$REDIS_BASE BASE_IMAGE=$NODE_BASE
export PORT=${STARPOST_COMPOSE_PORT:-$(free_port)}
export PLATFORM_TOKEN="compose-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export INTERNAL_TOKEN="internal-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
# The tests' webhook receivers run on this host, a private address for the containers.
export WEBHOOK_ALLOW_PRIVATE_NETWORKS=true LOG_LEVEL=warn
compose() { docker compose --project-name "$PROJECT" --file "$REPO/docker-compose.yml" "$@"; }

up() { # the gateway's time to healthy is measured from here
  local t0 t1
  t0=$(date +%s.%N)
  compose up --detach --no-build --wait --wait-timeout 180 "$@" >"$STATE/up.log" 2>&1 || {
    cat "$STATE/up.log" >&2
    compose ps >&2
    compose logs --no-color --tail 50 >&2
    exit 1
  }
  t1=$(date +%s.%N)
  say "compose up $*: every container healthy or running after $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
}

# What the tests are told about the stack: the containers of each service and their addresses.
describe_stack() {
  local ids
  ids=$(compose ps --quiet)
  # shellcheck disable=SC2086
  docker inspect $ids --format '{{index .Config.Labels "com.docker.compose.service"}} {{index .Config.Labels "com.docker.compose.container-number"}} {{.Id}} {{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' |
    node -e '
      const ports = { gateway: 8081, invoices: 8082, updates: 8083, "webhook-worker": 8084, redis: 6379 };
      const lines = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => l.split(" "));
      console.log(JSON.stringify(lines.map(([service, n, id, ip]) => ({ name: `${service}-${n}`, service, id, url: `${service === "redis" ? "redis" : "http"}://${ip}:${ports[service]}` }))));'
}

COMPOSE_READY=1
say "compose up (the compose file as it ships, bases $NODE_BASE and $REDIS_BASE)"
up
export STARPOST_E2E_API_ROOT="http://127.0.0.1:$PORT"
export STARPOST_E2E_PLATFORM_TOKEN=$PLATFORM_TOKEN
STARPOST_E2E_CONTAINERS=$(describe_stack)
export STARPOST_E2E_CONTAINERS
# Containers reach the host as host.docker.internal, the default bridge's gateway address.
export STARPOST_E2E_HOST_NAME=host.docker.internal
STARPOST_E2E_HOST_ADDRESS=$(docker network inspect bridge --format '{{range .IPAM.Config}}{{.Gateway}}{{end}}')
if [ -z "$STARPOST_E2E_HOST_ADDRESS" ]; then
  # A freshly made default bridge may list its subnet without a gateway: the bridge interface's own
  # IPv4 address is that gateway.
  bridge_if=$(docker network inspect bridge --format '{{index .Options "com.docker.network.bridge.name"}}')
  STARPOST_E2E_HOST_ADDRESS=$(ip -4 -o addr show "${bridge_if:-docker0}" | awk '{print $4}' | cut -d/ -f1 | head -n 1)
fi
[ -n "$STARPOST_E2E_HOST_ADDRESS" ] || { echo "compose-test: cannot tell the default bridge's gateway address" >&2; exit 1; }
export STARPOST_E2E_HOST_ADDRESS
export STARPOST_E2E_COMPOSE="docker compose --project-name $PROJECT --file $REPO/docker-compose.yml"

say "end-to-end client suites on compose (gateway on 127.0.0.1:$PORT, receivers on $STARPOST_E2E_HOST_ADDRESS)"
t0=$(date +%s)
npx vitest run e2e/test/grammy.test.ts e2e/test/telegraf.test.ts e2e/test/node-telegram-bot-api.test.ts \
  e2e/test/python.test.ts e2e/test/get-only.test.ts
say "end-to-end client suites on compose passed in $(($(date +%s) - t0)) s"
# After the suites: it kills one of the two workers, which stays down until the next `up`.
t0=$(date +%s)
npx vitest run services/webhook-worker/test/crash.test.ts
say "webhook crash test on compose passed in $(($(date +%s) - t0)) s"

# --- 6. four workers; a worker killed and Redis crashed mid-delivery -------------------------------
up --scale webhook-worker=4
STARPOST_E2E_CONTAINERS=$(describe_stack)
t0=$(date +%s)
npx vitest run --config e2e/compose/vitest.config.ts
say "kill test on compose passed in $(($(date +%s) - t0)) s"

# --- 7. the health check is readiness: Redis stopped, every starpost container's check fails -------
# (FailingStreak, the checks failed in a row, turns at the first failure; unhealthy takes three.)
streaks() { # "<service> <failing streak>" for every running starpost container
  # shellcheck disable=SC2046
  docker inspect $(compose ps --quiet gateway updates invoices webhook-worker) \
    --format '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Health.FailingStreak}}'
}
wait_streaks() { # up to 30 s until every check is passing (streak 0) or failing (streak > 0)
  for _ in $(seq 1 60); do
    streaks | awk -v want="$1" '(want == "passing") != ($2 == 0) { bad = 1 } END { exit bad }' && return 0
    sleep 0.5
  done
  streaks >&2
  return 1
}
wait_streaks passing || { echo "compose-test: a health check fails before Redis is stopped" >&2; exit 1; }
t0=$(date +%s)
# The container, not `compose stop redis`: that also stops the services that depend on Redis.
docker stop "$(compose ps --quiet redis)" >/dev/null
wait_streaks failing || { echo "compose-test: a health check still passes with Redis stopped" >&2; exit 1; }
say "Redis stopped: every starpost container's health check failed within $(($(date +%s) - t0)) s"
