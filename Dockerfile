# syntax=docker/dockerfile:1
# One image, both services: `node dist/apps/<service>/apps/<service>/src/main.js`. The `gateway`
# target is docker-compose's nginx with the web console built in (dist/console).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install rather than npm ci: see .ci/run (the lock lists no other platforms' optional packages)
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
# the console's build makes its API types from the services' code (tools/console, swc register)
COPY tools ./tools
COPY test/support/swc-register.js ./test/support/swc-register.js
RUN npm run build && npm prune --omit=dev

# The API gateway with the web console: the routing table, the docs and dist/console under nginx's prefix.
FROM nginx:1.27.5-alpine AS gateway
COPY deploy/gateway/nginx.conf /etc/nginx/conf.d/default.conf
COPY deploy/gateway /etc/nginx/deploy/gateway
COPY docs /etc/nginx/docs
COPY --from=build /app/dist/console /etc/nginx/dist/console

# The services (the default target: last in this file).
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
# A container listens on every interface (outside one, the services bind 127.0.0.1 unless HOST says otherwise).
ENV HOST=0.0.0.0
# Streaming work needs little heap; a bound makes V8 collect rather than grow (see README, benchmarks).
ENV NODE_OPTIONS=--max-old-space-size=256
WORKDIR /app
RUN groupadd --system corelite && useradd --system --gid corelite corelite
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER corelite
ARG SERVICE=authz
ENV SERVICE=${SERVICE}
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD node -e "fetch('http://127.0.0.1:'+(process.env.AUTHZ_PORT||process.env.COSTASSET_PORT)+'/health/live').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["sh", "-c", "exec node dist/apps/${SERVICE}/apps/${SERVICE}/src/main.js"]
