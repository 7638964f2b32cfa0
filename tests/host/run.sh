#!/bin/bash
# Host features on a real kernel (tests/host/inside.sh) in one VM boot.
# Called by tests/run.sh; an argument names another build dir.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
RES=$(rundir_new build/vm/host) || exit 1
tests/vm/run.sh --timeout "${HOST_TIMEOUT:-600}" --results "$RES" tests/host/inside.sh "$@"
