/**
 * D26.3: a CSV import loses no column without saying so. The dashboard reads the file with
 * csv-columns.ts (the rule `sendwell import` uses too) and sends its rows to POST
 * /v1/contacts/bulk: a header that names no field is a custom field in lower snake case, the
 * columns not kept are listed with why, and Mailchimp's OPTIN_TIME or CONFIRM_TIME dates the
 * IMPORT consent record through the bulk item's `consentAt`.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapHeader, rowToItem } from '../../src/domain/contacts/csv-columns.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;
const call = (method: string, path: string, body?: unknown) => t.call(method, path, body);

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
});
afterAll(() => server.close());

/** A file as the dashboard sends it: its rows as bulk items, and the columns it lists as not imported. */
function readCsv(text: string) {
  const [header, ...rows] = parse(text) as string[][];
  const { columns, ignored } = mapHeader(header);
  return { contacts: rows.map((cells) => rowToItem(columns, cells)), ignored };
}

const MAILCHIMP = [
  'Email Address,First Name,Company Name,Date of Birth,,OPTIN_TIME,CONFIRM_TIME,Company Name',
  'ann@mailchimp.test,Ann,Acme Ltd,1990-04-01,x,2024-03-01 10:22:33,2024-03-02 08:15:00,Other Co',
  'bo@mailchimp.test,Bo,Bolt Inc,,y,2024-03-05 09:00:00,,',
].join('\n');

describe('D26.3: a Mailchimp export through the bulk import', () => {
  it('keeps Company Name and Date of Birth as custom fields, lists the empty and the second Company Name column, and dates the consent by OPTIN_TIME or a later CONFIRM_TIME', async () => {
    const { contacts, ignored } = readCsv(MAILCHIMP);
    expect(ignored).toEqual([
      { column: '', reason: 'column 5 has no header' },
      { column: 'Company Name', reason: 'a duplicate header: the first, column 3, is kept' },
    ]);
    const listId = await t.list('Mailchimp audience');
    const res = await call('POST', '/v1/contacts/bulk', { listId: String(listId), contacts });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ created: 2, failed: 0, errors: [] });

    const ann = await t.getContact('ann@mailchimp.test');
    expect(ann).toMatchObject({ first_name: 'Ann', custom_fields: { company_name: 'Acme Ltd', date_of_birth: '1990-04-01' }, list_ids: [listId] });
    expect(Object.keys(ann.custom_fields).sort()).toEqual(['company_name', 'date_of_birth']);
    expect((await t.getContact('bo@mailchimp.test')).custom_fields).toEqual({ company_name: 'Bolt Inc' });

    // Mailchimp's times are UTC: the confirmation, later than the opt-in, is when Ann consented; Bo has only an opt-in.
    const annConsents = (await call('GET', '/api/v1/contacts/ann@mailchimp.test/consents')).body.data.consents;
    expect(annConsents).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [listId], at: '2024-03-02T08:15:00' })]);
    const boConsents = (await call('GET', '/api/v1/contacts/bo@mailchimp.test/consents')).body.data.consents;
    expect(boConsents).toEqual([expect.objectContaining({ source: 'IMPORT', at: '2024-03-05T09:00:00' })]);
  });

  it("takes the address of the consent chosen from OPTIN_IP or CONFIRM_IP, for a contact that already existed too", async () => {
    await t.contact({ email: 'cy@mailchimp.test' });
    const { contacts } = readCsv(['Email Address,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP', 'cy@mailchimp.test,2024-01-10 12:00:00,192.0.2.7,,'].join('\n'));
    const listId = await t.list('Existing');
    const res = await call('POST', '/v1/contacts/bulk', { listId: String(listId), contacts });
    expect(res.body).toMatchObject({ created: 0, skipped: 1, failed: 0 });
    const consents = (await call('GET', '/api/v1/contacts/cy@mailchimp.test/consents')).body.data.consents;
    expect(consents).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [listId], ip: '192.0.2.7', at: '2024-01-10T12:00:00' })]);
  });

  it('without a consent time the record is dated by the import, as before', async () => {
    const listId = await t.list('Plain');
    const before = new Date().toISOString().slice(0, 19);
    expect((await call('POST', '/v1/contacts/bulk', { listId: String(listId), contacts: [{ email: 'dee@mailchimp.test' }] })).body).toMatchObject({ created: 1 });
    const [consent] = (await call('GET', '/api/v1/contacts/dee@mailchimp.test/consents')).body.data.consents;
    expect(consent.ip).toBeNull();
    expect(consent.at >= before).toBe(true);
  });

  it.each([
    ['a time that is not one', { consentAt: 'March 1st' }, /consentAt must be an ISO 8601 date-time/],
    ['a time in the future', { consentAt: '2999-01-01T00:00:00' }, /consentAt must not be in the future/],
    ['an address that is not one', { consentIp: 'localhost' }, /consentIp must be an IPv4 or IPv6 address/],
  ])('an item with %s fails alone, saying why', async (_, consent, message) => {
    const res = await call('POST', '/v1/contacts/bulk', { contacts: [{ email: 'ok@mailchimp.test' }, { email: 'bad@mailchimp.test', ...consent }] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ failed: 1, errors: [{ index: 1, email: 'bad@mailchimp.test', message: expect.stringMatching(message) }] });
  });
});
