/**
 * D24.8: who is acting, for the audit log. A service method that changes something takes it as
 * its first parameter (a function that takes the database handle first, second, as `recordAudit`
 * does) and hands it to `recordAudit`: the HTTP layer passes the request's (the key
 * or the signed-in user, with the request's IP and browser: http/acting.ts), the CLI and the
 * workers pass `SYSTEM_ACTING`.
 *
 * Passed explicitly, not carried in an AsyncLocalStorage as it once was (issue 35): on Node 20 a
 * storage in use makes every promise of the process pay for carrying it, which cost a contact's
 * create a fifth of its CPU (75 of 348 µs per request in the API bench), and every other request
 * in flight beside a write paid too. A parameter costs nothing and says who acts where it is read.
 */
export type ActorType = 'user' | 'api_key' | 'system';

export interface Actor {
  type: ActorType;
  id: string | null;
  label: string | null;
}

export interface ActingContext {
  /** null on public routes (sign-in, reset): the service names the actor it acts for */
  actor: Actor | null;
  ip: string | null;
  userAgent: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, label: 'system' };

/** The CLI's and the workers' context: no request, so no IP or browser. */
export const SYSTEM_ACTING: ActingContext = { actor: SYSTEM_ACTOR, ip: null, userAgent: null };
