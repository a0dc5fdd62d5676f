#!/usr/bin/env bash
# The repository stands alone: every relative link in README.md and docs/ leads to a file that
# is in the repository, and no tracked file points at anything outside it (the design notes and
# papers the project was planned from are cited by name in docs/references.md, not by path).
source "$(dirname "$0")/../lib/common.sh"

ROOT=$(cd "$CLOUDSM_TEST_DATA/../.." && pwd)
cd "$ROOT" || exit 1

# Markdown links [text](target) outside code (fenced or indented blocks, `inline spans`):
# relative targets must exist (anchors and URLs are left alone).
prose() {
  awk '/^[[:space:]]*```/ { fenced = !fenced; next } !fenced && !/^    / { print }' "$1" |
    sed -E 's/`[^`]*`//g'
}
broken=()
mapfile -t pages < <(ls README.md docs/*.md docs/*/*.md)
for page in "${pages[@]}"; do
  dir=$(dirname "$page")
  while IFS= read -r target; do
    target=${target%%#*}
    [[ -z "$target" || "$target" == *://* || "$target" == mailto:* ]] && continue
    [[ -e "$dir/$target" ]] || broken+=("$page -> $target")
  done < <(prose "$page" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\((.*)\)$/\1/')
done
expect_eq "broken relative links in README.md and docs/ (${#pages[@]} pages)" "" "${broken[*]}"

# Paths that lead out of the repository.
if command -v git >/dev/null && git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git -C "$ROOT" ls-files)
else
  mapfile -t files < <(find . -path ./build -prune -o -type f -print | sed 's|^\./||')
fi
outside=$(grep -nIE '\.\./shared|shared/(spec|seeds|DESIGN)|(^|[^a-z])spec/[a-z-]+\.md|seeds/[0-9]{3}_|DESIGN\.md' \
  "${files[@]}" 2>/dev/null | grep -v '^tests/cli/docs_stand_alone.sh:')
expect_eq "lines pointing outside the repository" "" "$outside"

check "README links the architecture page" grep -q '](docs/architecture.md)' README.md
check "the architecture page says how to add an engine" grep -q '^## Adding a routing engine' docs/architecture.md
# Every engine the registry has is one the architecture page's recipe points to (route.c).
check "the engine registry named in the recipe exists" grep -q 'cs_route_engines\[\]' src/route/route.c
finish
