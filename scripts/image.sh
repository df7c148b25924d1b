#!/usr/bin/env bash
# Builds rightsize's container image without Docker or a registry (make
# image): the static binary (no cgo: the SQLite store is pure Go) from
# scratch, run as the non-root user 65532, written as an OCI image-layout
# tarball by internal/ociimage/mkimage. The Dockerfile makes the same layout:
#   /usr/local/bin/rightsize (entrypoint), /etc/passwd, /etc/group (nonroot
#   65532), /etc/ssl/certs/ca-certificates.crt, /tmp; port 9464 (metrics).
# Import it into containerd with `ctr -n k8s.io images import FILE` (the
# kubelet's namespace) or `docker load -i FILE`; push it with skopeo/crane.
#   scripts/image.sh [REF [FILE [BINARY]]]
# REF defaults to ghcr.io/rightsize/rightsize:VERSION, the image
# `rightsize k8s job` names by default; FILE to bin/rightsize-image.tar;
# BINARY, if given, keeps a copy of the static binary there.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
commit=$(git rev-parse --short HEAD 2>/dev/null || true)
tag=$version
[ "$tag" = dev ] && tag=latest
ref=${1:-ghcr.io/rightsize/rightsize:$tag}
out=${2:-bin/rightsize-image.tar}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$d/rightsize" ./cmd/rightsize
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$d/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$d/group"
certs=()
[ -f /etc/ssl/certs/ca-certificates.crt ] && certs=(-add /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:0644)
mkdir -p "$(dirname "$out")"
go run ./internal/ociimage/mkimage -o "$out" -name "$ref" -user 65532:65532 \
  -entrypoint /usr/local/bin/rightsize -port 9464/tcp -dir /tmp:1777 \
  -add "$d/rightsize:/usr/local/bin/rightsize:0755" -add "$d/passwd:/etc/passwd:0644" -add "$d/group:/etc/group:0644" "${certs[@]}"
[ -z "${3:-}" ] || cp "$d/rightsize" "$3"
echo "$out: $ref"
