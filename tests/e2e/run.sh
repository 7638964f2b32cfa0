#!/bin/bash
# FTP end-to-end tests: one VM boot runs every scenario against every
# helper implementation (tests/e2e/inside.sh) and prints PASS/FAIL lines and
# a side-by-side table.  Called by tests/run.sh; extra arguments select
# implementations (none conntrackd cthelperd kernel).
set -u
cd "$(dirname "$0")/../.." || exit 1
RES=build/vm/e2e
# Fresh each run: the logs of an older run would mislead.
rm -rf "$RES"
start=$SECONDS
tests/vm/run.sh --timeout "${E2E_TIMEOUT:-1500}" --results "$RES" tests/e2e/inside.sh "$@"
rc=$?
echo "e2e: whole run (boot included) took $((SECONDS - start)) s; logs in $RES/logs"
exit $rc
