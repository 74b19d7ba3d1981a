import { describe, expect, it } from 'vitest';
import { fromSpreadsheetCell, toSpreadsheetCell } from './formula-cells.ts';

describe('issue 28 L3: CSV cells safe to open in a spreadsheet (OWASP)', () => {
  const cases: [value: string, written: string][] = [
    ['=HYPERLINK("http://evil.test","x")', `'=HYPERLINK("http://evil.test","x")`],
    ['+33 6 12 34 56 78', `'+33 6 12 34 56 78`],
    ['-2+3+cmd|\' /C calc\'!A0', `'-2+3+cmd|' /C calc'!A0`],
    ['@SUM(1+1)', `'@SUM(1+1)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `'\r=1`],
    ["'=already quoted by a person", `''=already quoted by a person`],
    ["''-two", `'''-two`],
    ['plain', 'plain'],
    ["O'Brien", "O'Brien"],
    ["'quoted text", "'quoted text"],
    ['a=b', 'a=b'],
    ['', ''],
  ];
  it.each(cases)('%j is written %j and read back as it was', (value, written) => {
    expect(toSpreadsheetCell(value)).toBe(written);
    expect(fromSpreadsheetCell(written)).toBe(value);
  });

  it('reads a cell another tool escaped the same way as its value, and leaves a lone quote alone', () => {
    expect(fromSpreadsheetCell("'-5")).toBe('-5');
    expect(fromSpreadsheetCell("'")).toBe("'");
    expect(fromSpreadsheetCell("'x")).toBe("'x");
  });
});
