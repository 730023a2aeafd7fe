#!/usr/bin/env bash
# bench-peers.sh times the same edit_note_tab write in notesbench (Go, through
# the store's normal write path), in a Python stdlib sqlite3 peer and, when the
# libsqlite3 headers are installed, in a C peer: the same schema, statements,
# transaction and PRAGMAs (WAL, synchronous, busy timeout), a file database,
# WRITES writes of a TEXT-character text after WARMUP warm-up writes, each
# implementation a fresh process.
#
# A fair comparison on a shared machine: the implementations run one after
# another in every round, and the order rotates by one place each round
# (notesbench, python, C; then python, C, notesbench; …), so that none always
# runs first or right after another. Each round's ratios compare runs made
# seconds apart, and the result is the median of the per-round ratios (with
# their range), not a ratio of medians taken at different times. Every round
# is printed; WARMUP_ROUNDS rounds run first, are printed marked as warm-up and
# are the only ones left out of the medians. A failed run stops the script.
#
# Usage: scripts/bench-peers.sh   (or: make bench-peers)
# Environment: ROUNDS (default 9), WARMUP_ROUNDS (default 1), GUARD (default
# note), SYNC (synchronous: normal or full, default normal), WRITES (2000),
# WARMUP (200), TEXT (200), GO (go), PYTHON (python3), CC (cc).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
PYTHON=${PYTHON:-python3}
CC=${CC:-cc}
ROUNDS=${ROUNDS:-9}
WARMUP_ROUNDS=${WARMUP_ROUNDS:-1}
GUARD=${GUARD:-note}
SYNC=${SYNC:-normal}
WRITES=${WRITES:-2000}
WARMUP=${WARMUP:-200}
TEXT=${TEXT:-200}

for v in ROUNDS WARMUP_ROUNDS WRITES WARMUP TEXT; do
	if ! [[ ${!v} =~ ^[0-9]+$ ]]; then
		echo "bench-peers: $v: ${!v} is not a whole number" >&2
		exit 2
	fi
done
if [ "$ROUNDS" -lt 1 ] || [ "$WRITES" -lt 1 ]; then
	echo "bench-peers: ROUNDS and WRITES must be at least 1" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/notesbench-peers-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building notesbench"
"$GO" build -o "$work/notesbench" ./cmd/notesbench
"$GO" build -o "$work/engine" ./scripts/peers/engine

impls=(notesbench python)
if echo '#include <sqlite3.h>' | "$CC" -E -x c - >/dev/null 2>&1 &&
	"$CC" -O2 -o "$work/peer" scripts/peers/peer.c -lsqlite3 2>"$work/cc.log"; then
	impls+=(C)
else
	echo "C peer skipped: no libsqlite3 headers or no C compiler (apt-get install libsqlite3-dev)"
fi

# run_impl runs one implementation once and prints its output: lines
# "median_us X" and "sqlite_version V".
run_impl() {
	local args=(--guard "$GUARD" --synchronous "$SYNC" --writes "$WRITES" --warmup "$WARMUP" --text-size "$TEXT" --db "$work/db")
	case $1 in
	notesbench)
		"$work/notesbench" bench --guards "$GUARD" --synchronous "$SYNC" --writes "$WRITES" --warmup "$WARMUP" \
			--text-size "$TEXT" --reps 1 --writers 1 --db "$work/db" --format json |
			"$PYTHON" -c 'import json, sys; print("median_us", json.load(sys.stdin)["rows"][0]["median_us"])'
		"$work/engine"
		;;
	python) "$PYTHON" scripts/peers/peer.py "${args[@]}" ;;
	C) "$work/peer" "${args[@]}" ;;
	esac
}

field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }'; }

echo "settings: guard $GUARD, synchronous $SYNC, file database (WAL), $WRITES writes after $WARMUP warm-up writes," \
	"$TEXT-character text; $ROUNDS rounds after $WARMUP_ROUNDS warm-up round(s), the order rotating each round"
header=$(printf '%-8s %-26s' round order)
for impl in "${impls[@]}"; do header+=$(printf ' %14s' "$impl µs"); done
for impl in "${impls[@]:1}"; do header+=$(printf ' %14s' "nb/$impl"); done
echo "$header"

# results holds one line per counted round: the median of each implementation.
results="$work/results"
: >"$results"
declare -A version
n=${#impls[@]}
total=$((WARMUP_ROUNDS + ROUNDS))
for ((r = 0; r < total; r++)); do
	declare -A med=()
	order=()
	for ((k = 0; k < n; k++)); do
		impl=${impls[$(((r + k) % n))]}
		order+=("$impl")
		if ! out=$(run_impl "$impl"); then
			echo "bench-peers: $impl failed in round $((r + 1)); stopping" >&2
			exit 1
		fi
		med[$impl]=$(field median_us <<<"$out")
		version[$impl]=$(field sqlite_version <<<"$out")
		[ "$impl" = notesbench ] && driver=$(field driver <<<"$out")
	done
	label=$((r + 1 - WARMUP_ROUNDS))
	[ "$r" -lt "$WARMUP_ROUNDS" ] && label="warm-up"
	line=$(printf '%-8s %-26s' "$label" "$(IFS=,; echo "${order[*]}")")
	row=""
	for impl in "${impls[@]}"; do
		line+=$(printf ' %14.1f' "${med[$impl]}")
		row+="${med[$impl]} "
	done
	for impl in "${impls[@]:1}"; do
		line+=$(printf ' %14s' "$("$PYTHON" -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.3f}")' "${med[notesbench]}" "${med[$impl]}")")
	done
	echo "$line"
	[ "$r" -ge "$WARMUP_ROUNDS" ] && echo "$row" >>"$results"
done

"$PYTHON" - "$results" "${impls[@]}" <<'EOF'
import statistics, sys
path, impls = sys.argv[1], sys.argv[2:]
rounds = [[float(x) for x in line.split()] for line in open(path) if line.strip()]
print(f"over {len(rounds)} rounds (warm-up left out):")
for i, impl in enumerate(impls):
    meds = [r[i] for r in rounds]
    print(f"  {impl}: median per write {statistics.median(meds):.1f} µs (rounds {min(meds):.1f}–{max(meds):.1f})")
for i, impl in enumerate(impls[1:], 1):
    ratios = [r[0] / r[i] for r in rounds]
    print(f"  notesbench/{impl}: median of per-round ratios {statistics.median(ratios):.3f} "
          f"(rounds {min(ratios):.3f}–{max(ratios):.3f})")
EOF

echo "SQLite: notesbench ${version[notesbench]} ($driver)"
echo "SQLite: python ${version[python]} ($("$PYTHON" -c 'import sys; print("Python %d.%d.%d" % sys.version_info[:3])')'s sqlite3 module)"
if [ -n "${version[C]:-}" ]; then echo "SQLite: C ${version[C]} (the system's libsqlite3)"; fi
distro="the system's"
if [ -r /etc/debian_version ]; then distro="Debian's"; fi
for impl in "${impls[@]:1}"; do
	v=${version[$impl]} nb=${version[notesbench]}
	if [ "$v" != "$nb" ]; then
		older="a newer"
		if [ "$(printf '%s\n%s\n' "$v" "$nb" | sort -V | head -1)" = "$v" ]; then older="an older"; fi
		echo "note: the $impl peer runs SQLite $v ($distro libsqlite3), $older release than the SQLite $nb that" \
			"modernc.org/sqlite compiles into notesbench: the engines differ as well as the languages"
	fi
done
