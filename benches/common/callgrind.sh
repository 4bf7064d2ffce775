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
