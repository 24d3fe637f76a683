import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '@lib/core';
import { setSpanAttributes } from '@lib/tracing';
import { ACCESS_RULE, AccessRule } from './access';
import { COST_DATA_MANAGER_ROLE, Principal } from './principal';
import { AuthenticatedRequest } from './principal.decorator';
import { AccessTokenVerifier, PrincipalResolver } from './principal-resolver';
import { extractToken } from './token-extractor';

/**
 * Global: applies each route's declared access rule (`@Public()`, `@SignedIn()`, `@AnyMember()`, `@CostDataManager()`,
 * `@SystemAdminOnly()`).
 */
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
    setSpanAttributes({ 'corelite.tenant.id': principal.tenantId });
    refuseUnless(rule, principal);
    return true;
  }
}

/** The role a rule asks for, beyond a valid token: 403 with the rule's stable code otherwise. */
function refuseUnless(rule: Exclude<AccessRule, 'public'>, principal: Principal): void {
  if (principal.isSystemAdmin || rule === 'signed-in') return;
  if (rule === 'system-admin') throw new ProblemException(403, 'SYSTEM_ADMIN_REQUIRED', 'Only a System Admin may do this');
  if (principal.teams.length === 0)
    throw new ProblemException(403, 'TEAM_REQUIRED', 'The caller is in no team, and a team is needed to read or change anything here');
  if (rule === 'cost-data' && !principal.roles.includes(COST_DATA_MANAGER_ROLE)) {
    throw new ProblemException(
      403,
      'COST_DATA_MANAGER_REQUIRED',
      `Only a ${COST_DATA_MANAGER_ROLE} or a System Admin may change cost data`,
    );
  }
}
