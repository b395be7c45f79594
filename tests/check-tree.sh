#!/usr/bin/env bash
# tests/check-tree.sh [ROOT]: fails when a file of the tree (code, docs, build files, data)
# names an absolute path of a developer's machine or refers to an issue by number: the tree
# speaks of its code, not of where or why it was written. Prints file:line:text of each hit.
# Scans what git sees (tracked files and untracked ones not ignored; node_modules skipped).
# Exit: 0 clean, 1 hits found, 77 (skipped) when ROOT is not a git checkout.
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "SKIP: $PWD is not a git checkout (the file list comes from git ls-files)"
	exit 77
fi

# Absolute home/work directories of a machine; and a work item by number: the word issue(s)
# before a number, a number after # in parentheses, or fix/close/see/per before # and a number.
paths='(^|[^[:alnum:]_.~-])/(work|home|root)/'
issues='[Ii]ssues? #?[0-9]+|\(#[0-9]+\)|([Ff]ix(es|ed)?|[Cc]loses?|[Ss]ee|[Pp]er) #[0-9]+'

files=()
while IFS= read -r -d '' f; do
	case $f in
	*node_modules/* | tests/check-tree.sh) continue ;;
	esac
	[ -f "$f" ] && files+=("$f")
done < <(git ls-files -z --cached --others --exclude-standard)

if [ ${#files[@]} -eq 0 ]; then
	echo "check-tree: no files found under $PWD" >&2
	exit 1
fi

hits=$(printf '%s\0' "${files[@]}" | xargs -0 grep -nIE -e "$paths" -e "$issues" -- || true)
if [ -n "$hits" ]; then
	printf '%s\n' "$hits"
	echo "check-tree: $(printf '%s\n' "$hits" | wc -l) line(s) name a machine path or an issue" \
		"number (write what the code does instead)" >&2
	exit 1
fi
echo "check-tree: ${#files[@]} files, no machine paths or issue numbers"
