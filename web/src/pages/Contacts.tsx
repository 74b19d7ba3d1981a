import { Badge, Button, Group, Modal, Pagination, Select, Stack, Table, TagsInput, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { contacts as contactsApi, type Schemas } from '../api.ts';
import { DataTable, FormActions, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { ImportContactsModal } from '../components/ImportContactsModal.tsx';
import { downloadBlob } from '../download.ts';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { allLists } from './Lists.tsx';
import { allSegments } from './Segments.tsx';
import { Can } from '../components/Can.tsx';

/** The API's contact, from the types generated off the served OpenAPI document. */
export type Contact = Schemas['Contact'];

export const STATUS_COLOR = { SUBSCRIBED: 'green', UNSUBSCRIBED: 'gray', BOUNCED: 'orange', COMPLAINED: 'red' } as const;
const STATUSES = Object.keys(STATUS_COLOR);

/** An id from the address bar; none when it is not set. */
const idParam = (value: string) => (value ? Number(value) : undefined);

export function ContactsPage() {
  const [params, setParams] = useSearchParams();
  const filter = { search: params.get('search') ?? '', tag: params.get('tag') ?? '', list_id: params.get('list_id') ?? '', status: params.get('status') ?? '', segment_id: params.get('segment_id') ?? '' };
  const page = Number(params.get('page') ?? 0);
  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) (v ? next.set(k, v) : next.delete(k));
    if (!('page' in changes)) next.delete('page');
    setParams(next, { replace: true });
  };
  const query = { ...filter, list_id: idParam(filter.list_id), segment_id: idParam(filter.segment_id), status: (filter.status || undefined) as Contact['status'] | undefined, page, size: 25 };
  const contacts = useLoad(() => contactsApi.page(query), [params.toString()]);
  const lists = useLoad(allLists, []);
  const segments = useLoad(allSegments, []);
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const listOptions = (lists.data ?? []).map((l) => ({ value: String(l.id), label: l.name }));
  const exporting = useAction();
  // Issue 34: the filters shown, as the CSV file `sendwell export` writes (D17.6).
  const exportCsv = () => exporting.run(async () => downloadBlob('contacts.csv', await contactsApi.exportCsv({ search: query.search, tag: query.tag, list_id: query.list_id, status: query.status, segment_id: query.segment_id })));

  return (
    <Stack>
      <PageHeader title="Contacts">
        <Can need="contacts.read">
          <Button variant="default" onClick={() => void exportCsv()} loading={exporting.busy}>
            Export CSV
          </Button>
        </Can>
        <Can need="contacts.write">
          <Button variant="default" onClick={() => setImporting(true)}>
            Import CSV
          </Button>
        </Can>
        <Can need="contacts.write">
          <Button onClick={() => setCreating(true)}>New contact</Button>
        </Can>
      </PageHeader>
      <Group align="end" wrap="wrap">
        <TextInput label="Search" placeholder="E-mail or name" value={filter.search} onChange={(e) => set({ search: e.currentTarget.value })} />
        <TextInput label="Tag" placeholder="vip" value={filter.tag} onChange={(e) => set({ tag: e.currentTarget.value })} />
        <Select label="List" placeholder="Any list" clearable data={listOptions} value={filter.list_id || null} onChange={(v) => set({ list_id: v ?? '' })} />
        <Select label="Status" placeholder="Any status" clearable data={STATUSES} value={filter.status || null} onChange={(v) => set({ status: v ?? '' })} />
        <Select label="Segment" placeholder="Any segment" clearable data={(segments.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))} value={filter.segment_id || null} onChange={(v) => set({ segment_id: v ?? '' })} />
      </Group>
      <ErrorText error={exporting.error} />
      <PageState loading={contacts.loading} error={contacts.error} onRetry={contacts.reload} empty={contacts.data?.items.length === 0} emptyText="No contacts match. Add one or import a CSV file.">
        <Text size="sm" c="dimmed">
          {contacts.data?.totalElements ?? 0} contacts
        </Text>
        <DataTable label="Contacts" columns={['E-mail', 'Name', 'Tags', 'Status', 'Lead score', 'Added']}>
          {contacts.data?.items.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Link to={`/contacts/${encodeURIComponent(c.email)}`}>{c.email}</Link>
              </Table.Td>
              <Table.Td>{[c.first_name, c.last_name].filter(Boolean).join(' ') || '—'}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {c.tags.map((t) => (
                    <Badge key={t} variant="light" size="sm">
                      {t}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>
                <Badge color={STATUS_COLOR[c.status]}>{c.status}</Badge>
              </Table.Td>
              <Table.Td>{c.lead_score}</Table.Td>
              <Table.Td>{when(c.created_at)}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(contacts.data?.totalPages ?? 0) > 1 && <Pagination total={contacts.data!.totalPages} value={page + 1} onChange={(p) => set({ page: String(p - 1) })} />}
      </PageState>
      {creating && (
        <NewContactModal
          listOptions={listOptions}
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            void contacts.reload();
          }}
        />
      )}
      {importing && (
        <ImportContactsModal
          listOptions={listOptions}
          onClose={() => {
            setImporting(false);
            void contacts.reload();
            void lists.reload();
          }}
        />
      )}
    </Stack>
  );
}

function NewContactModal({ listOptions, onClose, onCreated }: { listOptions: { value: string; label: string }[]; onClose: () => void; onCreated: () => void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [listId, setListId] = useState<string | null>(null);
  const action = useAction();
  async function submit(e: FormEvent) {
    e.preventDefault();
    const ok = await action.run(() => contactsApi.create({ email, first_name: firstName || null, last_name: lastName || null, tags, list_id: listId ? Number(listId) : null }));
    if (ok) onCreated();
  }
  return (
    <Modal opened onClose={onClose} title="New contact" centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <Group grow>
            <TextInput label="First name" value={firstName} onChange={(e) => setFirstName(e.currentTarget.value)} />
            <TextInput label="Last name" value={lastName} onChange={(e) => setLastName(e.currentTarget.value)} />
          </Group>
          <TagsInput label="Tags" placeholder="Type a tag and press Enter" value={tags} onChange={setTags} />
          <Select label="Add to list" placeholder="No list" clearable data={listOptions} value={listId} onChange={setListId} />
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel="Add contact" />
        </Stack>
      </form>
    </Modal>
  );
}
