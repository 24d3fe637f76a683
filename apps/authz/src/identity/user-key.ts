/** A user of a tenant: its subject as one IdP asserts it (users are keyed by tenant, IdP and subject). */
export interface UserKey {
  idpId: string;
  userId: string;
}
