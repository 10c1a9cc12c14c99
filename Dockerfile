# One image for every part; TARGET chooses the modules a container runs (all, gateway, user, catalog, ...).
# gateway/test/deploy-manifests.test.ts checks that every workspace's package.json is copied before
# each `npm ci`, that tsx comes along, and that the image runs as a user other than root.

# Build: every dependency (devDependencies too) and the storefront built into storefront/dist.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY services/platform/package.json services/platform/
COPY services/user/package.json services/user/
COPY services/analytics/package.json services/analytics/
COPY services/catalog/package.json services/catalog/
COPY services/transcoder/package.json services/transcoder/
COPY services/demo/package.json services/demo/
COPY services/unlock/package.json services/unlock/
COPY services/payment/package.json services/payment/
COPY gateway/package.json gateway/
COPY storefront/package.json storefront/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies only (tsx among them, which runs the TypeScript sources with
# `node --import tsx`, and loads them in the platform's worker threads) and Debian's security-maintained ffmpeg.
FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY services/platform/package.json services/platform/
COPY services/user/package.json services/user/
COPY services/analytics/package.json services/analytics/
COPY services/catalog/package.json services/catalog/
COPY services/transcoder/package.json services/transcoder/
COPY services/demo/package.json services/demo/
COPY services/unlock/package.json services/unlock/
COPY services/payment/package.json services/payment/
COPY gateway/package.json gateway/
COPY storefront/package.json storefront/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force
COPY tsconfig.json tsconfig.base.json ./
COPY proto proto
COPY services services
COPY gateway gateway
COPY scripts scripts
COPY --from=build /app/storefront/dist storefront/dist
COPY --from=build /app/storefront/dist-ssr storefront/dist-ssr
# What the gateway and the server renderer agree on (@cliffhanger/storefront/ssr): the one source file of the storefront it imports.
COPY storefront/src/ssr storefront/src/ssr
# DATA_DIR: scratch (uploads on their way in, transcodes in progress) and, without DATABASE_URL, PGlite.
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
EXPOSE 8080
USER node
CMD ["node", "--import", "tsx", "gateway/src/main.ts"]
