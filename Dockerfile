# syntax=docker/dockerfile:1
# One image, both services: `node dist/apps/<service>/apps/<service>/src/main.js`. The `gateway`
# target is docker-compose's nginx with the web console built in (dist/console); `slapd` is its demo
# directory. Every base image is pinned to a tag its maintainers publish (tools/deploy/images.ts
# lists them with where that is known from, and what each ships).
FROM node:22.23.2-bookworm-slim AS build
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
FROM nginx:1.30.4-alpine AS gateway
COPY deploy/gateway/nginx.conf /etc/nginx/conf.d/default.conf
COPY deploy/gateway /etc/nginx/deploy/gateway
COPY docs /etc/nginx/docs
COPY --from=build /app/dist/console /etc/nginx/dist/console
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD wget -q -O /dev/null http://127.0.0.1:8080/health || exit 1

# docker-compose's demo directory: Debian's slapd, as the local stack runs it (deploy/slapd/start-slapd.sh).
FROM debian:bookworm-20260803-slim AS slapd
RUN echo 'slapd slapd/no_configuration boolean true' | debconf-set-selections \
  && apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slapd ldap-utils \
  && rm -rf /var/lib/apt/lists/*
COPY deploy/slapd/start-slapd.sh /usr/local/bin/start-slapd
COPY tools/stack/seed-directory.ldif /etc/ldap/seed-directory.ldif
VOLUME /var/lib/ldap/corelite
EXPOSE 389
HEALTHCHECK --interval=5s --timeout=3s --retries=20 CMD ldapsearch -x -H ldap://127.0.0.1:389/ -b dc=corelite,dc=local -s base -LLL dn >/dev/null || exit 1
CMD ["start-slapd"]

# The services (the default target: last in this file).
FROM node:22.23.2-bookworm-slim AS runtime
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
