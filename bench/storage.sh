#!/usr/bin/env bash
# Compare rightsize's builtin storage engine with fio on the sqlserver preset
# (8 KiB random, 25 % writes, 8 threads x 4 outstanding, direct) on a 1 GiB
# test file: prints both result tables, the IOPS of each engine per round and
# the ratio builtin/fio of the means (target: >= 0.90).
#
# usage: bench/storage.sh [DIR]    (default /var/tmp/rightsize-storagebench)
# env:   DURATION (20s), SIZE (bytes, 1073741824), ROUNDS (3), PRESET (sqlserver)
set -euo pipefail

DIR=${1:-/var/tmp/rightsize-storagebench}
DURATION=${DURATION:-20s}
SIZE=${SIZE:-1073741824}
ROUNDS=${ROUNDS:-3}
PRESET=${PRESET:-sqlserver}

if ! command -v fio >/dev/null 2>&1; then
	echo "fio not found: installing it with apt-get" >&2
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q fio
fi
echo "$(fio --version), $(go version), $(nproc) CPUs, dir $DIR ($(df -hP "$(dirname "$DIR")" | awk 'NR==2 {print $1}'))" >&2

cd "$(dirname "$0")/.."
mkdir -p "$DIR"
go run ./probe/storage/cmd/storagebench -dir "$DIR" -size "$SIZE" -duration "$DURATION" \
	-preset "$PRESET" -rounds "$ROUNDS" -engines fio,builtin
