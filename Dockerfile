# The rightsize image the Kubernetes Job runs (rightsize k8s job --image ...):
# one static binary (no cgo: the SQLite store is pure Go) from scratch, run
# as the non-root user 65532. scripts/image.sh (make image) writes the same
# layout as an OCI tarball without Docker or a registry.
#   docker build --build-arg VERSION=$(git describe --tags --always) -t ghcr.io/rightsize/rightsize:TAG .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
    -o /out/usr/local/bin/rightsize ./cmd/rightsize && \
    mkdir -p /out/etc/ssl/certs /out/tmp && chmod 1777 /out/tmp && \
    cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ && \
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >/out/etc/passwd && \
    printf 'root:x:0:\nnonroot:x:65532:\n' >/out/etc/group

FROM scratch
COPY --from=build /out/ /
USER 65532:65532
EXPOSE 9464
ENTRYPOINT ["/usr/local/bin/rightsize"]
