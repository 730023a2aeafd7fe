GO ?= go
# -trimpath leaves the checkout's folder out of what is built: a build is the
# same in any clone, and a fresh clone (CI's) finds in the build cache what
# another clone of the same source built, instead of compiling every package
# of the project again (go test -run none ./... in a fresh clone, warm
# cache: 51 s without it, 15 s with it).
export GOFLAGS += -trimpath
NOTESBENCH = $(GO) run ./cmd/notesbench

.PHONY: build test test-large test-full stress mutants lint bench bench-peers fuzz conformance regress update-baselines reproduce reproduce-check audit clients

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/notesbench ./cmd/notesbench

# test is the README's test command: vet, then every test under the race
# detector, some smaller than the docs cite and the large ones left out
# (internal/testpass says which).
# The race detector is off in the SQLite engine alone (modernc.org/sqlite/lib,
# C transpiled to Go, which it slowed tenfold): every goroutine of ours is
# watched, and the engine's locks are modernc.org/libc's, which is.
# A race-built program sleeps a second as it exits (GORACE's atexit_sleep_ms),
# so that goroutines still running after main may yet report a race: 40 test
# binaries and every child a test starts would sleep, 30 s of the pass. A
# race is reported when it happens, during the tests, and the packages whose
# code starts goroutines check with goleak that none outlives them: they
# exit at once.
RACE = -race -gcflags=modernc.org/sqlite/lib=-race=false
RACEENV = GORACE=atexit_sleep_ms=0
# go test starts packages in the order it is given them, then by import
# path: the longest start first (LONGEST), and the many short ones fill the
# two cores after them, instead of the longest running alone at the end.
LONGEST = ./mcpclient ./cmd/notesbench ./internal/crash ./pgstore ./backend ./experiments/race
test:
	$(GO) vet ./...
	$(RACEENV) $(GO) test $(RACE) -count=1 $(LONGEST) ./...

# test-large is the second pass: without the race detector, only the tests
# make test left out or ran smaller (the end-to-end tests against child
# processes, the real npm servers, the committed reproduction, the
# full-size counts), and no other (scripts/largetests finds them:
# go run ./scripts/largetests -list). cmd/notesbench reruns the whole
# reproduction, hence a timeout above go test's 10 minutes.
# Its tests mostly wait on child processes and real clocks: -parallel 4 lets
# those that say so (t.Parallel) overlap, on two cores, and -p 4 runs four
# packages at once, so that go test's order (by import path) does not leave
# the longest package to start last.
# LARGEST are its longest packages, longest first (docs/development.md has
# their times), started first for the reason LONGEST is.
LARGE = -count=1 -p 4 -parallel 4 -timeout 30m
LARGEST = ./cmd/notesbench ./mcpclient ./audit/regenerate ./internal/crash ./clientaudit ./pgstore
test-large:
	$(GO) run ./scripts/largetests -first '$(LARGEST)' $(LARGE)

# test-full is both passes: every test once, at the size it needs.
test-full: test test-large

# stress runs a pass of the tests ROUNDS times beside HOG busy loops, and
# lists every failure with the artifacts its test kept (scripts/stress):
# make test's pass, or make test-large's with PASS=large.
ROUNDS ?= 10
HOG ?= 2
PASS ?= race
stress:
	$(GO) run ./scripts/stress -rounds $(ROUNDS) -hog $(HOG) -out stress-out -- \
		$(if $(filter large,$(PASS)),$(GO) run ./scripts/largetests -first '$(LARGEST)' $(LARGE),env $(RACEENV) $(GO) test $(RACE) -count=1 $(LONGEST) ./...)

# mutants plants bugs in a copy of the tree, one per clause of the contract
# and one per count of the checker, and fails unless the tests of the package
# that owns each one fail (scripts/mutants; -run picks mutants by name:
# make mutants MUTANTS=check).
MUTANTS ?= .
mutants:
	$(GO) run ./scripts/mutants -run '$(MUTANTS)'

# lint: gofmt, go vet, and no function that nothing calls, tests included
# (deadcode, pinned; it runs from the module proxy, not from go.mod).
DEADCODE ?= golang.org/x/tools/cmd/deadcode@v0.52.0
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@out=$$($(GO) run $(DEADCODE) -test ./...) || exit 1; if [ -n "$$out" ]; then echo "dead code (nothing calls it, tests included):"; echo "$$out"; exit 1; fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./store/

# bench-peers times the same write in notesbench, a Python sqlite3 peer and (when
# the libsqlite3 headers exist) a C peer, in rounds whose order rotates
# (ROUNDS=9 by default), and prints every round, the median of the per-round
# ratios and the SQLite version of each.
bench-peers:
	GO=$(GO) scripts/bench-peers.sh

# fuzz fuzzes the contract's JSON layer (FuzzCall) and serve's message
# handling over stdio, frames and tool arguments (FuzzStdio), FUZZTIME each.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzCall -fuzztime $(FUZZTIME) ./store/
	$(GO) test -run '^$$' -fuzz FuzzStdio -fuzztime $(FUZZTIME) ./serve/

# conformance runs the official MCP conformance suite (pinned, installed into
# a temporary folder) against notesbench serve --http with the suite's own
# requirement sets, for 2025-11-25 and 2026-07-28, and prints the result per
# revision, every failure classed in scripts/conformance/expected-failures.yml.
# It needs node; without it it skips, unless NOTESBENCH_REQUIRE_NODE=1.
conformance:
	GO=$(GO) scripts/conformance/run.sh

# regress compares deterministic runs with the baselines in results/baselines
# and fails on any changed count. Each line: experiment, then its arguments;
# the baseline is results/baselines/<experiment>.json, unless the line starts
# with "<name>:", which names it results/baselines/<name>.json instead.
# bench is left out: its figures are timings, which no baseline can pin.
REGRESS = \
	"race --clock virtual --replications 0" \
	"race-published-fit: race --clock virtual --replications 0 --timing published-fit" \
	"tabs --clock virtual --replications 0" \
	"tabs-published-fit: tabs --clock virtual --replications 0 --timing published-fit" \
	"fast --clock virtual --replications 0" \
	"create --replications 0" \
	"sources --replications 0" \
	"refs --trials 2000" \
	"outline --replications 0" \
	"validate"

# baseline-name splits one REGRESS line into name (the baseline's) and args.
baseline-name = name=$${args%% *}; case $$name in *:) args=$${args\#* }; name=$${name%:};; esac

regress: build
	@for args in $(REGRESS); do \
		$(baseline-name); \
		./bin/notesbench $$args --baseline results/baselines/$$name.json > /dev/null || exit 1; \
		echo "regress: $$name matches results/baselines/$$name.json"; \
	done

update-baselines: build
	@for args in $(REGRESS); do \
		$(baseline-name); \
		./bin/notesbench $$args --update-baseline results/baselines/$$name.json > /dev/null || exit 1; \
		echo "wrote results/baselines/$$name.json"; \
	done

# reproduce regenerates the committed reproduction: reproduction/REPRODUCED.md,
# reproduction/reproduced.json and reproduction/plots/, its verdicts set
# beside those of reproduce --quick (--against), which lists the figures the
# two judge apart.
reproduce:
	@quick=$$(mktemp) && trap 'rm -f "$$quick"' EXIT && \
	$(NOTESBENCH) reproduce --quick --format json > "$$quick" && \
	$(NOTESBENCH) reproduce --out reproduction --against "$$quick" > /dev/null

# reproduce-check reruns the whole committed reproduction, as two shards at
# once, and compares its REPRODUCED.md with reproduction/'s, timings aside
# (2 min 13 s here, 224 CPU-seconds). CI checks a tenth of its units instead
# (TestCommittedReproductionUnits): run this after a change to how the
# reproduction's tables are written.
reproduce-check:
	NOTESBENCH_REPRODUCTION=whole $(GO) test -count=1 -timeout 30m -run '^TestCommittedReproductionIsReproduced$$' ./cmd/notesbench

# audit regenerates the public audit, audit/: every server audit/servers.txt
# lists (one line each: adding a server is adding a line), installed from
# the npm registry at its pinned version into a temporary folder, judged by
# notesbench audit at budget quick (within 5 minutes a server here), its
# section written to audit/servers/NAME/ and the summary to audit/README.md.
# ONLY=NAME,... audits those servers alone; the others' sections stay.
ONLY ?=
audit: build
	$(GO) run ./audit/regenerate -notesbench bin/notesbench -list audit/servers.txt -out audit -only '$(ONLY)'

# clients runs the client audit (notesbench audit --client) on every driver of
# clients/drivers at its library's pinned version and writes clients/README.md
# (node, npm and the registry; about 15 minutes). ONLY=go-sdk,ts-sdk-1 runs
# some; the README is written from every result kept in clients/results.
clients:
	$(GO) run ./scripts/clients $(if $(ONLY),-only $(ONLY))
