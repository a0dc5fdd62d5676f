#!/usr/bin/env bash
# ftree against the real OpenSM 3.3.23, entry by entry. For each fabric: ibsim + `opensm -o -R
# ftree` (with the fabric's options) give OpenSM's LIDs and tables; `cloudsm route -R ftree
# --guid2lid` on the same topology must make the same decision (route as ftree, or fall back
# for the same reason, OpenSM's ERR code) and the same tables (every switch, every LID; after a
# fallback both sides hold minhop's). Mismatches are listed as switch GUID, LID, ours, OpenSM's.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm

# Top-level switches of a generated tree (GUID rule in docs/topology-generators.md).
roots_of() { # TOPO LEVEL
  sed -n "s/^Switch.*\"S-\\(002000$(printf %02x "$2")[0-9a-f]*\\)\".*/0x\\1/p" "$1"
}

# Port GUIDs of the CAs' ports, in file order.
ca_ports_of() { # TOPO
  awk '/^Ca/ { ca = 1; next } /^Switch/ { ca = 0 } ca && /^\[[0-9]+\]\(/ {
    match($0, /\([0-9a-fA-F]+\)/); printf "0x%016s\n", substr($0, RSTART + 1, RLENGTH - 2) }' "$1" |
    tr ' ' 0
}

# Per-entry comparison of two LFT dumps: prints each differing (switch, LID) as
# "switch 0x... LID n: ours X, OpenSM Y" (255 = no entry) and the count last.
compare_entries() { # OURS OPENSM
  awk '
    function hex(s,  i, v) {
      v = 0; s = tolower(substr(s, 3))
      for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return v
    }
    FNR == 1 { file++ }
    /^Unicast lids/ { match($0, /guid 0x[0-9a-fA-F]+/); sw = substr($0, RSTART + 5, RLENGTH - 5); next }
    /^0x[0-9a-fA-F]+ +[0-9]+/ {
      key = sw " " hex($1); port[file, key] = $2 + 0; keys[key] = 1
    }
    END {
      n = 0
      for (k in keys) {
        a = ((1, k) in port) ? port[1, k] : 255; b = ((2, k) in port) ? port[2, k] : 255
        if (a != b && ++n <= 20) { split(k, f, " "); printf "switch %s LID %d: ours %d, OpenSM %d\n", f[1], f[2], a, b }
      }
      print n
    }' "$1" "$2"
}

CASES=0
# fabric NAME TOPO EXPECT [opensm options]: EXPECT is ftree (OpenSM routes it as a fat-tree) or
# fallback (OpenSM refuses it).
fabric() {
  local name=$1 topo=$2 expect=$3; shift 3
  local dir=$WORK/$name ours_opts=() prev="" a
  for a in "$@"; do
    case $prev in -a) ours_opts+=(--root-guids "$a") ;; -u) ours_opts+=(--cn-guids "$a") ;; esac
    [[ $a == -z ]] && ours_opts+=(--connect-roots)
    prev=$a
  done
  CASES=$((CASES + 1))
  local nodes switches
  nodes=$(grep -cE '^(Ca|Switch|Rt)' "$topo")
  switches=$(grep -c '^Switch' "$topo")
  start_ibsim "$topo" -N $((nodes + 8)) -S $((switches + 8)) -P $((nodes * 40 + 64))
  run_opensm "$dir" ftree "$@" || fail "$name: opensm"
  stop_ibsim
  local osm=fallback
  grep -q "ftree tables configured on all switches" "$dir/osm.log" && osm=ftree
  expect_eq "$name: OpenSM routes it as" "$expect" "$osm"

  "$CLOUDSM" route -R ftree "$topo" --guid2lid "$dir/guid2lid" "${ours_opts[@]}" \
    -o "$dir/ours.dump" --json >"$dir/ours.json" || { fail "$name: cloudsm route"; return; }
  local engine fell_back
  engine=$(json_get "$dir/ours.json" engine)
  fell_back=$(json_get "$dir/ours.json" fell_back)
  if [[ $expect == ftree ]]; then
    expect_eq "$name: our engine" ftree "$engine"
    expect_eq "$name: no fallback" false "$fell_back"
  else
    expect_eq "$name: our engine after the fallback" minhop "$engine"
    expect_eq "$name: fell back" true "$fell_back"
    # Same reason: the OpenSM ERR code our message cites is in OpenSM's log.
    local code
    code=$(sed -nE 's/.*"fallback_reason": ".*ERR (AB[0-9A-F]{2}).*/\1/p' "$dir/ours.json")
    check "$name: OpenSM's log has our reason (ERR ${code:-?})" \
      grep -q "ERR ${code:-none}" "$dir/osm.log"
  fi

  local report count
  report=$(compare_entries "$dir/ours.dump" "$dir/opensm-lfts.dump")
  count=$(tail -n 1 <<<"$report")
  [[ $count != 0 ]] && head -n -1 <<<"$report" >&2
  expect_eq "$name: entries differing from OpenSM's" 0 "$count"
  "$CLOUDSM" lft diff --json "$dir/ours.dump" "$dir/opensm-lfts.dump" >"$dir/diff.json"
  expect_eq "$name: LFT blocks differing (lft diff)" 0 "$(json_get "$dir/diff.json" blocks_changed)"
}

gen() { # NAME GEN-ARGS...: generate $WORK/NAME.topo
  local name=$1; shift
  "$CLOUDSM" topo gen "$@" -o "$WORK/$name.topo" || fail "generate $name"
}
mutate() { # NAME FROM MUTATE-ARGS...
  local name=$1 from=$2; shift 2
  "$CLOUDSM" topo mutate "$WORK/$from.topo" "$@" -o "$WORK/$name.topo" || fail "mutate $name"
}

# Pure fat-trees.
gen k4n2 kary 4 2
fabric k-ary-2-level "$WORK/k4n2.topo" ftree
gen k8n3 kary 8 3
fabric k-ary-3-level "$WORK/k8n3.topo" ftree
gen k3n4 kary 3 4
fabric k-ary-4-level "$WORK/k3n4.topo" ftree
gen x432 xgft "3;4,3,2;1,2,3"
fabric xgft-unequal-arities "$WORK/x432.topo" ftree
gen x643 xgft "3;6,4,3;1,3,2"
fabric xgft-unequal-wide "$WORK/x643.topo" ftree
gen x864 xgft "3;8,6,4;1,4,6"
fabric xgft-unequal-192-hosts "$WORK/x864.topo" ftree
gen k12n3 kary 12 3
fabric k-ary-3-level-1728-hosts "$WORK/k12n3.topo" ftree
gen p3 pgft "3;4,2,2;1,2,2;1,2,2"
fabric pgft-parallel-links "$WORK/p3.topo" ftree
gen p2 pgft "2;4,4;1,2;1,3"
fabric pgft-triple-spine-links "$WORK/p2.topo" ftree
gen over2 xgft "2;8,4;1,4"
fabric oversubscribed-8-down-4-up "$WORK/over2.topo" ftree
gen over3 xgft "3;6,3,2;1,2,3"
fabric oversubscribed-3-level "$WORK/over3.topo" ftree
gen miss1 kary 4 3 --hosts-per-leaf 2
fabric missing-hosts "$WORK/miss1.topo" ftree
gen miss2 xgft "3;4,4,2;1,2,2" --hosts-per-leaf 3
fabric missing-hosts-xgft "$WORK/miss2.topo" ftree
mutate shuf k8n3 --shuffle-hosts --seed 11
fabric shuffled-host-cabling "$WORK/shuf.topo" ftree

# Failed switch-to-switch cables. OpenSM's validation refuses a tree with unequal port groups
# (a single cut does it), so the degraded trees OpenSM still routes as ftree are those with a
# root list (-a: no validation).
gen k4n3 kary 4 3
roots_of "$WORK/k4n3.topo" 3 >"$WORK/k4n3.roots"
roots_of "$WORK/k8n3.topo" 3 >"$WORK/k8n3.roots"
mutate cut2 k4n3 --unlink 2 --seed 1
fabric failed-links-with-roots "$WORK/cut2.topo" ftree -a "$WORK/k4n3.roots"
mutate cut6 k8n3 --unlink 6 --seed 2
fabric failed-links-with-roots-8ary "$WORK/cut6.topo" ftree -a "$WORK/k8n3.roots"
mutate cut1 k4n3 --unlink 1 --seed 1
fabric failed-link-falls-back "$WORK/cut1.topo" fallback

# Options: compute nodes (-u: dummies on the emptier leaves, the rest routed after them in
# hca_tbl order) and connected roots (-z).
mutate x432s x432 --shuffle-hosts --seed 2
ca_ports_of "$WORK/x432s.topo" | awk 'NR % 4 != 1 && NR != 6' >"$WORK/x432s.cns"
fabric cn-list-and-connect-roots "$WORK/x432s.topo" ftree -u "$WORK/x432s.cns" -z
fabric connect-roots-k-ary "$WORK/k4n2.topo" ftree -z

# Not fat-trees: both sides fall back to minhop, for the same reason.
fabric ring-falls-back "$CLOUDSM_TEST_DATA/ring6.net" fallback
grep '^Switch' "$WORK/k4n3.topo" | sed -n 's/.*"S-\(0020000200000000\)".*/0x\1/p' >"$WORK/mid.roots"
fabric middle-switch-as-root-falls-back "$WORK/k4n3.topo" fallback -a "$WORK/mid.roots"

echo "$CASES fabrics compared with OpenSM"
finish
