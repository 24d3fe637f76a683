import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '@lib/http/problem/problem';
import { ACCESS_RULE, AccessRule } from './access';
import { AuthenticatedRequest } from './principal.decorator';
import { AccessTokenVerifier, PrincipalResolver } from './principal-resolver';
import { extractToken } from './token-extractor';

/** Global: applies each route's declared access rule (`@Public()`, `@AnyMember()`, `@SystemAdminOnly()`). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly resolver: PrincipalResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    // fails closed; the start-up check (RouteCatalog) keeps a route without a rule from ever being served
    if (rule === undefined) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no access rule`);
    if (rule === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = extractToken(request.headers);
    if (!token) throw new ProblemException(401, 'TOKEN_MISSING', 'A corelite-token is required');
    const claims = await this.verifier.verify(token, 'access');
    const principal = await this.resolver.resolve(claims);
    request.principal = principal;
    if (rule === 'system-admin' && !principal.isSystemAdmin) {
      throw new ProblemException(403, 'SYSTEM_ADMIN_REQUIRED', 'Only a System Admin may do this');
    }
    return true;
  }
}
