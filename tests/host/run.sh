#!/bin/bash
# Host features on a real kernel (tests/host/inside.sh) in one VM boot.
# Called by tests/run.sh; an argument names another build dir.
set -u
cd "$(dirname "$0")/../.." || exit 1
mkdir -p build/vm/host || exit 1
RES=$(mktemp -d "$PWD/build/vm/host/run-$(date +%Y%m%d-%H%M%S)-XXXX") || exit 1
ln -sfn "$(basename "$RES")" build/vm/host/last
find build/vm/host -maxdepth 1 -name 'run-*' -type d | sort | head -n -5 | xargs -r rm -rf
tests/vm/run.sh --timeout "${HOST_TIMEOUT:-600}" --results "$RES" tests/host/inside.sh "$@"
