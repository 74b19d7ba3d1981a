/**
 * PostgreSQL text cannot hold U+0000, so input holding it is refused on every database alike.
 * The path (e.g. `body/tags/0`) of the first string or key holding U+0000; iterative, as bodies may nest deeply.
 */
export function fieldWithNul(value: unknown, root: string): string | null {
  const pending: [unknown, string][] = [[value, root]];
  while (pending.length > 0) {
    const [v, path] = pending.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return path;
        pending.push([child, `${path}/${k}`]);
      }
    }
  }
  return null;
}
