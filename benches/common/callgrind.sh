# Sourced by benches/icount.sh and benches/icount-lab.sh.
#
# callgrind_count NAME CMD...: the instructions callgrind counts while CMD
# runs (its output discarded). When CMD fails, the script stops with CMD's
# last words, NAME first (valgrind counts a program that failed, too).
callgrind_count() {
  local name=$1 out
  shift
  if ! out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null); then
    echo "$name: \`$*\` failed:" >&2
    printf '%s\n' "$out" | grep -v '^==' | tail -n 5 >&2
    exit 1
  fi
  printf '%s\n' "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# callgrind_per_game NAME BASE GAMES CMD...: instructions per game of
# `CMD --games GAMES`, as (I(GAMES) - I(BASE)) / (GAMES - BASE), which
# takes the start-up out. Stops the script, NAME first, when it cannot.
callgrind_per_game() {
  local name=$1 base=$2 games=$3 a b
  shift 3
  command -v valgrind > /dev/null || { echo "$name: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
  [ "$games" -gt "$base" ] || { echo "$name: GAMES must be more than $base" >&2; exit 2; }
  a=$(callgrind_count "$name" "$@" --games "$base") || exit 1
  b=$(callgrind_count "$name" "$@" --games "$games") || exit 1
  [ -n "$a" ] && [ -n "$b" ] || { echo "$name: callgrind gave no count (does \`$*\` run?)" >&2; exit 1; }
  echo $(((b - a) / (games - base)))
}
