import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '@lib/http/problem/problem';
import { AuthenticatedRequest } from './principal.decorator';
import { AccessTokenVerifier, PrincipalResolver } from './principal-resolver';
import { IS_PUBLIC } from './public.decorator';
import { extractToken } from './token-extractor';

/** Global: every route needs a valid corelite-token unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly resolver: PrincipalResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = extractToken(request.headers);
    if (!token) throw new ProblemException(401, 'TOKEN_MISSING', 'A corelite-token is required');
    const claims = await this.verifier.verify(token, 'access');
    request.principal = await this.resolver.resolve(claims);
    return true;
  }
}
