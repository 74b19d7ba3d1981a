/**
 * Issue 28 L3: CSV the service writes is opened in spreadsheets, and a cell that starts with `=`,
 * `+`, `-`, `@`, a tab or a carriage return is a formula there (`=HYPERLINK(...)` typed into a
 * signup form ran in the exporter's spreadsheet). OWASP's rule: such a cell is written with a
 * single quote in front, which spreadsheets read as "text".
 *
 * Exports are for spreadsheets, and import reads them back losslessly: a cell of one or more
 * quotes followed by one of those characters loses one quote on import. The export quotes every
 * cell of that shape too (so `'=x` typed by a person is written `''=x` and read back `'=x`):
 * the two are exact inverses, and every other cell passes both ways untouched. A file from
 * another tool that escaped the same way reads back the same. Pure: the dashboard's import uses it.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const ESCAPED_FORMULA_START = /^'+[=+\-@\t\r]/;

/** The cell as written to CSV: a single quote in front when a spreadsheet would read a formula. */
export const toSpreadsheetCell = (cell: string): string => (FORMULA_START.test(cell) ? `'${cell}` : cell);

/** The cell as read from CSV: what `toSpreadsheetCell` wrote, back to its value. */
export const fromSpreadsheetCell = (cell: string): string => (ESCAPED_FORMULA_START.test(cell) ? cell.slice(1) : cell);
