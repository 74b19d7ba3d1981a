import { stringify, type Stringifier } from 'csv-stringify';
import { toSpreadsheetCell } from './formula-cells.ts';

/**
 * Every CSV the service writes goes through here (issue 28 L3): a header row of `columns`, and
 * each cell, header included, made safe to open in a spreadsheet (formula-cells.ts).
 */
export function spreadsheetCsv(columns: readonly string[]): Stringifier {
  return stringify({
    header: true,
    columns: [...columns],
    cast: { string: toSpreadsheetCell, number: (n) => toSpreadsheetCell(String(n)) },
  });
}
