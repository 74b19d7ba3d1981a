import secureJson from 'secure-json-parse';
import { ApiError } from './errors.ts';

/**
 * The one way a JSON body is read: prototype-poisoning keys (`__proto__`, `constructor.prototype`)
 * are dropped, and text that is not JSON is 400 INVALID_REQUEST (D7). The app's JSON parser uses it,
 * and so do the routes that read their body as text first (signed webhooks, form submissions).
 */
export function parseJsonBody(text: string): unknown {
  try {
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (err) {
    throw new ApiError(400, 'INVALID_REQUEST', `body is not valid JSON: ${(err as Error).message}`);
  }
}
