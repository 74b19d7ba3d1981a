import { describe, expect, it } from 'vitest';
import { contactToRow, exportHeader, joinCell, mapHeader, parseColumnMap, readCustomValue, rowToItem, splitCell, writeCustomValue } from './csv-columns.ts';

describe('D17.6: CSV columns, one rule for the CLI and the dashboard', () => {
  it("reads other tools' headers in any case", () => {
    const columns = mapHeader(['Email Address', 'First Name', 'LASTNAME', 'Phone Number', 'Tags', 'E-mail', 'FIRSTNAME', 'Last Name', 'EMAIL']);
    expect(columns.map((c) => (c.kind === 'field' ? c.field : c.kind))).toEqual(['email', 'first_name', 'last_name', 'phone', 'tags', 'email', 'first_name', 'last_name', 'email']);
  });

  it('--map names other columns; unknown targets are refused', () => {
    const map = parseColumnMap('Correo=email, Nombre=first_name,Plan=custom_fields.plan,Junk=ignore');
    const columns = mapHeader(['Correo', 'Nombre', 'Plan', 'Junk'], map);
    expect(columns).toEqual([{ kind: 'field', field: 'email' }, { kind: 'field', field: 'first_name' }, { kind: 'custom', key: 'plan' }, { kind: 'ignored' }]);
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
    expect(rowToItem(mapHeader(['Email Address', 'Member Status']), ['a@example.com', 'cleaned'])).toEqual({ email: 'a@example.com' });
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
});
