import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { PINNED_TAG } from './images';
import { containersOf, kustomizationFiles, render, templateOf, type Container, type KubernetesObject } from './kustomize';
import { environmentProblems, requiredVariables, sampleSecret, type ServiceName } from './service-environment';

const root = resolve(__dirname, '..', '..');
const KUBERNETES = join(root, 'deploy', 'kubernetes');
const BASE = join(KUBERNETES, 'base');
const OVERLAY = join(KUBERNETES, 'overlays', 'example');
const SECRET = 'corelite-secrets';

/** The Kubernetes API's schemas (kubernetes-models, Kubernetes 1.27) for every kind the manifests hold. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);

const byKind = (objects: KubernetesObject[], kind: string) => objects.filter((object) => object.kind === kind);
const named = (objects: KubernetesObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name);

describe.each([
  ['base', BASE],
  ['overlays/example', OVERLAY],
])('deploy/kubernetes/%s', (_, dir) => {
  const objects = render(dir);

  it('renders, and every object validates against the Kubernetes schemas', () => {
    const problems = objects.flatMap((object) => {
      const Model = MODELS[`${object.apiVersion} ${object.kind}`];
      if (!Model) return [`${object.apiVersion} ${object.kind} ${object.metadata.name}: no schema in this test`];
      try {
        new Model(object as never).validate();
        return [];
      } catch (error) {
        return [`${object.kind} ${object.metadata.name}: ${(error as Error).message}`];
      }
    });
    expect(problems).toEqual([]);
    expect(
      byKind(objects, 'Deployment')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(['authz', 'costasset', 'gateway']);
    // and the schemas do refuse a wrong object
    expect(() => new Service({ metadata: { name: 'x' }, spec: { ports: [{ port: 'http' as never }] } }).validate()).toThrow();
  });

  it('has each Service and PodDisruptionBudget select a Deployment, on ports its containers declare', () => {
    const deployments = byKind(objects, 'Deployment');
    const problems = [...byKind(objects, 'Service'), ...byKind(objects, 'PodDisruptionBudget')].flatMap((object) => {
      const spec = object.spec as {
        selector: Record<string, string> | { matchLabels: Record<string, string> };
        ports?: { targetPort: string | number }[];
      };
      const selector = 'matchLabels' in spec.selector ? (spec.selector.matchLabels as Record<string, string>) : spec.selector;
      const target = deployments.find((deployment) => matches(selector, templateOf(deployment)!.metadata.labels));
      if (!target) return [`${object.kind} ${object.metadata.name}: selects no Deployment`];
      const declared = containersOf(target).flatMap((container) => container.ports ?? []);
      return (spec.ports ?? [])
        .filter(({ targetPort }) => !declared.some((port) => port.name === targetPort || port.containerPort === targetPort))
        .map(({ targetPort }) => `Service ${object.metadata.name}: port ${targetPort} not declared by ${target.metadata.name}`);
    });
    expect(problems).toEqual([]);
  });

  it("probes each service's health routes on a declared port, and bounds every container's resources", () => {
    const problems = byKind(objects, 'Deployment').flatMap((deployment) =>
      containersOf(deployment).flatMap((container: Container) => {
        const ports = (container.ports ?? []).map((port) => port.name);
        const isService = container.name !== 'gateway';
        const expected = { livenessProbe: isService ? '/health/live' : '/health', readinessProbe: isService ? '/health/ready' : '/health' };
        return [
          ...Object.entries(expected).flatMap(([probe, path]) => {
            const httpGet = container[probe as keyof typeof expected]?.httpGet;
            if (httpGet?.path !== path) return [`${container.name}: ${probe} is not GET ${path}`];
            return ports.includes(String(httpGet.port)) ? [] : [`${container.name}: ${probe} port ${httpGet.port} not declared`];
          }),
          ...['requests', 'limits'].flatMap((bound) =>
            ['cpu', 'memory']
              .filter((resource) => !container.resources?.[bound as 'requests' | 'limits']?.[resource])
              .map((resource) => `${container.name}: no ${resource} ${bound}`),
          ),
          ...(PINNED_TAG.test(container.image.split(':').pop() ?? '') && container.image.includes(':')
            ? []
            : [`${container.name}: image ${container.image} not pinned`]),
        ];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('scales authz and costasset on requests in flight, a metric the services export, with a disruption budget each', () => {
    const autoscalers = byKind(objects, 'HorizontalPodAutoscaler');
    expect(autoscalers.map((hpa) => (hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name).sort()).toEqual([
      'authz',
      'costasset',
    ]);
    for (const hpa of autoscalers) {
      const spec = hpa.spec as { scaleTargetRef: { kind: string; name: string }; metrics: { pods: { metric: { name: string } } }[] };
      expect(named(objects, spec.scaleTargetRef.kind, spec.scaleTargetRef.name)).toBeDefined();
      expect(spec.metrics.map((metric) => metric.pods.metric.name)).toEqual(['corelite_http_requests_in_flight']);
    }
    expect(readFileSync(join(root, 'libs/metrics/src/metrics.ts'), 'utf8')).toContain("'corelite_http_requests_in_flight'");
    expect(
      byKind(objects, 'PodDisruptionBudget')
        .map((pdb) => pdb.metadata.name)
        .sort(),
    ).toEqual(['authz', 'costasset', 'gateway']);
    expect((named(objects, 'Deployment', 'costasset')!.spec as { replicas: number }).replicas).toBeGreaterThan(1);
  });

  it('holds no secret: every one comes from the Secret corelite-secrets, each key of it documented', () => {
    expect(byKind(objects, 'Secret')).toEqual([]);
    const containers = byKind(objects, 'Deployment').flatMap(containersOf);
    const literal = containers.flatMap((container) =>
      (container.env ?? [])
        .filter((variable) => /PASSWORD|SECRET|_KEY$|TOKEN|MONGODB_URI/.test(variable.name) && variable.value !== undefined)
        .map((variable) => variable.name),
    );
    expect(literal).toEqual([]);
    const references = containers.flatMap((container) =>
      (container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [variable.valueFrom.secretKeyRef] : [])),
    );
    expect(references.filter((reference) => reference.name !== SECRET)).toEqual([]);
    const running = readFileSync(join(root, 'docs/running.md'), 'utf8');
    expect(
      [...new Set(references.map((reference) => reference.key))].filter(
        (key) => !new RegExp(`--from-(literal|file)=${key}=`).test(running),
      ),
    ).toEqual([]);
  });

  it('refers only to ConfigMaps it generates, and to keys they hold', () => {
    const configMaps = byKind(objects, 'ConfigMap');
    const problems = byKind(objects, 'Deployment').flatMap((deployment) => {
      const template = templateOf(deployment)!;
      const references = [
        ...(template.spec.volumes ?? []).flatMap((volume) => (volume.configMap ? [{ name: volume.configMap.name }] : [])),
        ...template.spec.containers.flatMap((container) =>
          (container.envFrom ?? []).flatMap((source) => (source.configMapRef ? [{ name: source.configMapRef.name }] : [])),
        ),
        ...template.spec.containers.flatMap((container) =>
          (container.env ?? []).flatMap((variable) =>
            variable.valueFrom?.configMapKeyRef ? [variable.valueFrom.configMapKeyRef as { name: string; key: string }] : [],
          ),
        ),
      ];
      return references
        .filter(({ name, key }: { name: string; key?: string }) => {
          const configMap = configMaps.find((candidate) => candidate.metadata.name === name);
          return !configMap || (key !== undefined && !(key in (configMap.data as Record<string, string>)));
        })
        .map(({ name, key }: { name: string; key?: string }) => `${deployment.metadata.name}: ${name}${key ? `/${key}` : ''}`);
    });
    expect(problems).toEqual([]);
  });

  it.each<ServiceName>(['authz', 'costasset'])('gives %s every variable it requires, each one valid', (service) => {
    const settings = named(objects, 'ConfigMap', 'corelite-settings')!.data as Record<string, string>;
    const container = containersOf(named(objects, 'Deployment', service)!)[0];
    const environment: Record<string, string> = { ...settings };
    for (const variable of container.env ?? []) {
      const secret = variable.valueFrom?.secretKeyRef;
      environment[variable.name] = variable.value ?? (secret ? sampleSecret(secret.key!) : `${service}-pod`);
    }
    // MONGODB_URI comes whole from the Secret: give it the shape docs/running.md asks for
    environment.MONGODB_URI = 'mongodb://corelite:a1b2c3d4@mongo-0.mongo:27017/corelite?replicaSet=rs0';
    expect(requiredVariables(service).filter((variable) => !(variable in environment))).toEqual([]);
    expect(environment.NODE_ENV).toBe('production');
    expect(environmentProblems(service, environment)).toEqual([]);
  });
});

it("includes in the Kubernetes gateway's configuration every file docker-compose's includes", () => {
  const includes = (file: string) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/^\s*include\s+(\S+);/gm)].map((match) => match[1]);
  const template = includes('deploy/kubernetes/base/gateway.conf.template');
  expect(includes('deploy/gateway/nginx.conf').filter((file) => !template.includes(file))).toEqual([]);
});

it('lists every file of deploy/kubernetes in a kustomization', () => {
  const listed = new Set([...kustomizationFiles(BASE), ...kustomizationFiles(OVERLAY)]);
  const present = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? present(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  expect(present(KUBERNETES).filter((file) => !listed.has(file))).toEqual([]);
});
