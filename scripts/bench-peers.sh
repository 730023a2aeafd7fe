#!/usr/bin/env bash
# bench-peers.sh times the same edit_note_tab write in notesbench (Go, through
# the store's normal write path), in a Python stdlib sqlite3 peer and, when the
# libsqlite3 headers are installed, in a C peer: guard note, synchronous normal,
# a file database in WAL mode, 2000 writes of a 200-character text after 200
# warm-up writes. It runs them alternately for ROUNDS rounds (default 3) and
# prints each median per write and the ratios notesbench/python and
# notesbench/C, per round and over the rounds (the median of the rounds).
#
# Usage: scripts/bench-peers.sh   (or: make bench-peers)
# Environment: GO (default go), PYTHON (default python3), CC (default cc),
# ROUNDS (default 3).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
PYTHON=${PYTHON:-python3}
CC=${CC:-cc}
ROUNDS=${ROUNDS:-3}
WRITES=2000 WARMUP=200 TEXT=200 GUARD=note SYNC=normal

work=$(mktemp -d "${TMPDIR:-/tmp}/notesbench-peers-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building notesbench"
"$GO" build -o "$work/notesbench" ./cmd/notesbench

cpeer=""
if echo '#include <sqlite3.h>' | "$CC" -E -x c - >/dev/null 2>&1 &&
	"$CC" -O2 -o "$work/peer" scripts/peers/peer.c -lsqlite3 2>"$work/cc.log"; then
	cpeer="$work/peer"
else
	echo "C peer skipped: no libsqlite3 headers or no C compiler (apt-get install libsqlite3-dev)"
fi

# median_of prints the "median_us X" value of a peer's output.
median_of() { awk '$1 == "median_us" { print $2 }'; }

# ours prints notesbench's pooled median per write from its JSON report.
ours() {
	"$work/notesbench" bench --guards "$GUARD" --synchronous "$SYNC" --writes "$WRITES" --warmup "$WARMUP" \
		--text-size "$TEXT" --reps 1 --writers 1 --db "$work/db" --format json |
		"$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["rows"][0]["median_us"])'
}

ratio() { "$PYTHON" -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}')" "$1" "$2"; }
med3() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "settings: guard $GUARD, synchronous $SYNC, file database (WAL), $WRITES writes after $WARMUP warm-up, $TEXT-character text"
printf '%-6s %14s %14s %14s %16s %12s\n' round "notesbench µs" "python µs" "C µs" "notesbench/py" "notesbench/C"
go_all=() py_all=() c_all=()
for round in $(seq 1 "$ROUNDS"); do
	g=$(ours)
	p=$("$PYTHON" scripts/peers/peer.py --guard "$GUARD" --synchronous "$SYNC" --writes "$WRITES" --warmup "$WARMUP" \
		--text-size "$TEXT" --db "$work/db" | median_of)
	c="—" rc="—"
	if [ -n "$cpeer" ]; then
		c=$("$cpeer" --guard "$GUARD" --synchronous "$SYNC" --writes "$WRITES" --warmup "$WARMUP" \
			--text-size "$TEXT" --db "$work/db" | median_of)
		rc=$(ratio "$g" "$c")
		c_all+=("$c")
		c=$(printf '%.1f' "$c")
	fi
	go_all+=("$g") py_all+=("$p")
	printf "%-6s %14.1f %14.1f %14s %16s %12s\n" "$round" "$g" "$p" "$c" "$(ratio "$g" "$p")" "$rc"
done
g=$(med3 "${go_all[@]}") p=$(med3 "${py_all[@]}")
c="—" rc="—"
if [ -n "$cpeer" ]; then
	c=$(med3 "${c_all[@]}") rc=$(ratio "$g" "$c")
	c=$(printf '%.1f' "$c")
fi
printf '%-6s %14.1f %14.1f %14s %16s %12s\n' median "$g" "$p" "$c" "$(ratio "$g" "$p")" "$rc"
