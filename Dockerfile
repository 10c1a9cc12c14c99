# One image for every part; TARGET chooses the modules a container runs (all, gateway, user, catalog, ...).
# gateway/test/deploy-manifests.test.ts checks that every workspace's package.json is copied before
# each `npm ci`, that tsx comes along, and that the image runs as a user other than root;
# gateway/image/image.test.ts builds it and plays an episode through it on a read-only root.

# The base: Node 24 (an LTS line) on Debian bookworm, pinned by digest so a rebuild gets the same
# bytes. Where no registry can be reached, scripts/docker-base.sh makes a stand-in from this machine's
# Node (docs/development.md, "The container image"): --build-arg NODE_IMAGE=cliffhanger-base:local.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d
# package.json's allowScripts (which dependencies may run install scripts) is npm 11's: an older npm
# in the base would run every script. --strict-allow-scripts fails the install on a script nobody reviewed.
ARG NPM_VERSION=11.19.1

# Build: every dependency (devDependencies too) and the storefront built into storefront/dist.
FROM ${NODE_IMAGE} AS build
ARG NPM_VERSION
RUN [ "$(npm --version)" = "$NPM_VERSION" ] || npm install --global --no-audit --no-fund "npm@$NPM_VERSION"
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
RUN npm ci --strict-allow-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies only (tsx among them, which runs the TypeScript sources with
# `node --import tsx`, and loads them in the platform's worker threads) and Debian's security-maintained ffmpeg.
FROM ${NODE_IMAGE} AS runtime
ARG NPM_VERSION
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN [ "$(npm --version)" = "$NPM_VERSION" ] || npm install --global --no-audit --no-fund "npm@$NPM_VERSION"
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
RUN npm ci --omit=dev --strict-allow-scripts --no-audit --no-fund \
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
# The root filesystem may be read-only (k8s/, the image test): /data and /tmp are then volumes or
# tmpfs of their own, and nothing else is written (npm's cache and logs are not used at run time).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
EXPOSE 8080
USER node
CMD ["node", "--import", "tsx", "gateway/src/main.ts"]
