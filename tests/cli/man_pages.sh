#!/usr/bin/env bash
# The manual pages the build makes from the help texts (cmake/manpages.cmake): every command
# `cloudsm help` lists has its page, cloudsm-GROUP-NAME.1, and the page's text is its --help,
# byte for byte (the page's no-fill blocks, roff escapes undone); so are cloudsm.1 (`cloudsm
# help`) and cloudsmd.8 (`cloudsmd --help`); cloudsmd.conf.5 holds every key `cloudsmd
# --dump-config` prints; NAME lines carry the summary; and man(1) finds and renders the pages
# through MANPATH (when man is installed).
source "$(dirname "$0")/../lib/common.sh"
MAN=${CLOUDSM_BUILD_DIR:?}/man
CLOUDSMD=$CLOUDSM_BUILD_DIR/cloudsmd

# page_text PAGE: the text of a page's no-fill blocks, a blank line between two blocks.
page_text() {
  awk '/^\.nf$/ { if (blocks++) print ""; on = 1; next } /^\.fi$/ { on = 0; next } on' "$1" |
    sed -e 's/^\\&//' -e 's/\\e/\\/g'
}
# same_text NAME PAGE CMD...: the page's text is CMD's output.
same_text() {
  local name=$1 page=$2; shift 2
  "$@" >"$WORK/help.txt" 2>/dev/null
  page_text "$page" >"$WORK/page.txt"
  check "$name: page = --help ($(wc -l <"$WORK/help.txt") lines)" \
    cmp -s "$WORK/help.txt" "$WORK/page.txt"
}

"$CLOUDSM" help >"$WORK/overview.txt"
commands=$(sed -n '/Commands:/,/^$/d; /^  help /q; s/^  \([a-z]*\)\( [a-z0-9-]*\)\?  .*/\1\2/p' \
  "$WORK/overview.txt")
n=$(echo "$commands" | grep -c .)
check "cloudsm help lists commands ($n)" test "$n" -ge 30
checked=0
while read -r group name; do
  page=$MAN/man1/cloudsm-$group${name:+-$name}.1
  if [[ ! -f $page ]]; then
    fail "no page for 'cloudsm $group${name:+ $name}' ($page)"
    continue
  fi
  # shellcheck disable=SC2086
  "$CLOUDSM" $group $name --help >"$WORK/help.txt" 2>/dev/null
  page_text "$page" >"$WORK/page.txt"
  cmp -s "$WORK/help.txt" "$WORK/page.txt" ||
    fail "cloudsm $group${name:+ $name}: the page differs from --help ($page)"
  summary=$(sed -nE "s/^  $group${name:+ $name} +(.*)$/\1/p" "$WORK/overview.txt")
  grep -qxF "cloudsm-$group${name:+-$name} \\- $summary" "$page" ||
    fail "cloudsm $group${name:+ $name}: NAME is not its summary"
  checked=$((checked + 1))
done <<<"$commands"
CHECKS=$((CHECKS + 1))
echo "ok: every command listed has its page, equal to --help, NAME its summary ($checked)"
expect_eq "no page for a command that is not listed" "$((n + 1))" "$(ls "$MAN/man1" | wc -l)"
same_text cloudsm.1 "$MAN/man1/cloudsm.1" "$CLOUDSM" help
same_text cloudsmd.8 "$MAN/man8/cloudsmd.8" "$CLOUDSMD" --help
"$CLOUDSMD" --dump-config >"$WORK/conf.txt"
page_text "$MAN/man5/cloudsmd.conf.5" >"$WORK/conf-page.txt"
check "cloudsmd.conf.5: every key of --dump-config, with its comment" \
  cmp -s "$WORK/conf.txt" <(sed -n '/^# cloudsmd configuration/,$p' "$WORK/conf-page.txt")
check "cloudsmd.conf.5: routing_engine's default is OpenSM's" grep -qx "routing_engine minhop" "$WORK/conf-page.txt"
# A roff request at the start of a help line would be eaten: such lines are protected.
check "no unprotected roff request in a block" \
  bash -c "! awk '/^\\.nf\$/ { on = 1; next } /^\\.fi\$/ { on = 0 } on && /^[.'\\'']/' $MAN/man*/* | grep -q ."
if command -v man >/dev/null; then
  MANPATH=$MAN man -w cloudsmd >"$WORK/where" 2>&1
  check "man -w cloudsmd finds the page through MANPATH" grep -qx "$MAN/man8/cloudsmd.8" "$WORK/where"
  MANPATH=$MAN MANWIDTH=100 man -P cat cloudsm-sm-querylid >"$WORK/rendered" 2>"$WORK/man.err"
  check "man renders cloudsm-sm-querylid" grep -q "cloudsm sm querylid LID" "$WORK/rendered"
  check "man renders it without warnings" test ! -s "$WORK/man.err"
fi
finish
