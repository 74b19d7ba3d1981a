import { describe, expect, it } from 'vitest';
import { contactToRow, exportHeader, joinCell, mapHeader as mapHeaderWithIgnored, parseColumnMap, readCustomValue, rowToItem, snakeCaseKey, splitCell, writeCustomValue } from './csv-columns.ts';

const mapHeader = (header: string[], map?: Record<string, string>) => mapHeaderWithIgnored(header, map).columns;

describe('D17.6: CSV columns, one rule for the CLI and the dashboard', () => {
  it("reads other tools' headers in any case", () => {
    // One header at a time: two columns for one field keep only the first (D26.3).
    const columns = ['Email Address', 'First Name', 'LASTNAME', 'Phone Number', 'Tags', 'E-mail', 'FIRSTNAME', 'Last Name', 'EMAIL'].flatMap((h) => mapHeader([h]));
    expect(columns.map((c) => (c.kind === 'field' ? c.field : c.kind))).toEqual(['email', 'first_name', 'last_name', 'phone', 'tags', 'email', 'first_name', 'last_name', 'email']);
  });

  it('--map names other columns; unknown targets are refused', () => {
    const map = parseColumnMap('Correo=email, Nombre=first_name,Plan=custom_fields.plan,Junk=ignore');
    const columns = mapHeader(['Correo', 'Nombre', 'Plan', 'Junk'], map);
    expect(columns).toEqual([{ kind: 'field', field: 'email' }, { kind: 'field', field: 'first_name' }, { kind: 'custom', key: 'plan' }, { kind: 'ignored', reason: 'ignored by --map' }]);
    expect(() => parseColumnMap('X=nope')).toThrow(/not a contact field/);
    expect(() => parseColumnMap('nothing')).toThrow(/not Header=field/);
  });

  it('a row becomes a bulk item with status, tags and lists split on ; or ,', () => {
    const columns = mapHeader(['email', 'status', 'tags', 'lists', 'vip', 'zip']);
    expect(rowToItem(columns, ['a@example.com', 'unsubscribed', 'x; y,z', 'News;Promo', 'true', '01234'])).toEqual({
      email: 'a@example.com',
      status: 'UNSUBSCRIBED',
      tags: ['x', 'y', 'z'],
      lists: ['News', 'Promo'],
      customFields: { vip: true, zip: '01234' },
    });
    expect(rowToItem(mapHeader(['Email Address', 'TAGS']), ['a@example.com', '"Customer","VIP"'])).toEqual({ email: 'a@example.com', tags: ['Customer', 'VIP'] });
    expect(rowToItem(mapHeader(['Email Address', 'Member Status']), ['a@example.com', 'cleaned'])).toEqual({ email: 'a@example.com', customFields: { member_status: 'cleaned' } });
    expect(rowToItem(mapHeader(['email', 'status']), ['a@example.com', 'cleaned'])).toEqual({ email: 'a@example.com', status: 'BOUNCED' });
  });

  it.each([
    ['x; y,z', ['x', 'y', 'z']],
    [' a ;; b, ', ['a', 'b']],
    ['"Customer","VIP"', ['Customer', 'VIP']],
    ['"a, b";c', ['a, b', 'c']],
    ['"half open, x', ['"half open', 'x']],
    ['say "hi", there', ['say "hi"', 'there']],
    ['', []],
  ])('splits %j into %j', (cell, values) => {
    expect(splitCell(cell)).toEqual(values);
  });

  it.each([[['a', 'b']], [['News, weekly', 'Promo']], [['x;y']], [['"quoted"']], [['say "hi"']], [['back\\slash', 'é']]])('tags or list names %j survive export then import', (values) => {
    expect(splitCell(joinCell(values))).toEqual(values);
  });

  it.each([[12], [4.5], [true], [false], ['text'], ['12'], ['true'], ['"quoted"'], ['01234'], ['a, b; c']])('custom value %j survives export then import', (value) => {
    expect(readCustomValue(writeCustomValue(value))).toEqual(value);
  });

  it('a custom field named like a contact field, or like a header import ignores, is exported so it reads back as itself', () => {
    const keys = ['status', 'Name', 'mobile', 'id', 'created_at', 'Email_Address', 'plan'];
    const header = exportHeader(keys);
    expect(header.slice(7)).toEqual(['custom_fields.status', 'custom_fields.Name', 'custom_fields.mobile', 'custom_fields.id', 'custom_fields.created_at', 'custom_fields.Email_Address', 'plan']);
    const row = contactToRow({ email: 'a@example.com', first_name: null, last_name: null, phone: null, status: 'SUBSCRIBED', tags: [], lists: [], custom_fields: { status: 'gold', Name: 'n', mobile: 1, id: 7, created_at: 'x', Email_Address: 'other', plan: true } }, keys);
    expect(rowToItem(mapHeader(header), row)).toEqual({
      email: 'a@example.com',
      status: 'SUBSCRIBED',
      customFields: { status: 'gold', Name: 'n', mobile: 1, id: 7, created_at: 'x', Email_Address: 'other', plan: true },
    });
  });

  it('export writes every field, status and list names included', () => {
    expect(exportHeader(['plan'])).toEqual(['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists', 'plan']);
    const row = contactToRow({ email: 'a@example.com', first_name: 'A', last_name: null, phone: null, status: 'UNSUBSCRIBED', tags: ['x', 'y'], lists: ['News'], custom_fields: { plan: true } }, ['plan']);
    expect(row).toEqual(['a@example.com', 'A', '', '', 'UNSUBSCRIBED', 'x;y', 'News', 'true']);
  });

  it.each([
    ['Company Name', 'company_name'],
    ['Date of Birth', 'date_of_birth'],
    ['  # Orders (total) ', 'orders_total'],
    ['2nd Address', 'nd_address'],
    ['Address 2', 'address_2'],
    ['Prénom', 'prenom'],
    ['e-mail opt-in?', 'e_mail_opt_in'],
    ['123', ''],
    ['日本語', ''],
    ['x'.repeat(70) + ' y', 'x'.repeat(64)],
  ])('D26.3: header %j becomes the key %j', (header, key) => {
    expect(snakeCaseKey(header)).toBe(key);
  });

  it.each<[string, string[], (string | null)[], { column: string; reason: RegExp }[]]>([
    ['a header that names no field is a custom field in snake case', ['Email Address', 'Company Name', 'Date of Birth'], ['email', 'company_name', 'date_of_birth'], []],
    ['a header that already is a key keeps its case (D17.6)', ['email', 'Plan', 'LATITUDE', 'zip_Code'], ['email', 'Plan', 'LATITUDE', 'zip_Code'], []],
    ['an empty header is listed', ['email', '', ' '], ['email', null, null], [{ column: '', reason: /^column 2 has no header$/ }, { column: ' ', reason: /^column 3 has no header$/ }]],
    ['of duplicate headers the first is kept', ['email', 'Company Name', 'company name'], ['email', 'company_name', null], [{ column: 'company name', reason: /duplicate header.*column 2/ }]],
    ['a snake form that collides is listed', ['email', 'company_name', 'Company Name'], ['email', 'company_name', null], [{ column: 'Company Name', reason: /column 2 \(company_name\) is the custom field company_name/ }]],
    ['two columns for one field keep the first', ['Email', 'Email Address'], ['email', null], [{ column: 'Email Address', reason: /column 1 \(Email\) is the field email/ }]],
    ['a header of which no key can be made is listed', ['email', '123'], ['email', null], [{ column: '123', reason: /no custom-field key/ }]],
    ["a tool's own columns are listed", ['email', 'MEMBER_RATING', 'LAST_CHANGED'], ['email', null, null], [{ column: 'MEMBER_RATING', reason: /keeps this for itself/ }, { column: 'LAST_CHANGED', reason: /keeps this for itself/ }]],
    ["Mailchimp's consent columns are mapped, not custom fields", ['Email Address', 'OPTIN_TIME', 'OPTIN_IP', 'CONFIRM_TIME', 'CONFIRM_IP'], ['email', 'optin_time', 'optin_ip', 'confirm_time', 'confirm_ip'], []],
  ])('D26.3: %s', (_, header, kept, ignored) => {
    const mapping = mapHeaderWithIgnored(header);
    expect(mapping.columns.map((c) => (c.kind === 'field' ? c.field : c.kind === 'custom' ? c.key : c.kind === 'consent' ? c.part : null))).toEqual(kept);
    expect(mapping.ignored).toEqual(ignored.map((i) => ({ column: i.column, reason: expect.stringMatching(i.reason) })));
  });

  it.each<[string, string[], Record<string, string>]>([
    ['the opt-in, read as UTC in D1\'s form', ['2024-03-01 10:22:33', '', '1.2.3.4', ''], { consentAt: '2024-03-01T10:22:33', consentIp: '1.2.3.4' }],
    ['the confirmation when later, with its address', ['2024-03-01 10:22:33', '2024-03-02 08:00:00', '1.2.3.4', '5.6.7.8'], { consentAt: '2024-03-02T08:00:00', consentIp: '5.6.7.8' }],
    ['the opt-in when the confirmation is earlier', ['2024-03-02 08:00:00', '2024-03-01 10:22:33', '1.2.3.4', '5.6.7.8'], { consentAt: '2024-03-02T08:00:00', consentIp: '1.2.3.4' }],
    ["the other's address when the chosen one has none", ['2024-03-01 10:22:33', '2024-03-02 08:00:00', '1.2.3.4', ''], { consentAt: '2024-03-02T08:00:00', consentIp: '1.2.3.4' }],
    ['nothing when the cells are empty', ['', '', '', ''], {}],
    ['other text as it is, for the service to judge', ['March 1st', '', '', ''], { consentAt: 'March 1st' }],
  ])("D26.3: Mailchimp's OPTIN_TIME and CONFIRM_TIME give the consent: %s", (_, cells, consent) => {
    const columns = mapHeader(['Email Address', 'OPTIN_TIME', 'CONFIRM_TIME', 'OPTIN_IP', 'CONFIRM_IP']);
    expect(rowToItem(columns, ['a@example.com', ...cells])).toEqual({ email: 'a@example.com', ...consent });
  });

  it('D26.3: a duplicate column does not overwrite the first', () => {
    expect(rowToItem(mapHeader(['Email', 'Company Name', 'Email Address', 'Company Name']), ['a@example.com', 'Acme', 'b@example.com', 'Other'])).toEqual({ email: 'a@example.com', customFields: { company_name: 'Acme' } });
  });

  it('D26.3: a custom field named like a consent column is exported so it reads back as itself', () => {
    expect(exportHeader(['OPTIN_TIME'])).toContain('custom_fields.OPTIN_TIME');
  });
});
