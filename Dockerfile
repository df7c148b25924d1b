# The rightsize image the Kubernetes Job runs (rightsize k8s job --image ...):
# one static binary (no cgo: the SQLite store is pure Go) on distroless.
#   docker build --build-arg VERSION=$(git describe --tags --always) -t ghcr.io/rightsize/rightsize:TAG .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
    -o /out/rightsize ./cmd/rightsize

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/rightsize /usr/local/bin/rightsize
USER 65532:65532
EXPOSE 9464
ENTRYPOINT ["/usr/local/bin/rightsize"]
