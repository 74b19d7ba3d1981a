import { parse } from 'csv-parse/sync';
import { fromSpreadsheetCell } from './formula-cells.ts';

/** One CSV record with the line it starts on (1-based), or why the line could not be read. */
export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

/** A record may span lines (a quoted field with line breaks), but not more than this. */
const MAX_LINES_PER_RECORD = 100;

interface Line {
  n: number;
  text: string;
}

const quotes = (s: string) => {
  let n = 0;
  for (let i = s.indexOf('"'); i >= 0; i = s.indexOf('"', i + 1)) n++;
  return n;
};

/** A parsed record; each cell as export meant it (issue 28 L3: one quote less before a formula character, formula-cells.ts). */
const record = (line: number, fields: string[]): CsvRecord => ({ line, fields: fields.map(fromSpreadsheetCell) });

function parseOne(text: string): string[] {
  const rows = parse(text, { relax_column_count: true }) as string[][];
  if (rows.length !== 1) throw new Error('not one record');
  return rows[0];
}

/**
 * Reads CSV records from lines, with csv-parse doing the parsing, and keeps going past malformed
 * lines: each is reported with its line number and skipped, and reading resumes at the next line.
 *
 * Records are first cut at line ends where the double quotes balance (a quoted field may hold line
 * breaks). A line whose quote never closes would otherwise swallow the rest of the file: when the
 * lines gathered for it do not parse as one record, only its first line is reported, and the lines
 * after it are read again as records of their own. Records are parsed a batch at a time (about ten
 * times faster than one by one); a batch that does not parse is parsed again record by record to
 * find the bad ones.
 */
export async function* csvRecords(lines: AsyncIterable<string>, batchSize = 1000): AsyncGenerator<CsvRecord[]> {
  const iterator = lines[Symbol.asyncIterator]();
  const pending: Line[] = [];
  let lineNumber = 0;
  const nextLine = async (): Promise<Line | null> => {
    if (pending.length > 0) return pending.shift()!;
    const r = await iterator.next();
    return r.done ? null : { n: ++lineNumber, text: r.value };
  };

  let batch: { line: number; text: string; lines: Line[] }[] = [];
  const flush = (): CsvRecord[] => {
    const texts = batch;
    batch = [];
    try {
      const rows = parse(texts.map((t) => t.text).join('\n'), { relax_column_count: true }) as string[][];
      if (rows.length === texts.length) return rows.map((fields, i) => record(texts[i].line, fields));
    } catch {
      // some record of the batch is malformed: find it below
    }
    const out: CsvRecord[] = [];
    for (let i = 0; i < texts.length; i++) {
      try {
        out.push(record(texts[i].line, parseOne(texts[i].text)));
      } catch (err) {
        const multiLine = texts[i].lines.length > 1;
        out.push({ line: texts[i].line, error: multiLine ? 'malformed CSV: a quote is never closed' : `malformed CSV: ${(err as Error).message}` });
        if (multiLine) {
          // Read the lines after the bad one again, and everything after them, in order.
          const rest = [...texts[i].lines.slice(1), ...texts.slice(i + 1).flatMap((t) => t.lines)];
          pending.unshift(...rest);
          break;
        }
      }
    }
    return out;
  };

  for (;;) {
    const first = await nextLine();
    if (!first) {
      if (batch.length === 0) return;
      // The end: what a last fallback re-queues is read again by this same loop.
      const records = flush();
      if (records.length > 0) yield records;
      continue;
    }
    if (first.text.trim() === '') continue;
    const gathered = [first];
    let text = first.text;
    while (quotes(text) % 2 === 1 && gathered.length < MAX_LINES_PER_RECORD) {
      const more = await nextLine();
      if (!more) break;
      gathered.push(more);
      text += '\n' + more.text;
    }
    batch.push({ line: first.n, text, lines: gathered });
    if (batch.length >= batchSize) {
      const records = flush();
      if (records.length > 0) yield records;
    }
  }
}
