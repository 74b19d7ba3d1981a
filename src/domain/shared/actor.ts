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

/**
 * Handlers running inside `actingAs`. On Node 20 an AsyncLocalStorage in use makes every promise
 * of the process pay for carrying it (issue 35: about 7% of a contact's create), so once none is
 * left the storage is disabled, and a process serving only reads (which run outside it, see
 * http/routes.ts) pays nothing; the next `actingAs` enables it again. A continuation that
 * outlives its handler (a timer it set) then acts as the system, as the workers do.
 */
let acting = 0;

export function actingAs<T>(context: ActingContext, run: () => Promise<T>): Promise<T> {
  acting += 1;
  const done = () => {
    acting -= 1;
    if (acting === 0) storage.disable();
  };
  let result: Promise<T>;
  try {
    result = storage.run(context, run);
  } catch (err) {
    done();
    throw err;
  }
  return result.finally(done);
}

/** The request's context, or the system's when there is no request (CLI, workers). */
export function currentActing(): ActingContext {
  return storage.getStore() ?? { actor: SYSTEM_ACTOR, ip: null, userAgent: null };
}
