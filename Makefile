# The two commands of the README: `make quickstart` and `make test`.
GO ?= go

.PHONY: quickstart test build bench vet

quickstart:
	$(GO) run ./cmd/rightsize quickstart

test:
	./scripts/install-test-deps.sh
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

build:
	$(GO) build -o bin/rightsize ./cmd/rightsize

bench:
	./bench/driver.sh
