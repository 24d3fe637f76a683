import { Injectable } from '@nestjs/common';
import type { AuthType, TokenClaims } from '@lib/auth';
import { ProblemException } from '@lib/core';
import { Directory } from '../directory/directory';

/**
 * The `groups` a refreshed token carries. For an IdP mapped to `hybrid` they select the caller's
 * external teams, so they are read again from the tenant's directory at each refresh. Without a
 * directory the IdP's groups of the sign-in stay: nothing else knows them, and the session that
 * carries them ends with its sign-in token (disable the user to end it sooner). A directory that
 * cannot be read fails the refresh (503) before the refresh token is spent, so the client retries.
 */
@Injectable()
export class RefreshGroups {
  constructor(private readonly directory: Directory) {}

  async of(claims: Pick<TokenClaims, 'tid' | 'sub' | 'groups'>, authType: AuthType): Promise<string[]> {
    if (authType !== 'hybrid') return claims.groups;
    try {
      return await this.directory.groupsOf(claims.tid, claims.sub);
    } catch (error) {
      if (error instanceof ProblemException && error.code === 'DIRECTORY_NOT_CONFIGURED') return claims.groups;
      throw error;
    }
  }
}
