# shellcheck shell=bash
# rundir_new PARENT: a fresh results dir PARENT/run-<date>-<time>-XXXX for
# one run (runs may overlap: other work in the same tree), PARENT/last ->
# the newest, the newest five kept.  Prints its absolute path.
rundir_new() {
	local parent=$1 dir
	mkdir -p "$parent" || return 1
	dir=$(mktemp -d "$(cd "$parent" && pwd)/run-$(date +%Y%m%d-%H%M%S)-XXXX") || return 1
	ln -sfn "$(basename "$dir")" "$parent/last"
	find "$parent" -maxdepth 1 -name 'run-*' -type d | sort | head -n -5 | xargs -r rm -rf
	echo "$dir"
}
