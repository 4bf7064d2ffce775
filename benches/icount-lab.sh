#!/bin/bash
# Instructions per lab game, counted by callgrind: (I(GAMES) - I(50)) /
# (GAMES - 50) of `shogun lab ... --jobs 1`, each game counting the game of
# every arm and the lab's bookkeeping of it (the start-up, engines and
# report, is taken out).
#
# usage: benches/icount-lab.sh GAMES BIN DATA [more lab options]
#   e.g. benches/icount-lab.sh 200 target/release/shogun . --variant hard-winter --against base --bots greedy
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
games=$1 bin=$2 data=$3
shift 3
command -v valgrind > /dev/null || { echo "icount-lab.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
[ "$games" -gt 50 ] || { echo "icount-lab.sh: GAMES must be more than 50" >&2; exit 2; }
# shellcheck source=benches/common/callgrind.sh
. "$(dirname "$0")/common/callgrind.sh"
count() {
  local n=$1
  shift
  callgrind_count icount-lab.sh "$bin" lab --data "$data" --games "$n" --jobs 1 "$@"
}
a=$(count 50 "$@")
b=$(count "$games" "$@")
[ -n "$a" ] && [ -n "$b" ] || { echo "icount-lab.sh: callgrind gave no count (does \`$bin lab --data $data $*\` run?)" >&2; exit 1; }
echo "lab $*: $(((b - a) / (games - 50))) instructions/game, every arm ($games games)"
