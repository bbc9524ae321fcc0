# LoreKeeper for homelabs: the compiled linux-x64 binary on a minimal glibc base, serving MCP over
# Streamable HTTP with a bearer token, the store on a volume, as a non-root user. See docs/install.md.
#
#   bun run build -- --no-mcpb                 # → dist/lorekeeper-linux-x64
#   docker build -t lorekeeper .
#   docker run -d -p 8000:8000 -e LOREKEEPER_HTTP_TOKEN=$(openssl rand -hex 24) -v lorekeeper-data:/data lorekeeper
#
# onnxruntime ships glibc builds only, hence distroless/cc (glibc, libstdc++) and not Alpine.
#
# Where those images cannot be pulled (an air-gapped build host), build on a base made from Debian
# packages (see docs/install.md, `bun scripts/container-base.ts`):
#   podman build --build-arg BASE=localhost/lorekeeper-base:bookworm \
#                --build-arg TOOLS=localhost/lorekeeper-base:bookworm -t lorekeeper .

# The runtime base (glibc + libstdc++) and an image with a shell for the build steps.
ARG BASE=gcr.io/distroless/cc-debian12:nonroot
ARG TOOLS=busybox:1.37.0

# An empty /data owned by the runtime user, so a fresh named volume is writable (the runtime image
# has no shell to create it).
FROM ${TOOLS} AS data
RUN mkdir -p /data && chown 65532:65532 /data

FROM ${BASE}
ARG BINARY=dist/lorekeeper-linux-x64
LABEL org.opencontainers.image.title="LoreKeeper" \
      org.opencontainers.image.description="MCP server: fast, citable search over D&D 5e content" \
      org.opencontainers.image.licenses="MIT" \
      io.modelcontextprotocol.server.name="io.github.lorekeeper-mcp/lorekeeper"
COPY --from=data --chown=65532:65532 /data /data
COPY --chmod=0555 ${BINARY} /usr/local/bin/lorekeeper
# The store goes to /data/lorekeeper.db; native libraries and the model unpack to the user's cache.
ENV LOREKEEPER_DATA_DIR=/data \
    XDG_CACHE_HOME=/home/nonroot/.cache \
    LOREKEEPER_LOG_LEVEL=info
VOLUME ["/data"]
USER 65532:65532
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/lorekeeper", "health", "--url", "http://127.0.0.1:8000/health"]
ENTRYPOINT ["/usr/local/bin/lorekeeper"]
# Binding 0.0.0.0 requires a token: set LOREKEEPER_HTTP_TOKEN, or the server refuses to start.
CMD ["serve", "--http", "--host", "0.0.0.0", "--port", "8000"]
