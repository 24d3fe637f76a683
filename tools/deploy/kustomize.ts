import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * Renders a kustomization as `kubectl kustomize` does, for the features deploy/kubernetes uses
 * (resources, configMapGenerator with envs, files, literals and `behavior: merge`, labels,
 * namespace, images, replicas), without the generators' name hashes. Neither kustomize nor kubectl
 * installs on the machines that run `npm test`; a kustomization using anything else is refused, so
 * the tests never pass over a part they did not render.
 */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface ConfigMapGenerator {
  name: string;
  behavior?: 'create' | 'merge';
  envs?: string[];
  files?: string[];
  literals?: string[];
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  configMapGenerator?: ConfigMapGenerator[];
  labels?: { pairs: Record<string, string> }[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  replicas?: { name: string; count: number }[];
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'configMapGenerator', 'labels', 'namespace', 'images', 'replicas']);

const keyValue = (line: string): [string, string] => {
  const at = line.indexOf('=');
  return [line.slice(0, at), line.slice(at + 1)];
};

function generate(dir: string, generator: ConfigMapGenerator): Record<string, string> {
  const data: Record<string, string> = {};
  for (const env of generator.envs ?? []) {
    for (const line of readFileSync(join(dir, env), 'utf8').split('\n')) {
      if (line.trim() && !line.startsWith('#')) Object.assign(data, Object.fromEntries([keyValue(line)]));
    }
  }
  for (const file of generator.files ?? []) {
    const [key, path] = file.includes('=') ? keyValue(file) : [file, file];
    data[key] = readFileSync(join(dir, path), 'utf8');
  }
  for (const literal of generator.literals ?? []) Object.assign(data, Object.fromEntries([keyValue(literal)]));
  return data;
}

/** Every file a kustomization reads, its own included (for the test that nothing else lies around). */
export function kustomizationFiles(dir: string): string[] {
  const kustomization = readKustomization(dir);
  const generated = (kustomization.configMapGenerator ?? []).flatMap((generator) => [
    ...(generator.envs ?? []),
    ...(generator.files ?? []).map((file) => (file.includes('=') ? keyValue(file)[1] : file)),
  ]);
  const resources = (kustomization.resources ?? []).filter((resource) => statSync(join(dir, resource)).isFile());
  return ['kustomization.yaml', ...resources, ...generated].map((file) => join(dir, file));
}

function readKustomization(dir: string): Kustomization {
  const kustomization = parseAllDocuments(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'))[0].toJS() as Kustomization;
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0)
    throw new Error(`${dir}/kustomization.yaml: ${unsupported.join(', ')} not rendered by tools/deploy/kustomize.ts`);
  return kustomization;
}

export function render(dir: string): KubernetesObject[] {
  const kustomization = readKustomization(dir);
  const objects: KubernetesObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const path = join(dir, resource);
    if (statSync(path).isDirectory()) objects.push(...render(path));
    else objects.push(...parseAllDocuments(readFileSync(path, 'utf8')).map((document) => document.toJS() as KubernetesObject));
  }
  for (const generator of kustomization.configMapGenerator ?? []) {
    const data = generate(dir, generator);
    const existing = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === generator.name);
    if (generator.behavior === 'merge') {
      if (!existing) throw new Error(`${dir}: configMapGenerator ${generator.name} merges into nothing`);
      existing.data = { ...(existing.data as Record<string, string>), ...data };
    } else {
      objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data });
    }
  }
  for (const object of objects) {
    for (const { pairs } of kustomization.labels ?? []) object.metadata.labels = { ...object.metadata.labels, ...pairs };
    if (kustomization.namespace) object.metadata.namespace = kustomization.namespace;
    for (const container of containersOf(object)) {
      const [name, tag] = container.image.split(/:(?=[^:/]+$)/);
      const image = kustomization.images?.find((candidate) => candidate.name === name);
      if (image) container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
    }
    const replicas = kustomization.replicas?.find((candidate) => candidate.name === object.metadata.name);
    if (replicas && object.kind === 'Deployment') (object.spec as { replicas: number }).replicas = replicas.count;
  }
  return objects;
}

export interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: Record<string, { name?: string; key?: string; fieldPath?: string }> }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
export interface Probe {
  httpGet?: { path: string; port: string | number };
}

export interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Container[]; volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[] };
}

export function templateOf(object: KubernetesObject): PodTemplate | undefined {
  return object.kind === 'Deployment' ? (object.spec as { template: PodTemplate }).template : undefined;
}

export function containersOf(object: KubernetesObject): Container[] {
  return templateOf(object)?.spec.containers ?? [];
}
