#!/bin/bash
# Instructions per game, counted by callgrind (a loaded machine does not
# blur them): (I(GAMES) - I(10)) / (GAMES - 10) of `shogun bench`, which
# takes the start-up (rules load, Lua VM) out.
#
# usage: benches/icount.sh GAMES BOTS BIN DATA [more bench options]
#   e.g. benches/icount.sh 200 planner target/release/shogun .
# Compare two builds in one sitting: the same command with each BIN (and
# each build's own DATA, the scripts it was built with).
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
games=$1 bots=$2 bin=$3 data=$4
shift 4
# shellcheck source=benches/common/callgrind.sh
. "$(dirname "$0")/common/callgrind.sh"
n=$(callgrind_per_game icount.sh 10 "$games" "$bin" bench --data "$data" --bots "$bots" "$@")
echo "$bots: $n instructions/game ($games games)"
