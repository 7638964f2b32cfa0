#!/bin/bash
# Host features on a real kernel (tests/host/inside.sh) in one VM boot.
# Called by tests/run.sh; an argument names another build dir.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot host "${HOST_TIMEOUT:-600}" "" "$@"
