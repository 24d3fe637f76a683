import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import { ProblemException } from '@lib/http/problem/problem';
import { AuthenticatedRequest } from './principal.decorator';

@Injectable()
export class SystemAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal?.isSystemAdmin) {
      throw new ProblemException(403, 'SYSTEM_ADMIN_REQUIRED', 'Only a System Admin may do this');
    }
    return true;
  }
}

/** Restricts a route or controller to callers holding the `System Admin` role through a team. */
export const SystemAdminOnly = () =>
  applyDecorators(UseGuards(SystemAdminGuard), ApiForbiddenResponse({ description: 'The caller is not a System Admin' }));
