# The two commands of the README: `make quickstart` and `make test`.
GO ?= go
# the commit and version recorded with every run (environment capture)
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.commit=$(COMMIT) -X main.version=$(VERSION)

.PHONY: quickstart test build bench vet

quickstart:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rightsize quickstart

# the cgroup v2 guest (test/v2guest) boots a VM under TCG for minutes: it
# runs on its own after the rest, so neither slows the other
test:
	./scripts/install-test-deps.sh
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v /test/v2guest)
	$(GO) test -count=1 -timeout 45m ./test/v2guest

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/rightsize ./cmd/rightsize

bench:
	./bench/driver.sh
