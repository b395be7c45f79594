#!/bin/bash
# tests/service/man_check.sh PAGE...: each man page renders with groff -man and no warning.
set -eu
for page in "$@"; do
	out=$(groff -man -z -wall "$page" 2>&1) || { echo "$page: groff failed"; echo "$out"; exit 1; }
	[ -z "$out" ] || { echo "$page:"; echo "$out"; exit 1; }
	# and it has the sections a man page needs
	for s in NAME SYNOPSIS DESCRIPTION; do
		grep -q "^\.SH $s" "$page" || { echo "$page: no .SH $s"; exit 1; }
	done
done
echo "man pages: ok ($#)"
