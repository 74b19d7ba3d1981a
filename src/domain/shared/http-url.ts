import { ValidationError } from './errors.ts';

/**
 * An absolute http(s) URL naming a host, without credentials in it and without its fragment, of at
 * most `max` characters; anything else is 400 naming `field`. The one rule for URLs the account
 * gives us to call or send people to (webhook endpoints, a form's redirect). `credentialsAdvice`
 * completes the message refusing a user name or password in it.
 */
export function cleanHttpUrl(raw: string, field: string, max: number, credentialsAdvice = ''): string {
  const trimmed = raw.trim();
  if (trimmed.length === 0 || trimmed.length > max) throw new ValidationError(`${field} must be 1-${max} characters`);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ValidationError(`${field} must be an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError(`${field} must be an http:// or https:// URL`);
  if (url.hostname === '') throw new ValidationError(`${field} must name a host`);
  if (url.username !== '' || url.password !== '') throw new ValidationError(`${field} must not carry a user name or password${credentialsAdvice}`);
  url.hash = '';
  return url.toString();
}
