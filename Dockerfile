# One image for every part; TARGET chooses the modules a container runs (all, gateway, user, catalog, ...).
FROM node:20-bookworm-slim
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
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
EXPOSE 8080
USER node
CMD ["node", "--import", "tsx", "gateway/src/main.ts"]
