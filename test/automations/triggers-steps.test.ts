import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { activeAutomation, allEnded, event, runsOf, waitForRuns, type Run } from './helpers.ts';

// D15: every trigger fires from every path that makes the change, every step does what it says,
// and the re-entry rule holds. The runner runs in the test server as in the sender role.

let server: TestServer;
const at = addressMaker('trig');
const bulk = (t: Tenant, body: unknown) => server.request('POST', '/v1/contacts/bulk', { key: t.key, body });
const emailsOf = (runs: Run[]) => runs.map((r) => r.email).sort();
const mark = (tag: string) => [{ type: 'ADD_TAG', tag }];

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  server.sender.automationRunner.start();
});
afterAll(() => server?.close());

describe('D15 triggers fire from every path', () => {
  it('CONTACT_CREATED: reference API, bulk import, an event for an unknown e-mail', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'CONTACT_CREATED' }, steps: mark('created') });
    await t.contact({ email: at('api') });
    await bulk(t, { contacts: [{ email: at('bulk1') }, { email: at('bulk2') }] });
    expect((await event(server, t.key, { email: at('evt'), event: 'anything' })).status).toBe(202);
    // an existing contact's event creates nothing
    await event(server, t.key, { email: at('api'), event: 'again' });
    const runs = await waitForRuns(t, id, allEnded(4));
    expect(emailsOf(runs)).toEqual([at('api'), at('bulk1'), at('bulk2'), at('evt')].sort());
    expect(runs.every((r) => r.status === 'COMPLETED' && r.trigger_type === 'CONTACT_CREATED')).toBe(true);
    expect((await t.getContact(at('bulk2'))).tags).toEqual(['created']);
  });

  it('TAG_ADDED: API create and update, bulk create and update, another automation step (tags compare case-insensitively)', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'VIP' }, steps: mark('vip-seen') });
    await activeAutomation(t, { trigger: { type: 'EVENT', event: 'promote' }, steps: [{ type: 'ADD_TAG', tag: 'vip' }] });
    await t.contact({ email: at('create'), tags: ['vip'] });
    await t.contact({ email: at('update'), tags: ['other'] });
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('update'))}`, { tags: ['other', 'Vip'] });
    // an update that keeps the tag adds nothing
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('create'))}`, { tags: ['VIP', 'x'] });
    await t.contact({ email: at('bulkupd') });
    await bulk(t, { contacts: [{ email: at('bulknew'), tags: ['vip'] }] });
    await bulk(t, { skipDuplicates: false, contacts: [{ email: at('bulkupd'), tags: ['vip'] }] });
    await event(server, t.key, { email: at('step'), event: 'promote' });
    const runs = await waitForRuns(t, id, allEnded(5));
    expect(emailsOf(runs)).toEqual([at('create'), at('update'), at('bulknew'), at('bulkupd'), at('step')].sort());
    expect((await t.getContact(at('step'))).tags).toEqual(['vip', 'vip-seen']);
  });

  it('TAG_REMOVED: API update, bulk update, another automation step', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'TAG_REMOVED', tag: 'trial' }, steps: mark('trial-over') });
    await activeAutomation(t, { trigger: { type: 'EVENT', event: 'paid' }, steps: [{ type: 'REMOVE_TAG', tag: 'TRIAL' }] });
    for (const name of ['api', 'bulk', 'step']) await t.contact({ email: at(`rm-${name}`), tags: ['trial'] });
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('rm-api'))}`, { tags: [] });
    await bulk(t, { skipDuplicates: false, contacts: [{ email: at('rm-bulk'), tags: ['other'] }] });
    await event(server, t.key, { email: at('rm-step'), event: 'paid' });
    const runs = await waitForRuns(t, id, allEnded(3));
    expect(emailsOf(runs)).toEqual([at('rm-api'), at('rm-bulk'), at('rm-step')].sort());
  });

  it('LIST_JOINED: API create/update with list_id, the list members API, bulk with listId, another automation step', async () => {
    const t = await tenant(server);
    const listId = await t.list('joined');
    const otherList = await t.list('other');
    const id = await activeAutomation(t, { trigger: { type: 'LIST_JOINED', list_id: listId }, steps: mark('joined') });
    await activeAutomation(t, { trigger: { type: 'EVENT', event: 'join' }, steps: [{ type: 'ADD_TO_LIST', list_id: listId }] });
    await t.contact({ email: at('j-create'), list_id: listId });
    await t.contact({ email: at('j-update') });
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('j-update'))}`, { list_id: listId });
    await t.contact({ email: at('j-members') });
    await t.addToList(listId, [at('j-members'), at('j-create')]); // already a member: no second run
    await bulk(t, { listId: String(listId), contacts: [{ email: at('j-bulk') }] });
    await bulk(t, { listId: String(otherList), contacts: [{ email: at('j-otherlist') }] });
    await event(server, t.key, { email: at('j-step'), event: 'join' });
    const runs = await waitForRuns(t, id, allEnded(5));
    expect(emailsOf(runs)).toEqual([at('j-create'), at('j-update'), at('j-members'), at('j-bulk'), at('j-step')].sort());
  });

  it('EVENT: by exact name; inactive and other-account automations start nothing', async () => {
    const t = await tenant(server);
    const other = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'order_placed' }, steps: mark('ordered') });
    const inactive = (await t.call('POST', '/api/v1/automations', { name: 'off', trigger: { type: 'EVENT', event: 'order_placed' }, steps: mark('x') })).body.data.id;
    const theirs = await activeAutomation(other, { trigger: { type: 'EVENT', event: 'order_placed' }, steps: mark('x') });
    await event(server, t.key, { email: at('ev1'), event: 'order_placed' });
    await event(server, t.key, { email: at('ev2'), event: 'Order_Placed' });
    const runs = await waitForRuns(t, id, allEnded(1));
    expect(emailsOf(runs)).toEqual([at('ev1')]);
    expect(await runsOf(t, inactive)).toEqual([]);
    expect(await runsOf(other, theirs)).toEqual([]);
  });
});

describe('D15 steps', () => {
  it('ADD_TAG, REMOVE_TAG, ADD_TO_LIST, REMOVE_FROM_LIST, UPDATE_LEAD_SCORE run in order, each logged', async () => {
    const t = await tenant(server);
    const keep = await t.list('keep');
    const leave = await t.list('leave');
    await t.contact({ email: at('steps'), tags: ['old'], list_id: leave });
    const id = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: 'go' },
      steps: [
        { type: 'ADD_TAG', tag: 'new' },
        { type: 'REMOVE_TAG', tag: 'OLD' },
        { type: 'ADD_TO_LIST', list_id: keep },
        { type: 'REMOVE_FROM_LIST', list_id: leave },
        { type: 'UPDATE_LEAD_SCORE', delta: 7 },
        { type: 'UPDATE_LEAD_SCORE', delta: -2 },
        { type: 'ADD_TAG', tag: 'NEW' },
      ],
    });
    await event(server, t.key, { email: at('steps'), event: 'go' });
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run).toMatchObject({ status: 'COMPLETED', current_step: null, ended_reason: null });
    expect(run.history.map((h: any) => [h.step_index, h.type, h.status])).toEqual([
      [0, 'ADD_TAG', 'DONE'],
      [1, 'REMOVE_TAG', 'DONE'],
      [2, 'ADD_TO_LIST', 'DONE'],
      [3, 'REMOVE_FROM_LIST', 'DONE'],
      [4, 'UPDATE_LEAD_SCORE', 'DONE'],
      [5, 'UPDATE_LEAD_SCORE', 'DONE'],
      [6, 'ADD_TAG', 'SKIPPED'],
    ]);
    const contact = await t.getContact(at('steps'));
    expect(contact).toMatchObject({ tags: ['new'], list_ids: [keep], lead_score: 5 });
    expect((await t.call('GET', `/api/v1/lists/${leave}`)).body.data.contact_count).toBe(0);
    expect((await t.call('GET', `/api/v1/lists/${keep}`)).body.data.contact_count).toBe(1);
  });

  it('CONDITION on event data, tags, fields and status: true goes on, false ends the run (EXITED)', async () => {
    const t = await tenant(server);
    await t.contact({ email: at('rich'), tags: ['VIP'], custom_fields: { plan: 'gold' } });
    await t.contact({ email: at('poor'), custom_fields: { plan: 'free' } });
    const id = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: 'order' },
      allow_reentry: true,
      steps: [
        { type: 'CONDITION', field: 'event.order.total', op: 'gte', value: 100 },
        { type: 'CONDITION', field: 'tags', op: 'contains', value: 'vip' },
        { type: 'CONDITION', field: 'custom_fields.plan', op: 'equals', value: 'gold' },
        { type: 'CONDITION', field: 'status', op: 'equals', value: 'SUBSCRIBED' },
        { type: 'ADD_TAG', tag: 'big-spender' },
      ],
    });
    await event(server, t.key, { email: at('rich'), event: 'order', data: { order: { total: 150 } } });
    await event(server, t.key, { email: at('poor'), event: 'order', data: { order: { total: 150 } } });
    await event(server, t.key, { email: at('rich'), event: 'order', data: { order: { total: 5 } } });
    const runs = await waitForRuns(t, id, allEnded(3));
    const outcome = runs.map((r) => [r.email, r.status, r.history.length]).sort();
    expect(outcome).toEqual(
      [
        [at('poor'), 'EXITED', 2],
        [at('rich'), 'COMPLETED', 5],
        [at('rich'), 'EXITED', 1],
      ].sort(),
    );
    const exited = runs.find((r) => r.email === at('poor'))!;
    expect(exited.history[1]).toMatchObject({ type: 'CONDITION', status: 'FALSE' });
    expect(exited.ended_reason).toMatch(/CONDITION/);
    expect((await t.getContact(at('rich'))).tags).toEqual(['VIP', 'big-spender']);
    expect((await t.getContact(at('poor'))).tags).toEqual([]);
  });

  it('WAIT holds the run with a due time in the database, then goes on when it comes', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'w' }, steps: [{ type: 'WAIT', seconds: 3600 }, { type: 'ADD_TAG', tag: 'waited' }] });
    await event(server, t.key, { email: at('wait'), event: 'w' });
    // (a run and its history are read by two queries: wait until both show the WAIT done)
    const [waiting] = await waitForRuns(t, id, (runs) => runs.length === 1 && runs[0].history.length === 1 && runs[0].current_step === 1);
    expect(waiting).toMatchObject({ status: 'ACTIVE', current_step: 1, current_step_type: 'ADD_TAG' });
    expect(Date.parse(waiting.due_at + 'Z') - Date.parse(waiting.history[0].started_at + 'Z')).toBeGreaterThanOrEqual(3599_000);
    expect((await t.getContact(at('wait'))).tags).toEqual([]);
    // The due time comes (moved to now, as an hour passing would).
    await server.db.updateTable('automation_runs').set({ due_at: new Date().toISOString() }).where('id', '=', waiting.id).execute();
    const [done] = await waitForRuns(t, id, allEnded(1));
    expect(done.history.map((h: any) => h.type)).toEqual(['WAIT', 'ADD_TAG']);
    expect((await t.getContact(at('wait'))).tags).toEqual(['waited']);
  });
});

describe('D15 re-entry', () => {
  /** Brings a waiting run's due time to now, as if its WAIT had passed. */
  const fastForward = (automationId: number) => server.db.updateTable('automation_runs').set({ due_at: new Date().toISOString() }).where('automation_id', '=', automationId).where('status', '=', 'ACTIVE').execute();

  it('without allow_reentry a contact is in at most one active run; after it ends, a new trigger starts a new run', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'r' }, steps: [{ type: 'WAIT', seconds: 3600 }, { type: 'ADD_TAG', tag: 'x' }] });
    await event(server, t.key, { email: at('once'), event: 'r' });
    await event(server, t.key, { email: at('once'), event: 'r' });
    await bulk(t, { contacts: [{ email: at('once') }] });
    expect(await runsOf(t, id)).toHaveLength(1);
    await waitForRuns(t, id, (runs) => runs[0].history.length === 1);
    await fastForward(id);
    await waitForRuns(t, id, allEnded(1));
    await event(server, t.key, { email: at('once'), event: 'r' });
    const runs = await runsOf(t, id);
    expect(runs.map((r) => r.status).sort()).toEqual(['ACTIVE', 'COMPLETED']);
  });

  it('with allow_reentry every trigger starts a run, even while another is active', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'r' }, allow_reentry: true, steps: [{ type: 'WAIT', seconds: 3600 }] });
    for (let i = 0; i < 3; i++) await event(server, t.key, { email: at('many'), event: 'r' });
    const runs = await runsOf(t, id);
    expect(runs.map((r) => [r.email, r.status])).toEqual(Array.from({ length: 3 }, () => [at('many'), 'ACTIVE']));
    await waitForRuns(t, id, (all) => all.every((r) => r.history.length === 1));
    await fastForward(id);
    await waitForRuns(t, id, allEnded(3));
  });

  it('a deactivated automation starts no new runs; a deleted one takes its runs with it', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'd' }, steps: mark('d') });
    await t.call('POST', `/api/v1/automations/${id}/deactivate`);
    await event(server, t.key, { email: at('deact'), event: 'd' });
    expect(await runsOf(t, id)).toEqual([]);
    await t.call('POST', `/api/v1/automations/${id}/activate`);
    await event(server, t.key, { email: at('deact'), event: 'd' });
    await waitForRuns(t, id, allEnded(1));
    await t.call('DELETE', `/api/v1/automations/${id}`);
    const left = await server.db.selectFrom('automation_runs').select('id').where('automation_id', '=', id).execute();
    expect(left).toEqual([]);
  });
});
