import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const HEADER = `# Benchmark results

Written by \`npm run bench\` (bench/run.ts). Each benchmark owns one section below and rewrites
only that section on every run; the figures are from the latest run on the machine named in it.
`;

/**
 * Replaces (or appends) the section between `<!-- bench:<id> -->` and `<!-- /bench:<id> -->`,
 * keeping every other benchmark's section as it is.
 */
export function updateSection(file: string, id: string, markdown: string): void {
  const start = `<!-- bench:${id} -->`;
  const end = `<!-- /bench:${id} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from !== -1 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : current.trimEnd() + '\n\n' + block + '\n';
  writeFileSync(file, next);
}

/** A Markdown table from a header row and body rows. */
export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
