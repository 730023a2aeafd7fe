GO ?= go
NOTESBENCH = $(GO) run ./cmd/notesbench

.PHONY: build test lint bench bench-peers fuzz regress update-baselines

build:
	$(GO) build -o bin/notesbench ./cmd/notesbench

# test is the README's test command: vet, then every test under the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./store/

# bench-peers times the same write in notesbench, a Python sqlite3 peer and (when
# the libsqlite3 headers exist) a C peer, alternately, and prints the ratios.
bench-peers:
	GO=$(GO) scripts/bench-peers.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzCall -fuzztime 60s ./store/

# regress compares deterministic virtual-clock runs with the baselines in
# results/baselines and fails on any changed count.
REGRESS_RACE = race --clock virtual --replications 0
REGRESS_TABS = tabs --clock virtual --replications 0
REGRESS_FAST = fast --clock virtual --replications 0 --edits 500

regress:
	$(NOTESBENCH) $(REGRESS_RACE) --baseline results/baselines/race.json > /dev/null
	$(NOTESBENCH) $(REGRESS_TABS) --baseline results/baselines/tabs.json > /dev/null
	$(NOTESBENCH) $(REGRESS_FAST) --baseline results/baselines/fast.json > /dev/null
	@echo "regress: every baseline matches"

update-baselines:
	$(NOTESBENCH) $(REGRESS_RACE) --update-baseline results/baselines/race.json > /dev/null
	$(NOTESBENCH) $(REGRESS_TABS) --update-baseline results/baselines/tabs.json > /dev/null
	$(NOTESBENCH) $(REGRESS_FAST) --update-baseline results/baselines/fast.json > /dev/null
