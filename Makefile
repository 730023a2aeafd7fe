GO ?= go

.PHONY: build test lint bench fuzz

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

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzCall -fuzztime 60s ./store/
