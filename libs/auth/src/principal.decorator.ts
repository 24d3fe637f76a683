import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal';

export interface AuthenticatedRequest {
  principal?: Principal;
  headers: Record<string, string | string[] | undefined>;
}

/** The authenticated caller of the current request (set by the global AuthGuard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return principal;
});
