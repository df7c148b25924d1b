# The two commands of the README: `make quickstart` and `make test`.
GO ?= go
# the commit and version recorded with every run (environment capture)
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.commit=$(COMMIT) -X main.version=$(VERSION)

.PHONY: quickstart test build bench vet image test-k8s

quickstart:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rightsize quickstart

# go test in two phases (scripts/test.sh): every package, with
# cmd/rightsize's measuring tests skipped, beside the cgroup v2 guest
# (test/v2guest, minutes of TCG, which takes the CPU those tests leave idle);
# then the measuring tests alone, since beside them the guest takes the CPU
# the capacity model reads as the server's (TestSweepPredictsCPUs erred by half)
test:
	./scripts/install-test-deps.sh
	$(GO) vet ./...
	GO=$(GO) ./scripts/test.sh

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
