# The two commands of the README: `make quickstart` and `make test`.
GO ?= go
# the commit and version recorded with every run (environment capture)
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.commit=$(COMMIT) -X main.version=$(VERSION)

.PHONY: quickstart test build bench vet

quickstart:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rightsize quickstart

test:
	./scripts/install-test-deps.sh
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/rightsize ./cmd/rightsize

bench:
	./bench/driver.sh
