# One image for the API, the worker and the one-shot setup (migrate + seed).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The SDK is an npm workspace (sdk/): npm ci needs its package.json.
COPY sdk/package.json ./sdk/
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
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "api/server.ts"]
