/**
 * The dashboard's CSV import (web/src/csv-import.ts): how a file's rows become bulk items (D14),
 * by the same rules as `sendwell import` (D17.6, csv-columns.ts). Changed on purpose by D17.6: `|`
 * no longer separates tags (the contract names `,` and `;`, and the CLI never split on it), and
 * a header without an e-mail column is refused before anything is sent, as the CLI refuses it.
 */
import { describe, expect, it } from 'vitest';
import { rowsToContacts } from './csv-import.ts';

const one = (header: string[], row: string[]) => rowsToContacts([header, row]).contacts[0];

describe('a CSV row as a bulk contact', () => {
  it('maps known columns by name in any case and splits tags on ; or ,', () => {
    expect(one(['Email', 'First_Name', 'LASTNAME', 'Phone', 'Tags'], [' a@example.com ', 'Ann', 'Lee', '+1 555', 'vip; beta,gamma|delta'])).toEqual({
      email: 'a@example.com',
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '+1 555',
      tags: ['vip', 'beta', 'gamma|delta'],
    });
    expect(one(['E-mail', 'name'], ['b@example.com', 'Bob Stone'])).toEqual({ email: 'b@example.com', name: 'Bob Stone' });
  });

  it('D26.3: keeps other columns as custom fields (in snake case unless already a key), and leaves empty cells out', () => {
    expect(one(['email', 'plan', 'not valid!', 'company_size', 'tags'], ['c@example.com', 'gold', 'x', '', ''])).toEqual({
      email: 'c@example.com',
      customFields: { plan: 'gold', not_valid: 'x' },
    });
  });

  it('D26.3: lists the columns it does not keep, with why', () => {
    expect(rowsToContacts([['email', '', 'Plan', 'Plan'], ['c@example.com', 'x', 'gold', 'silver']])).toEqual({
      contacts: [{ email: 'c@example.com', customFields: { Plan: 'gold' } }],
      ignoredColumns: [
        { column: '', reason: 'column 2 has no header' },
        { column: 'Plan', reason: 'a duplicate header: the first, column 3, is kept' },
      ],
    });
  });

  it('leaves a row without an e-mail with an empty one, for the server to report', () => {
    expect(one(['email', 'first_name'], ['', 'Nobody'])).toEqual({ email: '', firstName: 'Nobody' });
  });

  it("D17.6: reads other tools' headers, status, list names and typed custom fields as the CLI does", () => {
    expect(one(['Email Address', 'FIRSTNAME', 'Last Name', 'Phone Number', 'Status', 'Lists', 'vip', 'seats', 'code'], ['d@example.com', 'Di', 'Ng', '+1 555', 'unsubscribed', 'Weekly;Customers', 'true', '3', '"12"'])).toEqual({
      email: 'd@example.com',
      firstName: 'Di',
      lastName: 'Ng',
      phone: '+1 555',
      status: 'UNSUBSCRIBED',
      lists: ['Weekly', 'Customers'],
      customFields: { vip: true, seats: 3, code: '12' },
    });
  });

  it('D17.6: refuses a header without an e-mail column, naming the headers it knows', () => {
    expect(() => rowsToContacts([['first_name'], ['Nobody']])).toThrow(/no e-mail column \(email, Email Address, E-mail/);
    expect(() => rowsToContacts([])).toThrow(/no e-mail column/);
  });

  it("issue 28 L3: reads `sendwell export`'s quoted formula cells back as typed, as the CLI's import does", () => {
    expect(one(['email', 'first_name', 'phone'], ['a@example.com', "'=HYPERLINK(1)", "'+1 555"])).toMatchObject({ firstName: '=HYPERLINK(1)', phone: '+1 555' });
    expect(one(['email', 'first_name'], ['a@example.com', "O'Brien"])).toMatchObject({ firstName: "O'Brien" });
  });
});
