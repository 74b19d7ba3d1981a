import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * D24.8: who is acting, for the audit log. The HTTP layer runs each route's handler inside
 * `actingAs` (the key or the signed-in user, with the request's IP and browser); the CLI and the
 * workers run outside it, so their changes are the `system`'s. Carried implicitly so the one
 * audit function can read it inside any service's transaction without every service signature
 * growing an actor parameter.
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

const storage = new AsyncLocalStorage<ActingContext>();

export function actingAs<T>(context: ActingContext, run: () => T): T {
  return storage.run(context, run);
}

/** The request's context, or the system's when there is no request (CLI, workers). */
export function currentActing(): ActingContext {
  return storage.getStore() ?? { actor: SYSTEM_ACTOR, ip: null, userAgent: null };
}
