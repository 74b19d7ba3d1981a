import ipaddr from 'ipaddr.js';
import validator from 'validator';

/** The one kind of error a setting that does not parse gives: the process stops with its message. */
export class ConfigError extends Error {}

/** An integer setting from `min` to `max`; `fallback` when unset or empty. */
export function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** A setting that is `true` or `false`; unset or empty is false. */
export function flagFrom(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A hostname or IP address to listen on. */
export function listenHostFrom(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  if (!ipaddr.isValid(value) && !validator.isFQDN(value, { require_tld: false })) throw new ConfigError(`${name} must be an IP address or a hostname, got "${value}"`);
  return value;
}
