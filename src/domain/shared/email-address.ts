import validator from 'validator';
import { ValidationError } from './errors.ts';

/**
 * D11's one rule for e-mail addresses: trimmed and lower-cased wherever they arrive, so an address
 * has one spelling in every table, lookup, rate-limit key and hash. Pure (no database, no Node-only
 * module), so the dashboard may use the same rule as the server.
 */

/** D11: the longest address accepted, in characters (code points). */
export const EMAIL_MAX = 254;

/**
 * Addresses of the plainest form (ASCII letters, digits and `_+-` in dot-separated local parts of
 * at most 64 characters; LDH labels with a letter TLD), which validator.isEmail accepts every time,
 * as the unit test checks on generated samples. isEmail took about 5 µs an address, most of a bulk
 * import's CPU per contact; this test takes well under 1 µs. Anything else still goes to isEmail.
 */
const PLAIN_EMAIL = /^(?=[^@]{1,64}@)[a-z0-9_+-]+(?:\.[a-z0-9_+-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * Issue 14 M1: validator.isEmail lets a quoted local part hold anything, CR LF included
 * (`"x\r\ny"@example.com`). Such an address can never be written into an SMTP envelope or a header
 * (nodemailer refuses it, and a campaign counted that as a transport failure), so control characters
 * (C0, DEL, C1), the line and paragraph separators and the `<` `>` that delimit an address are
 * refused in every address field. Other quoted local parts stay valid.
 */
const UNSAFE_IN_ADDRESS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029<>]/;

/**
 * The key an address is stored, looked up, counted and hashed by: trimmed and lower-cased. Never
 * throws: a value that is no address (a path segment, a header) simply matches nothing.
 */
export function emailKey(raw: string): string {
  return raw.trim().toLowerCase();
}

/** Whether an address (already in key form) is one we accept: syntactically valid, a dotted domain, nothing unsafe. */
export function isValidEmail(email: string): boolean {
  if (PLAIN_EMAIL.test(email)) return true;
  return !UNSAFE_IN_ADDRESS.test(email) && validator.isEmail(email, { require_tld: true, allow_ip_domain: false, allow_display_name: false });
}

/** D11: the address in key form if it is one we accept, else a 400 naming `field`. The one e-mail normaliser. */
export function normaliseEmail(raw: string, field = 'email'): string {
  const email = emailKey(raw);
  if (email.length === 0) throw new ValidationError(`${field} is required`);
  if ([...email].length > EMAIL_MAX) throw new ValidationError(`${field} must be at most ${EMAIL_MAX} characters`);
  if (UNSAFE_IN_ADDRESS.test(email)) throw new ValidationError(`${field} must not contain control characters, < or >`);
  if (!isValidEmail(email)) throw new ValidationError(`${field} is not a valid e-mail address`);
  return email;
}

/**
 * The domain of an address, lower-cased: the part after its last `@` (a quoted local part may hold
 * an `@`; a domain never does), the whole value when there is none. What a From domain is matched
 * by (signing, warm-up, routes, Message-IDs), what a recipient domain's pace is keyed by, and what
 * a domain suppression (`@domain`) names. Domains compare without case (RFC 5321), so one spelling.
 */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).trim().toLowerCase();
}
