/** JSON documents are TEXT columns on both dialects; these are the one place they are read and written. */
export function readJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return typeof text === 'string' ? (JSON.parse(text) as T) : (text as T);
}

export function writeJson(value: unknown): string {
  return JSON.stringify(value);
}
