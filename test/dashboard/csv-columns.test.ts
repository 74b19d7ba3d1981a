/** The dashboard's CSV import (web/src/csv-import.ts): how a row's columns become a bulk item (D14). */
import { describe, expect, it } from 'vitest';
import { toBulkContact } from '../../web/src/csv-import.ts';

describe('a CSV row as a bulk contact', () => {
  it('maps known columns by name in any case and splits tags on ; , or |', () => {
    expect(toBulkContact({ Email: ' a@example.com ', First_Name: 'Ann', LASTNAME: 'Lee', Phone: '+1 555', Tags: 'vip; beta,gamma|delta' })).toEqual({
      email: 'a@example.com',
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '+1 555',
      tags: ['vip', 'beta', 'gamma', 'delta'],
    });
    expect(toBulkContact({ 'E-mail': 'b@example.com', name: 'Bob Stone' })).toEqual({ email: 'b@example.com', name: 'Bob Stone' });
  });

  it('keeps other columns with valid field names as custom fields, and leaves empty cells out', () => {
    expect(toBulkContact({ email: 'c@example.com', plan: 'gold', 'not valid!': 'x', company_size: '', tags: '' })).toEqual({
      email: 'c@example.com',
      customFields: { plan: 'gold' },
    });
  });

  it('leaves a row without an e-mail with an empty one, for the server to report', () => {
    expect(toBulkContact({ first_name: 'Nobody' })).toEqual({ email: '', firstName: 'Nobody' });
  });
});
