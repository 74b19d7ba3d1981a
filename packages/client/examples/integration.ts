/**
 * The integration guide's examples through the typed client: a list, a contact created and read
 * back, a bulk import, an event, a campaign's stats. test/client/client.test.ts runs this against a
 * real server, and `tsc -p packages/client` checks it under --strict.
 */
import type { SendwellClient } from '../src/index.ts';

/** openapi-fetch answers `{ data }` or `{ error }`; an example stops at the first error. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function integrationExamples(client: SendwellClient, campaignId: number) {
  const list = ok(await client.POST('/api/v1/lists', { body: { name: 'Newsletter', description: 'Monthly news' } }), 'create a list').data;

  const created = ok(
    await client.POST('/api/v1/contacts', {
      body: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', tags: ['vip'], custom_fields: { plan: 'pro' }, list_id: list.id },
    }),
    'create a contact',
  ).data;

  const contact = ok(await client.GET('/api/v1/contacts/{email}', { params: { path: { email: created.email } } }), 'read the contact').data;

  const bulk = ok(
    await client.POST('/v1/contacts/bulk', {
      body: {
        listId: String(list.id),
        contacts: [{ email: 'grace@example.com', name: 'Grace Hopper', tags: ['navy'] }, { email: 'alan@example.com', firstName: 'Alan', customFields: { score: 3 } }, { email: 'not an address' }],
        skipDuplicates: true,
      },
    }),
    'bulk import',
  );

  const event = ok(await client.POST('/v1/events', { body: { email: 'ada@example.com', event: 'purchase', data: { total: 42 } } }), 'send an event');

  const stats = ok(await client.GET('/v1/campaigns/{id}/stats', { params: { path: { id: campaignId } } }), 'campaign stats');

  return { list, contact, bulk, event, stats };
}
