#!/usr/bin/env bash
# A stand-in for node:24-bookworm-slim where no registry image can be pulled (CI's machine, an
# air-gapped builder): Debian bookworm (debootstrap, minbase) with this machine's Node and npm in
# /usr/local as the official image has them, this machine's CA bundle (NODE_EXTRA_CA_CERTS, for a
# registry behind an intercepting proxy) and the user node (1000:1000). Imported as one layer:
#
#   scripts/docker-base.sh [image]          # default cliffhanger-base:local; kept when it exists
#   docker build --network host --build-arg NODE_IMAGE=cliffhanger-base:local -t cliffhanger:local .
#
# Needs root, debootstrap, a Docker engine and a Debian mirror (DEBIAN_MIRROR). REBUILD=1 makes it anew.
# docs/development.md, "The container image", says when to use it.
set -euo pipefail
image=${1:-cliffhanger-base:local}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "${REBUILD:-}" != 1 ] && docker image inspect "$image" >/dev/null 2>&1; then
  echo "docker-base: $image exists (REBUILD=1 to make it anew)"
  exit 0
fi
node=$(command -v node)
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
ca=/etc/ssl/certs/ca-certificates.crt
for needed in debootstrap docker; do
  command -v "$needed" >/dev/null || { echo "docker-base: $needed is missing (apt-get install -y debootstrap docker.io)" >&2; exit 1; }
done
[ -f "$ca" ] || { echo "docker-base: no CA bundle at $ca (apt-get install -y ca-certificates)" >&2; exit 1; }

root=$(mktemp -d /tmp/cliffhanger-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
# What slim images leave out: apt's caches and lists, documentation.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*

install -D -m 0755 "$node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# Where update-ca-certificates (which Debian's ca-certificates package runs when the image installs it)
# adds it to the system bundle rather than writing over it.
install -D -m 0644 "$ca" "$root/usr/local/share/ca-certificates/host-ca-bundle.crt"
install -D -m 0644 "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

tar -C "$root" -c . | docker import \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-ca-bundle.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
echo "docker-base: $image made with Node $("$node" --version) and npm $(npm --version)"
