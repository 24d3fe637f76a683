import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me } from '../api/types';

/** Who is signed in (`GET /core/authorization/v1/me`), for every page. */
export const MeContext = createContext<Me | undefined>(undefined);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside a signed-in page');
  return me;
}

/** Why a member sees no costs: the API gives it nothing, and this says why. */
export function noVisibilityReason(me: Me): string | undefined {
  if (me.is_system_admin) return undefined;
  if (me.teams.length === 0)
    return (
      'You are not a member of any team yet, so no cost data is visible to you. ' +
      'Ask a System Admin to add you to a team whose visibility group covers the costs you need.'
    );
  return undefined;
}

/** Whether the caller may import and remove cost data (the `Cost Data Manager` role, or System Admin). */
export function canManageCostData(me: Me): boolean {
  return me.is_system_admin || me.roles.includes('Cost Data Manager');
}
