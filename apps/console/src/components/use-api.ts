import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/problem';

export interface ApiState<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  reload: () => void;
}

const asApiError = (error: unknown) => (error instanceof ApiError ? error : new ApiError(0, 'CLIENT_ERROR', (error as Error).message));

/** Runs `load` when `deps` change (the latest answer wins) and keeps its data, error and loading state. */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): ApiState<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((previous) => ({ data: previous.data, loading: true }));
    load().then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error) => call === latest.current && setState({ error: asApiError(error), loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}

/** A user action (save, delete…): runs it, keeps its error, and tells whether it is running. */
export function useAction<A extends unknown[], R>(
  action: (...args: A) => Promise<R>,
): { run: (...args: A) => Promise<R | undefined>; error?: ApiError; busy: boolean; clear: () => void } {
  const [state, setState] = useState<{ error?: ApiError; busy: boolean }>({ busy: false });
  const run = async (...args: A) => {
    setState({ busy: true });
    try {
      const result = await action(...args);
      setState({ busy: false });
      return result;
    } catch (error) {
      setState({ busy: false, error: asApiError(error) });
      return undefined;
    }
  };
  return { run, ...state, clear: () => setState({ busy: false }) };
}
