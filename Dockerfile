# One image for the API, the worker and the one-shot setup (migrate + seed).
# Node 24 LTS (NODE_IMAGE of versions.env; test/ops/compose.test.ts checks both stages use it). The
# project itself supports Node >= 20.19; no dependency builds native code at install (prebuilt
# binaries: Temporal's core bridge, esbuild, swc), so the major changes nothing in `npm ci`.

# The operator console (console/): built once, only its dist/ goes into the image.
FROM node:24-bookworm-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/
COPY console/package.json ./console/
RUN npm ci --no-audit --no-fund
COPY sdk/src/generated ./sdk/src/generated
COPY console ./console
RUN npm run build -w @merchant-gateway/console

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The SDK and the console are npm workspaces (sdk/, console/): npm ci needs their package.json.
COPY sdk/package.json ./sdk/
COPY console/package.json ./console/
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY api ./api
COPY activities ./activities
COPY config ./config
COPY db ./db
COPY domain ./domain
COPY scripts ./scripts
COPY temporal ./temporal
COPY workers ./workers
COPY workflows ./workflows
# The signing guide the API serves at /docs/signing.md (linked from its OpenAPI documents).
COPY docs/signing.md ./docs/signing.md
COPY --from=console /app/console/dist ./console/dist
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "api/server.ts"]
