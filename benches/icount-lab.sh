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
# shellcheck source=benches/common/callgrind.sh
. "$(dirname "$0")/common/callgrind.sh"
n=$(callgrind_per_game icount-lab.sh 50 "$games" "$bin" lab --data "$data" --jobs 1 "$@")
echo "lab $*: $n instructions/game, every arm ($games games)"
