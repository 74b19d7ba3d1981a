/**
 * Issue 34 item 8: the import dialog's mapping step (import-mapping.ts): its first guess is the
 * CLI's reading of the header (D17.6, D26.3), and the person's choices make the columns the rows
 * are read by, or say in words what stops the import.
 */
import { describe, expect, it } from 'vitest';
import { rowToItem } from '../../src/domain/contacts/csv-columns.ts';
import { columnsOf, guessColumn, guessMapping, sampleValues, TARGETS, TARGET_LABELS } from './import-mapping.ts';

describe('guessing a column from its header', () => {
  it("reads Mailchimp's and others' headers as the contact fields", () => {
    expect(guessColumn('Email Address').target).toBe('email');
    expect(guessColumn('E-mail').target).toBe('email');
    expect(guessColumn('First Name').target).toBe('first_name');
    expect(guessColumn('LNAME').target).toBe('last_name');
    expect(guessColumn('Phone Number').target).toBe('phone');
    expect(guessColumn('TAGS').target).toBe('tags');
    expect(guessColumn('OPTIN_TIME').target).toBe('consent.optin_time');
  });

  it('takes any other header for a new custom field named in lower snake case, or for nothing', () => {
    expect(guessColumn('Favourite colour')).toEqual({ target: 'custom', key: 'favourite_colour' });
    expect(guessColumn('plan_2024')).toEqual({ target: 'custom', key: 'plan_2024' });
    expect(guessColumn('LEID').target).toBe('custom');
    expect(guessColumn('MEMBER_RATING').target).toBe('ignore');
    expect(guessColumn('!!!').target).toBe('ignore');
  });

  it('does not import the second of two columns with the same header, as the CLI', () => {
    expect(guessMapping(['Email Address', 'First Name', 'first name', '']).map((c) => c.target)).toEqual(['email', 'first_name', 'ignore', 'ignore']);
  });
});

describe('the columns the choices make', () => {
  const header = ['Email Address', 'First Name', 'Last Name', 'Favourite colour'];

  it('reads rows into bulk items with the custom field named as chosen', () => {
    const choices = guessMapping(header);
    choices[3] = { target: 'custom', key: 'colour' };
    const { columns, problems } = columnsOf(header, choices);
    expect(problems).toEqual([]);
    expect(rowToItem(columns, ['ann@example.com', 'Ann', 'Lee', 'Teal'])).toEqual({ email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', customFields: { colour: 'Teal' } });
    choices[2] = { target: 'ignore', key: 'last_name' };
    expect(rowToItem(columnsOf(header, choices).columns, ['ann@example.com', 'Ann', 'Lee', 'Teal'])).toEqual({ email: 'ann@example.com', firstName: 'Ann', customFields: { colour: 'Teal' } });
  });

  it('says what stops the import: no e-mail column, a bad key, two columns in one place', () => {
    const choices = guessMapping(header);
    choices[0] = { target: 'ignore', key: '' };
    choices[2] = { target: 'first_name', key: '' };
    choices[3] = { target: 'custom', key: '2nd colour' };
    expect(columnsOf(header, choices).problems).toEqual([
      'Choose the column that holds the e-mail address.',
      '“First Name” and “Last Name” both go to First name: choose one, or do not import the other.',
      "“Favourite colour”: a custom field's name starts with a letter, then letters, digits or _ (at most 64).",
    ]);
    const twice = [{ target: 'email', key: '' }, { target: 'custom', key: 'x' }, { target: 'custom', key: ' x ' }] as const;
    expect(columnsOf(['a', 'b', 'c'], [...twice]).problems).toEqual(['“b” and “c” both go to custom field “x”: choose one, or do not import the other.']);
  });

  it('offers every target in words', () => {
    for (const t of TARGETS) expect(TARGET_LABELS[t]).toBeTruthy();
    expect(new Set(TARGETS).size).toBe(Object.keys(TARGET_LABELS).length);
  });
});

describe('the preview', () => {
  it("shows a column's first values, empty cells left out", () => {
    expect(sampleValues([['a', ''], ['b', 'x'], ['c', ' '], ['d', 'y'], ['e', 'z'], ['f', 'w']], 1)).toEqual(['x', 'y', 'z']);
    expect(sampleValues([['a']], 3)).toEqual([]);
  });
});
