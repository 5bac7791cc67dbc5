# The ledger binary on a distroless base. docker-compose.yml builds it for the
# cluster deployment (deploy/README.md); on its own it runs a single-node ledger
# with the embedded NATS server:
#
#   docker build -t ledger .
#   docker run -d -v ledger-data:/data -p 4222:4222 ledger

FROM golang:1.26 AS build
WORKDIR /src
ENV CGO_ENABLED=0
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -o /out/ledger ./cmd/ledger && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ledger /ledger
# Owned by the image's nonroot user (65532), so a fresh named volume mounted on
# /data is writable.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# The projection (projection.db) and, with the embedded server, its JetStream store.
VOLUME /data
# 4222: NATS clients of the embedded server (default command); 9090: --metrics.
EXPOSE 4222 9090
ENTRYPOINT ["/ledger"]
# Unauthenticated, as a quick start: anyone who reaches 4222 may append and
# write the stream. For anything shared, mount the roles 'ledger serve
# --gen-auth' writes and run: serve --data /data --listen 0.0.0.0:4222
# --nats-config /etc/ledger/auth.conf --user ledger --password ...
CMD ["serve", "--data", "/data", "--listen", "0.0.0.0:4222", "--insecure"]
