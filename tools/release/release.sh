#!/usr/bin/env bash
# Builds a release: static ledger and ledger-hook binaries for linux/amd64
# and linux/arm64, one tarball per platform and SHA256SUMS, in dist/ (or
# --out DIR); with --image, also a container image per platform (FROM
# scratch: its build pulls no base image, so it needs nothing but the Go
# module proxy the binaries were built from).
#
#   bash tools/release/release.sh [--version V] [--out DIR] [--image]
#
# The version defaults to 'git describe --tags --always --dirty'; it is
# stamped into the binaries ('ledger version' prints it beside the VCS
# revision the go command stamps).
set -euo pipefail
cd "$(dirname "$0")/../.."
version="" out="dist" image=0
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --image) image=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$version" ]; then
  version="$(git describe --tags --always --dirty 2>/dev/null || echo dev)"
fi
case "$version" in
  *[!A-Za-z0-9._+-]*) echo "release.sh: version $version: use A-Z a-z 0-9 . _ + -" >&2; exit 2 ;;
esac
mkdir -p "$out"
sums=()
for arch in amd64 arm64; do
  name="ledger_${version}_linux_${arch}"
  dir="$out/$name"
  rm -rf "$dir"
  mkdir -p "$dir/data"
  echo "building $name" >&2
  for cmd in ledger ledger-hook; do
    CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -buildvcs=auto \
      -ldflags "-s -w -X main.releaseVersion=$version" -o "$dir/$cmd" "./cmd/$cmd"
  done
  cp README.md "$dir/"
  tar -C "$out" -czf "$out/$name.tar.gz" --exclude "$name/data" "$name"
  sums+=("$name.tar.gz")
  if [ "$image" = 1 ]; then
    docker build --platform "linux/$arch" -f tools/release/Dockerfile -t "ledger:$version-$arch" "$dir"
  fi
done
(cd "$out" && sha256sum "${sums[@]}" > SHA256SUMS)
echo "wrote ${sums[*]} and SHA256SUMS in $out" >&2
