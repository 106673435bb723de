#!/usr/bin/env bash
# Prepares this machine to build and run the restbus containers, also where no image registry is reachable.
#
#   1. installs docker.io, docker-compose and busybox-static from Debian when missing (root), and unpacks
#      the images' nats-server (2.15) from Debian's next release (forky) to /opt/restbus: the tests run it;
#   2. starts dockerd when no engine answers;
#   3. when the official base images cannot be had (not present, and `docker pull` fails), builds local stand-ins
#      from the host's node, forky's nats-server (above) and Debian's haproxy package (unpacked, not installed) with
#      `docker import`, plus a node image whose npm cache is seeded from our lockfile so that `npm ci` inside
#      `docker build` needs no network;
#   4. writes the chosen base images to the project's `.env` (read by docker compose v1 and v2) and prints them
#      as `export` lines for the caller to eval.
#
# Idempotent: images are rebuilt only when their labels say the inputs changed. Logs go to stderr, stdout
# carries only `export` lines:   eval "$(bash infra/scripts/prepare-docker.sh)"
#
# Environment: RESTBUS_OFFLINE=1 skips the pull attempt; RESTBUS_WRITE_ENV=0 leaves `.env` alone.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OFFICIAL_NODE=node:20-bookworm-slim
OFFICIAL_NATS=$(sed -n 's/^ARG NATS_IMAGE=//p' "$ROOT/infra/docker/Dockerfile")
OFFICIAL_LB=$(sed -n 's/^ARG LB_IMAGE=//p' "$ROOT/infra/docker/lb/Dockerfile")
LOCAL_NODE=local/node:20-bookworm-slim
LOCAL_NATS=local/nats:2-alpine
LOCAL_LB=local/haproxy:2.6
LOCAL_NODE_OFFLINE=${NODE_OFFLINE_IMAGE:-local/restbus-node-offline:20-bookworm-slim}
RECIPE=3 # bump when the stand-in recipe below changes, so existing stand-ins are rebuilt

log() { printf '[prepare-docker] %s\n' "$*" >&2; }
die() { printf '[prepare-docker] error: %s\n' "$*" >&2; exit 1; }
label_of() { docker image inspect -f "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null || true; }

install_packages() {
  local missing=() pkg
  for pkg in docker.io docker-compose busybox-static ca-certificates; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get here: install Docker with compose yourself"
  [ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: run this script as root to install them"
  log "installing ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The tests and the offline NATS stand-in run the nats-server the images run (NATS_IMAGE in infra/docker/Dockerfile,
# 2.15), not Debian bookworm's 2.9.10 (a node whose disk fills deadlocks, nats-server 598e272; a busy route is never
# pinged, #4014) nor trixie's 2.10.27 (a restarted node's stream replica may never catch up, so the node never turns
# healthy: nats-server#5205, #6964; seen in our cluster e2e and 2 of ~45 rolling restarts; 2.11 reworked catch-up).
# Debian's next release (forky) packages it: fetched through apt, signatures checked against Debian's archive keys,
# without adding forky to this machine's sources, and unpacked (not installed) to NATS_DIR; the tests find it there.
NATS_DIR=/opt/restbus/nats-server
NATS_SUITE=forky
NATS_WANT=$(printf '%s' "$OFFICIAL_NATS" | grep -o '[0-9][0-9]*\.[0-9][0-9]*' | head -n 1) # 2.15 of nats:2.15.1-alpine
# True when the binary is the image's minor version or later.
nats_server_is_current() {
  local have
  have=$("$1" --version 2>/dev/null | grep -o 'v[0-9][0-9.]*' | head -n 1 | tr -d v) || return 1
  [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$NATS_WANT" "$have" | sort -V | head -n 1)" = "$NATS_WANT" ]
}
fetch_nats_server() {
  local tmp opts
  if nats_server_is_current "$NATS_DIR/nats-server"; then return 0; fi
  [ "$(id -u)" -eq 0 ] || die "nats-server $NATS_WANT is missing from $NATS_DIR: run this script as root to fetch it"
  log "fetching Debian $NATS_SUITE's nats-server into $NATS_DIR"
  tmp=$(mktemp -d)
  chown _apt "$tmp" 2>/dev/null || chmod 755 "$tmp" # apt fetches as its own user, _apt
  mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $NATS_SUITE main" >"$tmp/suite.list"
  opts=(-o "Dir::Etc::SourceList=$tmp/suite.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$tmp/lists"
    -o "Dir::Cache::Archives=$tmp/archives")
  apt-get "${opts[@]}" update -qq >&2 || die "Debian $NATS_SUITE's package index could not be read"
  (cd "$tmp" && apt-get "${opts[@]}" download nats-server >&2) || die "Debian $NATS_SUITE's nats-server could not be fetched"
  dpkg-deb -x "$tmp"/nats-server_*.deb "$tmp/unpacked" || die "Debian $NATS_SUITE's nats-server could not be unpacked"
  nats_server_is_current "$tmp/unpacked/usr/sbin/nats-server" ||
    die "Debian $NATS_SUITE has $("$tmp/unpacked/usr/sbin/nats-server" --version), older than the images' $NATS_WANT"
  mkdir -p "$NATS_DIR"
  install -m 0755 "$tmp/unpacked/usr/sbin/nats-server" "$NATS_DIR/nats-server.new"
  mv "$NATS_DIR/nats-server.new" "$NATS_DIR/nats-server"
  rm -rf "$tmp"
  log "$("$NATS_DIR/nats-server" --version) in $NATS_DIR"
}

start_dockerd() {
  docker info >/dev/null 2>&1 && return 0
  command -v dockerd >/dev/null || die "no Docker engine answers and dockerd is not installed"
  [ "$(id -u)" -eq 0 ] || die "no Docker engine answers: start Docker, or run this script as root to start dockerd"
  log "starting dockerd (log: /var/log/restbus-dockerd.log)"
  setsid dockerd >/var/log/restbus-dockerd.log 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  tail -n 20 /var/log/restbus-dockerd.log >&2 || true
  die "dockerd did not answer within 60 s"
}

# True when the official images are here or can be pulled: then nothing is built.
registry_images_available() {
  [ "${RESTBUS_OFFLINE:-0}" = 1 ] && return 1
  local image
  for image in "$OFFICIAL_NODE" "$OFFICIAL_NATS" "$OFFICIAL_LB"; do
    # A stand-in tagged with the official name does not count as the official image.
    if docker image inspect "$image" >/dev/null 2>&1 && [ -z "$(label_of "$image" org.restbus.stand-in)" ]; then
      continue
    fi
    log "trying to pull $image"
    timeout 60 docker pull -q "$image" >/dev/null 2>&1 || return 1
  done
}

# Copies a binary and the shared libraries ldd lists into a root file system. Libraries are looked up on the host
# and, when a fourth argument names a tree of unpacked packages, there first; they keep their path inside it.
copy_with_libs() {
  local rootfs=$1 binary=$2 target=$3 unpacked=${4:-} libs lib path
  install -D -m 0755 "$binary" "$rootfs$target"
  if [ -n "$unpacked" ]; then
    libs=$(LD_LIBRARY_PATH=$(find "$unpacked" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:) ldd "$binary")
  else
    libs=$(ldd "$binary")
  fi
  if grep -q 'not found' <<<"$libs"; then die "$binary needs libraries that are not here: $(grep 'not found' <<<"$libs" | tr -s ' \t\n' ' ')"; fi
  for lib in $(grep -o '/[^ ]*' <<<"$libs"); do
    path=${lib#"$unpacked"}
    [ -e "$rootfs$path" ] || install -D -m 0755 "$(readlink -f "$lib")" "$rootfs$path"
  done
}

add_busybox() {
  local rootfs=$1 applet
  install -D -m 0755 /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list-full); do
    [ -e "$rootfs/$applet" ] || { mkdir -p "$rootfs/$(dirname "$applet")"; ln -s /bin/busybox "$rootfs/$applet"; }
  done
  mkdir -p "$rootfs/tmp" "$rootfs/root" "$rootfs/etc" "$rootfs/etc/ssl/certs"
  chmod 1777 "$rootfs/tmp"
  printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
  # Only Debian's mozilla CA set, never anything the host added.
  cat /usr/share/ca-certificates/mozilla/*.crt >"$rootfs/etc/ssl/certs/ca-certificates.crt"
}

build_node_stand_in() {
  local version want rootfs node_bin npm_dir
  version=$(node -v)
  want="$version-r$RECIPE"
  if [ "$(label_of "$LOCAL_NODE" offline.node.version)" = "$want" ]; then return 0; fi
  log "building $LOCAL_NODE from the host's node $version"
  rootfs=$(mktemp -d)
  node_bin=$(readlink -f "$(command -v node)")
  npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
  copy_with_libs "$rootfs" "$node_bin" /usr/local/bin/node
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  [ -d "$(dirname "$npm_dir")/corepack" ] && cp -a "$(dirname "$npm_dir")/corepack" "$rootfs/usr/local/lib/node_modules/corepack"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  add_busybox "$rootfs"
  printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnode:x:1000:\n' >"$rootfs/etc/group"
  install -d -o 1000 -g 1000 "$rootfs/home/node"
  # The official image's entrypoint: run node when the first argument is a flag or a script.
  cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
SH
  chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"
  tar -C "$rootfs" -c . | docker import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "ENV NODE_VERSION=${version#v}" \
    --change "LABEL offline.node.version=$want org.restbus.stand-in=$OFFICIAL_NODE" \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["node"]' \
    - "$LOCAL_NODE" >/dev/null
  rm -rf "$rootfs"
}

build_nats_stand_in() {
  local version want rootfs
  version=$("$NATS_DIR/nats-server" --version | grep -o 'v[0-9][0-9.]*' | head -n 1)
  want="$version-r$RECIPE"
  if [ "$(label_of "$LOCAL_NATS" offline.nats.version)" = "$want" ]; then return 0; fi
  log "building $LOCAL_NATS from Debian $NATS_SUITE's nats-server $version"
  rootfs=$(mktemp -d)
  copy_with_libs "$rootfs" "$NATS_DIR/nats-server" /usr/local/bin/nats-server
  add_busybox "$rootfs"
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\n' >"$rootfs/etc/group"
  mkdir -p "$rootfs/etc/nats"
  printf 'port: 4222\nhttp_port: 8222\ncluster {\n  port: 6222\n}\n' >"$rootfs/etc/nats/nats-server.conf"
  # The official alpine image's entrypoint: arguments that are only flags are given to nats-server.
  cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "$1" ]; then
  set -- nats-server "$@"
fi
exec "$@"
SH
  chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"
  tar -C "$rootfs" -c . | docker import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "LABEL offline.nats.version=$want org.restbus.stand-in=$OFFICIAL_NATS" \
    --change "EXPOSE 4222 6222 8222" \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["nats-server", "--config", "/etc/nats/nats-server.conf"]' \
    - "$LOCAL_NATS" >/dev/null
  rm -rf "$rootfs"
}

# Unpacks a Debian package, and every package it depends on that this machine lacks, into a folder (dpkg-deb -x):
# nothing is installed, so no service of it starts on the host.
unpack_with_dependencies() {
  local dir=$1 queue=("$2") seen=' ' pkg dep deb
  mkdir -p "$dir/debs" "$dir/root"
  # apt downloads as its sandbox user when that user can reach the folder (else it warns and downloads as root).
  chmod 0755 "$dir"
  chown _apt "$dir/debs" 2>/dev/null || true
  while [ ${#queue[@]} -gt 0 ]; do
    pkg=${queue[0]}
    queue=("${queue[@]:1}")
    case "$seen" in *" $pkg "*) continue ;; esac
    seen="$seen$pkg "
    (cd "$dir/debs" && apt-get download -qq "$pkg" >&2) || die "apt-get download $pkg failed"
    # First alternatives only; virtual packages (<name>) are provided by something installed or listed anyway.
    for dep in $(apt-cache depends --no-recommends --no-suggests "$pkg" | sed -n 's/^  Depends: \([^<].*\)$/\1/p'); do
      dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q 'install ok installed' || queue+=("$dep")
    done
  done
  for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
}

# HAProxy as the official alpine image lays it out: binary in /usr/local/sbin, configuration in
# /usr/local/etc/haproxy, user haproxy (99), the same entrypoint; busybox gives the health check its wget. The stop
# signal (SIGUSR1) is set by infra/docker/lb/Dockerfile: docker import cannot set one.
build_lb_stand_in() {
  local version want work rootfs
  version=$(apt-cache policy haproxy | sed -n 's/^ *Candidate: //p')
  if [ -z "$version" ] || [ "$version" = '(none)' ]; then
    [ "$(id -u)" -eq 0 ] || die "apt knows no haproxy package: run apt-get update, or this script as root"
    apt-get update -qq >&2
    version=$(apt-cache policy haproxy | sed -n 's/^ *Candidate: //p')
  fi
  want="$version-r$RECIPE"
  if [ "$(label_of "$LOCAL_LB" offline.lb.version)" = "$want" ]; then return 0; fi
  log "building $LOCAL_LB from Debian's haproxy $version"
  work=$(mktemp -d)
  unpack_with_dependencies "$work" haproxy
  rootfs=$work/image
  copy_with_libs "$rootfs" "$work/root/usr/sbin/haproxy" /usr/local/sbin/haproxy "$work/root"
  add_busybox "$rootfs"
  printf 'root:x:0:0:root:/root:/bin/sh\nhaproxy:x:99:99::/var/lib/haproxy:/bin/false\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nhaproxy:x:99:\n' >"$rootfs/etc/group"
  install -d -o 99 -g 99 "$rootfs/var/lib/haproxy"
  mkdir -p "$rootfs/usr/local/etc/haproxy" "$rootfs/usr/local/bin"
  # The official image's entrypoint: flags go to haproxy, which runs in the foreground as master and worker.
  cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "$1" ]; then
  set -- haproxy "$@"
fi
if [ "$1" = 'haproxy' ]; then
  shift
  set -- haproxy -W -db "$@"
fi
exec "$@"
SH
  chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"
  tar -C "$rootfs" -c . | docker import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "LABEL offline.lb.version=$want org.restbus.stand-in=$OFFICIAL_LB" \
    --change 'USER haproxy' \
    --change 'WORKDIR /var/lib/haproxy' \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]' \
    - "$LOCAL_LB" >/dev/null
  rm -rf "$work"
}

# What the seed is made from, relative to the checkout: the root manifest and lockfile, .npmrc when present, and
# every workspace's package.json (npm ci checks them against the lockfile).
seed_inputs() {
  printf '%s\n' package.json package-lock.json
  [ -f "$ROOT/.npmrc" ] && printf '%s\n' .npmrc
  (cd "$ROOT" && node -p "require('./package.json').workspaces.map(w => w + '/package.json').join('\n')")
}

# What decides the seed's content: the lockfile names every package and its tarball, .npmrc where it is fetched from.
# A manifest's scripts or description do not: re-seeding on such an edit cost the next run minutes.
seed_key_inputs() {
  printf '%s\n' package-lock.json
  if [ -f "$ROOT/.npmrc" ]; then printf '%s\n' .npmrc; fi
}

# A node image whose npm cache holds exactly the lockfile's packages, so `RUN npm ci` works with no network.
build_seeded_node() {
  local key work file
  # The key hashes each input's content under its relative name: `sha256sum <path>` would also print the path, and
  # every other checkout folder of the same lockfile would re-seed and retag this machine-wide image.
  key=$( {
    while IFS= read -r file; do
      printf '%s %s\n' "$file" "$(sha256sum <"$ROOT/$file" | cut -d' ' -f1)"
    done < <(seed_key_inputs)
    docker image inspect -f '{{.Id}}' "$LOCAL_NODE"
  } | sha256sum | cut -c1-16)
  if [ "$(label_of "$LOCAL_NODE_OFFLINE" offline.seed.key)" = "$key" ]; then
    log "$LOCAL_NODE_OFFLINE is seeded from this lockfile already"
    return 0
  fi
  log "seeding an npm cache from package-lock.json into $LOCAL_NODE_OFFLINE"
  work=$(mktemp -d)
  mkdir -p "$work/project"
  while IFS= read -r file; do
    install -D -m 0644 "$ROOT/$file" "$work/project/$file"
  done < <(seed_inputs)
  (cd "$work/project" && npm ci --ignore-scripts --no-audit --no-fund --prefer-offline --cache "$work/npm-cache" >&2)
  cat >"$work/Dockerfile" <<DOCKERFILE
FROM $LOCAL_NODE
COPY npm-cache /usr/local/share/npm-cache
ENV npm_config_cache=/usr/local/share/npm-cache npm_config_offline=true npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
LABEL offline.seed.key=$key
DOCKERFILE
  rm -rf "$work/project"
  DOCKER_BUILDKIT=0 docker build -q -t "$LOCAL_NODE_OFFLINE" "$work" >/dev/null
  rm -rf "$work"
}

# Compose reads `.env` beside the compose file, so plain `docker compose up --build` uses the stand-ins.
# A `.env` the user wrote is never touched.
write_env_file() {
  local file="$ROOT/.env" marker='# written by infra/scripts/prepare-docker.sh'
  [ "${RESTBUS_WRITE_ENV:-1}" = 1 ] || return 0
  if [ -f "$file" ] && ! head -n 1 "$file" | grep -qxF "$marker"; then
    log ".env exists and is yours: not changed; export the variables printed on stdout instead"
    return 0
  fi
  printf '%s\n' "$marker" "$@" >"$file.tmp"
  mv "$file.tmp" "$file"
}

main() {
  install_packages
  fetch_nats_server
  start_dockerd
  if registry_images_available; then
    log "official base images available: nothing to build"
    write_env_file
    return 0
  fi
  log "no image registry reachable: using local stand-in base images"
  build_node_stand_in
  build_nats_stand_in
  build_lb_stand_in
  build_seeded_node
  local vars=(
    "NODE_IMAGE=$LOCAL_NODE_OFFLINE"
    "RUNTIME_IMAGE=$LOCAL_NODE"
    "NATS_IMAGE=$LOCAL_NATS"
    "LB_IMAGE=$LOCAL_LB"
  )
  write_env_file "${vars[@]}"
  printf 'export %s\n' "${vars[@]}"
  # testcontainers: the reaper image cannot be pulled, and /.dockerenv makes it look for a gateway by pulling.
  printf 'export %s\n' TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=localhost
  log "done"
}

main "$@"
