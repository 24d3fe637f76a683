import * as path from 'node:path';
import { StackSettings } from '../settings';
import { ComponentName, RequiredProgram } from '../types';

export interface ComponentContext {
  settings: StackSettings;
  log: (line: string) => void;
}

/** One server the stack runs locally; the generic start/stop/status logic lives in lifecycle.ts. */
export interface LocalComponent {
  name: ComponentName;
  /** Programs that must be installed (Debian packages) before it can start. */
  programs: RequiredProgram[];
  /** Ports it listens on; each must be free before it starts. */
  ports(settings: StackSettings): number[];
  /** Part of the server's command line, to tell our process from a recycled pid. */
  commandMarker: string;
  startTimeoutMs: number;
  isHealthy(settings: StackSettings): Promise<boolean>;
  /** Spawns the server detached and records its pid in `pidFile(settings, name)`; does not wait. */
  spawn(context: ComponentContext): Promise<void>;
  /** Idempotent set-up once the server answers (seed data, bucket). */
  prepare?(context: ComponentContext): Promise<void>;
}

export const pidFile = (settings: StackSettings, name: ComponentName) => path.join(settings.dataDir, `${name}.pid`);

export const logFile = (settings: StackSettings, name: ComponentName) => path.join(settings.dataDir, `${name}.log`);

/** A node_modules/.bin script, run with this very node so PATH does not matter. */
export const nodeBin = (settings: StackSettings, bin: string) => path.join(settings.repoRoot, 'node_modules', '.bin', bin);
