# shellcheck shell=bash
# The frame of the host-side check scripts (tests/kit.sh, tests/deb/run.sh):
# PASS/FAIL lines named SUITE/NAME (tests/README.md's result protocol),
# `fails` counting the failures.  The script sets SUITE, and LOG (a
# scratch file for a command's output) before its first check.
#
#   pass NAME           PASS SUITE/NAME
#   fail NAME WHY       FAIL SUITE/NAME: WHY, counted
#   check NAME CMD...   PASS when CMD succeeds, else FAIL with its last lines
#   mk ARGS...          make, not seeing the make that may have started the
#                       tests (its MAKEFLAGS, jobserver included)
fails=0
pass() { echo "PASS $SUITE/$1"; }
fail() { echo "FAIL $SUITE/$1: $2"; fails=$((fails + 1)); }
check() {
	local name=$1; shift
	if "$@" >"$LOG" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(tail -n 4 "$LOG" | tr '\n' ' ')"
	fi
}
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make "$@"; }
