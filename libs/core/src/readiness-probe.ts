/** A dependency the service needs in order to serve traffic. `check` rejects when it is down. */
export interface ReadinessProbe {
  readonly name: string;
  check(): Promise<void>;
}

export const READINESS_PROBES = Symbol('READINESS_PROBES');
