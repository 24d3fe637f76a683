import { ComponentContext, LocalComponent, logFile, pidFile } from './components/local-component';
import { isProcessAlive, livePid, readPid, removeFile, stopProcess } from './process-control';
import { portFreeWithin, waitUntil } from './readiness';
import { StackSettings } from './settings';
import { ComponentStatus, StackError } from './types';

export type StartOutcome = 'started' | 'already running';

/** How long the ports of a component whose recorded process is gone may take to be released. */
const PORT_RELEASE_GRACE_MS = 10_000;

/** Leaves a healthy running component alone; otherwise starts it, waits until it answers, prepares it. */
export async function ensureRunning(component: LocalComponent, context: ComponentContext): Promise<StartOutcome> {
  const { settings } = context;
  const { name } = component;
  const recordedPid = readPid(pidFile(settings, name));
  const runningPid = livePid(pidFile(settings, name), component.commandMarker);
  if (runningPid !== undefined) {
    await waitUntil(() => component.isHealthy(settings), {
      what: `${name} (pid ${runningPid}, already running)`,
      timeoutMs: component.startTimeoutMs,
      stillAlive: () => isProcessAlive(runningPid),
      logFile: logFile(settings, name),
    });
    await component.prepare?.(context);
    return 'already running';
  }

  // a process killed a moment ago (kill -9) can show as dead while its last threads still hold its
  // ports (a thread in a disk write): give its ports a few seconds before calling them busy
  const graceMs = recordedPid !== undefined ? PORT_RELEASE_GRACE_MS : 0;
  for (const port of component.ports(settings)) {
    if (!(await portFreeWithin(port, graceMs))) {
      throw new StackError(
        `${name}: port ${port} is busy (another process listens on it; stop it, ` +
          `or pick another port with STACK_${name.toUpperCase()}_PORT and the like)`,
      );
    }
  }
  await component.spawn(context);
  const pid = livePid(pidFile(settings, name));
  await waitUntil(() => component.isHealthy(settings), {
    what: name,
    timeoutMs: component.startTimeoutMs,
    stillAlive: () => pid !== undefined && isProcessAlive(pid),
    logFile: logFile(settings, name),
  });
  await component.prepare?.(context);
  return 'started';
}

export async function stopLocal(component: LocalComponent, settings: StackSettings): Promise<'stopped' | 'not running'> {
  const file = pidFile(settings, component.name);
  const pid = livePid(file, component.commandMarker);
  if (pid === undefined) return 'not running';
  await stopProcess(pid);
  removeFile(file);
  return 'stopped';
}

export async function localStatus(component: LocalComponent, settings: StackSettings): Promise<ComponentStatus> {
  const url = settings.localUrls[component.name];
  const pid = livePid(pidFile(settings, component.name), component.commandMarker);
  if (pid === undefined) return { name: component.name, state: 'stopped', url };
  return { name: component.name, state: 'running', url, pid, healthy: await component.isHealthy(settings) };
}
