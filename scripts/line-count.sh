#!/usr/bin/env bash
# Lines of TypeScript at a commit, each file laid out by this project's prettier config first, so that a commit from
# before the formatter and one after it are counted in the same unit. Counts what `wc -l` counts: every line.
#
#   scripts/line-count.sh [REV]    (default HEAD)
#
# Prints two figures:
#   builder          every .ts/.tsx under builder/ (the files of `git ls-files 'builder/*.ts' 'builder/*.tsx'`)
#   non-test source  every .ts/.tsx outside test/ folders, without .d.ts
set -euo pipefail
rev=${1:-HEAD}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$rev" | tar -x -C "$tmp"
cp "$root/.prettierrc.json" "$tmp/"
rm -f "$tmp/.prettierignore"
files=$(git -C "$root" ls-tree -r --name-only "$rev")
mapfile -t builder < <(grep -E '^builder/.*\.tsx?$' <<<"$files")
mapfile -t source < <(grep -E '\.tsx?$' <<<"$files" | grep -vE '(^|/)test/|\.d\.ts$')
cd "$tmp"
"$root/node_modules/.bin/prettier" --log-level warn --write "${builder[@]}" "${source[@]}" >/dev/null
echo "builder          $(cat "${builder[@]}" | wc -l)"
echo "non-test source  $(cat "${source[@]}" | wc -l)"
