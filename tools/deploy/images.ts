/**
 * Every image docker-compose.yml and the Dockerfile use, pinned, with where its tag is known to
 * exist and what it ships. No image can be pulled on the machines this project is built on, so
 * both come from the images' published build files, read at the commit named in `source`:
 * - official images: docker-library/official-images `library/<name>` (commit 37079fb3, 2026-08-21)
 *   lists the tags each image is published under, and names the Dockerfile each is built from;
 * - the others: the project's release tag and the workflow that pushes one image per release tag.
 * `ships`: the programs a healthcheck, entrypoint or command may call.
 */
export interface PinnedImage {
  source: string;
  ships: string[];
}

export const PINNED_IMAGES: Record<string, PinnedImage> = {
  'mongo:7.0.40': {
    source:
      'official-images library/mongo: "Tags: 7.0.40-jammy … SharedTags: 7.0.40, 7.0, 7"; ' +
      'docker-library/mongo 7.0/Dockerfile: FROM ubuntu:jammy, installs mongodb-org-server and mongodb-org-shell (mongosh)',
    ships: ['sh', 'bash', 'mongod', 'mongosh'],
  },
  'nats:2.14.5-alpine': {
    source:
      'official-images library/nats: "Tags: 2.14.5-alpine3.22, …, 2.14.5-alpine"; ' +
      'nats-io/nats-docker 2.14.x/alpine3.22/Dockerfile: FROM alpine:3.22 (busybox: sh, wget) ' +
      '+ /usr/local/bin/nats-server. The default tag (2.14.5) is `scratch`: nats-server alone, no wget',
    ships: ['sh', 'wget', 'nats-server'],
  },
  'chrislusf/seaweedfs:4.43': {
    source:
      'seaweedfs/seaweedfs git tag 4.43 (2026-08-21); .github/workflows/container_release_unified.yml ' +
      'pushes ghcr.io/chrislusf/seaweedfs:<tag> and chrislusf/seaweedfs:<tag> for every release tag; ' +
      'docker/Dockerfile.go_build: FROM alpine (busybox: sh, wget), apk add curl, /usr/bin/weed, /entrypoint.sh',
    ships: ['sh', 'wget', 'curl', 'weed', '/entrypoint.sh'],
  },
  'prom/prometheus:v2.55.1': {
    source: 'prometheus/prometheus release v2.55.1, pushed as prom/prometheus:v2.55.1 by its release pipeline (busybox base: sh, wget)',
    ships: ['sh', 'wget', 'prometheus', 'promtool'],
  },
  'grafana/grafana:11.3.0': {
    source: 'grafana/grafana release v11.3.0, pushed as grafana/grafana:11.3.0 (alpine base: sh, wget)',
    ships: ['sh', 'wget', 'grafana'],
  },
  'nginx:1.30.4-alpine': {
    source:
      'official-images library/nginx: "Tags: 1.30.4-alpine, stable-alpine, …"; ' +
      'nginx/docker-nginx stable/alpine-slim/Dockerfile: FROM alpine (busybox: sh, ' +
      'wget), nginx, envsubst and the entrypoint that renders /etc/nginx/templates',
    ships: ['sh', 'wget', 'nginx', 'envsubst'],
  },
  // Tracing. No healthcheck, entrypoint or command of ours runs a program in them (the collector
  // takes only its own flags), so nothing is listed as shipped.
  'otel/opentelemetry-collector:0.165.0': {
    source:
      'open-telemetry/opentelemetry-collector-releases tag v0.165.0 (the collector modules v0.165.0 / v1.71.0); its release ' +
      'workflow pushes the core distribution as otel/opentelemetry-collector:<version>, FROM scratch with /otelcol alone',
    ships: [],
  },
  'jaegertracing/jaeger:2.21.0': {
    source:
      'jaegertracing/jaeger release v2.21.0 (September 2026), ' +
      'pushed as jaegertracing/jaeger:<version> by its release workflow (the v2 all-in-one image)',
    ships: [],
  },
  'node:22.23.2-bookworm-slim': {
    source:
      'official-images library/node: "Tags: 22-bookworm-slim, …, 22.23.2-bookworm-slim"; ' +
      'nodejs/docker-node 22/bookworm-slim: FROM debian:bookworm-slim (sh) + node, npm',
    ships: ['sh', 'node', 'npm'],
  },
  'debian:bookworm-20260803-slim': {
    source: 'official-images library/debian: "Tags: bookworm-slim, bookworm-20260803-slim, 12.15-slim, 12-slim"',
    ships: ['sh', 'apt-get', 'debconf-set-selections'],
  },
};

/** What a stage of our own Dockerfile adds to its base image (its RUN and COPY lines, checked by the tests). */
export const DOCKERFILE_STAGES: Record<string, { packages?: string[]; ships: string[] }> = {
  runtime: { ships: [] },
  gateway: { ships: [] },
  // Debian bookworm's slapd ships slapd, slapadd and slappasswd; ldap-utils ldapsearch and ldapadd
  slapd: { packages: ['slapd', 'ldap-utils'], ships: ['slapd', 'slappasswd', 'ldapsearch', 'ldapadd', 'start-slapd'] },
};

/** A tag that names one release: a version (`7.0.40`, `v2.55.1`, `4.43`) or a dated build, never `latest` or a bare major. */
export const PINNED_TAG = /^v?\d+\.\d+(\.\d+)?(-[a-z0-9.-]+)?$|^[a-z]+-\d{8}(-[a-z]+)?$/;
