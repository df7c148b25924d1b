# The two commands of the README: `make quickstart` and `make test`.
GO ?= go
# the commit and version recorded with every run (environment capture)
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.commit=$(COMMIT) -X main.version=$(VERSION)

.PHONY: quickstart test build bench vet image test-k8s

quickstart:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rightsize quickstart

# the cgroup v2 guest (test/v2guest) boots a VM under TCG for minutes: it
# runs on its own after the rest, so neither slows the other (at nice 19
# beside cmd/rightsize, make test took 990 s instead of about 1,330, but the
# guest took the CPU the measuring tests leave idle, which the capacity model
# reads as the server's: TestSweepPredictsCPUs erred by half and skipped)
test:
	./scripts/install-test-deps.sh
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 45m $$($(GO) list ./... | grep -v /test/v2guest)
	$(GO) test -count=1 -timeout 45m ./test/v2guest

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/rightsize ./cmd/rightsize

bench:
	./bench/driver.sh

# rightsize's image without Docker or a registry: an OCI tarball of the
# static binary from scratch (bin/rightsize-image.tar), tagged as
# `rightsize k8s job` names it by default (see scripts/image.sh)
image:
	./scripts/image.sh

# the Indexed Job of `rightsize k8s job` applied to a live single-node
# Kubernetes (test/k8s, as root): scripts/k8s-up.sh builds Kubernetes from
# the Go module proxy once into /var/cache/rightsize/k8s, then starts it
test-k8s:
	./scripts/install-test-deps.sh
	RIGHTSIZE_TEST_K8S=1 $(GO) test -count=1 -timeout 60m -v ./test/k8s
