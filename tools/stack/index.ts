import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMPONENTS } from './components';
import { ComponentContext } from './components/local-component';
import { ensureRunning, localStatus, stopLocal } from './lifecycle';
import { localNatsPasswords } from './nats-users';
import { resolveSettings, StackSettings } from './settings';
import { buildStackEnv, writeStackEnv } from './stack-env';
import { ensureInstalled } from './system-packages';
import { COMPONENT_NAMES, ComponentName, ComponentStatus, StackDownOptions, StackEnv, StackError, StackOptions } from './types';

export { readStackEnv } from './stack-env';
export { withServiceNatsUser } from './nats-users';
export { COMPONENT_NAMES, StackError } from './types';
export type { ComponentName, ComponentStatus, StackDownOptions, StackEnv, StackOptions } from './types';

/** Starts the selected components (default: all) that are neither external nor already running; writes env.json. */
export async function stackUp(opts: StackOptions = {}): Promise<StackEnv> {
  const { settings, names, env, log } = prepare(opts);
  const local = names.filter((name) => settings.external[name] === undefined);
  fs.mkdirSync(settings.dataDir, { recursive: true });
  await ensureInstalled([...local.flatMap((name) => COMPONENTS[name].programs), ...(opts.programs ?? [])], log);
  const context: ComponentContext = { settings, log };
  const results = await Promise.allSettled(
    local.map(async (name) => {
      const outcome = await ensureRunning(COMPONENTS[name], context);
      log(`stack: ${name} ${outcome} at ${settings.localUrls[name]}`);
    }),
  );
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failures.length > 0) throw asStackError(failures[0].reason);

  const stackEnv = buildStackEnv(settings, env, settings.external.nats === undefined ? localNatsPasswords(settings.dataDir) : undefined);
  writeStackEnv(settings, stackEnv);
  return stackEnv;
}

/** Stops the selected local components (default: all), last started first. Data stays unless `wipe` or `purge`. */
export async function stackDown(opts: StackDownOptions = {}): Promise<ComponentStatus[]> {
  const { settings, names, log } = prepare(opts);
  for (const name of [...names].reverse()) {
    if (settings.external[name] !== undefined) continue;
    const outcome = await stopLocal(COMPONENTS[name], settings);
    if (outcome === 'stopped') log(`stack: ${name} stopped`);
  }
  if (opts.wipe) {
    for (const name of names) {
      if (settings.external[name] !== undefined) continue;
      const dir = path.join(settings.dataDir, name);
      if (!fs.existsSync(dir)) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      log(`stack: wiped ${name} data (${dir})`);
    }
  }
  if (opts.purge) {
    if (names.length !== COMPONENT_NAMES.length) throw new StackError('purge removes the whole profile; use it without naming components');
    fs.rmSync(settings.dataDir, { recursive: true, force: true });
    log(`stack: removed ${settings.dataDir}`);
  }
  return statusOf(settings, names);
}

export async function stackStatus(opts: StackOptions = {}): Promise<ComponentStatus[]> {
  const { settings, names } = prepare(opts);
  return statusOf(settings, names);
}

/** Stops one component; its port and data are kept for `startComponent`. A no-op for an external one. */
export async function stopComponent(name: ComponentName, opts: Omit<StackOptions, 'components'> = {}): Promise<ComponentStatus> {
  const [status] = await stackDown({ ...opts, components: [name] });
  return status;
}

/** (Re)starts one component on the same port with the same data (NATS JetStream streams survive). */
export async function startComponent(name: ComponentName, opts: Omit<StackOptions, 'components'> = {}): Promise<ComponentStatus> {
  await stackUp({ ...opts, components: [name] });
  const [status] = await stackStatus({ ...opts, components: [name] });
  return status;
}

export function stackSettings(opts: Pick<StackOptions, 'profile' | 'env'> = {}): StackSettings {
  return resolveSettings(opts.profile, opts.env ?? process.env);
}

function prepare(opts: StackOptions) {
  const env = opts.env ?? process.env;
  const settings = resolveSettings(opts.profile, env);
  const names = selectComponents(opts.components);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return { settings, names, env, log };
}

export function selectComponents(requested: readonly string[] | undefined): ComponentName[] {
  if (!requested || requested.length === 0) return [...COMPONENT_NAMES];
  for (const name of requested) {
    if (!(COMPONENT_NAMES as readonly string[]).includes(name)) {
      throw new StackError(`unknown component '${name}' (known: ${COMPONENT_NAMES.join(', ')})`);
    }
  }
  // keep the canonical order, whatever order they were named in
  return COMPONENT_NAMES.filter((name) => requested.includes(name));
}

async function statusOf(settings: StackSettings, names: ComponentName[]): Promise<ComponentStatus[]> {
  return Promise.all(
    names.map((name) => {
      const external = settings.external[name];
      if (external !== undefined) return { name, state: 'external' as const, url: external };
      return localStatus(COMPONENTS[name], settings);
    }),
  );
}

function asStackError(reason: unknown): Error {
  return reason instanceof Error ? reason : new StackError(String(reason));
}
