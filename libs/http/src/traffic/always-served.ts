import { SetMetadata } from '@nestjs/common';

export const ALWAYS_SERVED = 'http:always-served';

/**
 * A route that admission control never refuses, even when the instance is at its bound of work
 * in flight: it touches no database and is what operators and clients need to recover (health,
 * metrics, the key set, token refresh).
 */
export const AlwaysServed = () => SetMetadata(ALWAYS_SERVED, true);
