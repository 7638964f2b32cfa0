#!/bin/bash
# The VM part of tests/deb/run.sh: one boot runs tests/deb/inside.sh on
# the packages installed on the host (the VM's root is the host's).
# DEB_VM_TIMEOUT (default 1200 s) bounds the boot; DEB_VM_E2E, DEB_VM_SIP
# and DEB_VM_DKMS choose cases (tests/deb/inside.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
RES=$(rundir_new build/vm/deb) || exit 1
suite_boot deb "${DEB_VM_TIMEOUT:-1200}" "DEB_VM_E2E DEB_VM_SIP DEB_VM_DKMS" "$@"
