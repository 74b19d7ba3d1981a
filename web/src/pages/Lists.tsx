import { Badge, Button, Group, Modal, Stack, Switch, Table, Text, TextInput, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { del, getAll, post, put } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable, FormActions, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import type { components } from '../../../packages/client/src/schema.d.ts';

/** The API's list, from the types generated off the served OpenAPI document. */
export type ContactList = components['schemas']['ContactList'];

/** Every list of the account (pages of 100), for pickers. */
export const allLists = () => getAll<ContactList>('/api/v1/lists', 'lists');

export function ListsPage() {
  const lists = useLoad(allLists, []);
  const [editing, setEditing] = useState<ContactList | 'new' | null>(null);
  return (
    <Stack>
      <PageHeader title="Lists">
        <Button onClick={() => setEditing('new')}>New list</Button>
      </PageHeader>
      <PageState loading={lists.loading} error={lists.error} onRetry={lists.reload} empty={lists.data?.length === 0} emptyText="No lists yet. Create one to group contacts for campaigns.">
        <DataTable label="Lists" columns={['Name', 'Members', 'Status', 'Created', 'Actions']}>
          {lists.data?.map((l) => (
            <Table.Tr key={l.id}>
              <Table.Td>
                <Text fw={500}>{l.name}</Text>
                {l.description && (
                  <Text size="xs" c="dimmed">
                    {l.description}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Link to={`/contacts?list_id=${l.id}`}>{count(l.contact_count)} contacts</Link>
              </Table.Td>
              <Table.Td>{l.is_active ? <Badge color="green">Active</Badge> : <Badge color="gray">Inactive</Badge>}</Table.Td>
              <Table.Td>{when(l.created_at)}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button size="xs" variant="default" onClick={() => setEditing(l)} aria-label={`Edit ${l.name}`}>
                    Edit
                  </Button>
                  <ConfirmButton
                    size="xs"
                    variant="light"
                    color="red"
                    label="Delete"
                    aria-label={`Delete ${l.name}`}
                    title={`Delete the list “${l.name}”?`}
                    message="Its memberships are removed; the contacts stay."
                    confirmLabel="Delete list"
                    onConfirm={async () => {
                      await del(`/api/v1/lists/${l.id}`);
                      await lists.reload();
                    }}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
      {editing && (
        <ListModal
          list={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void lists.reload();
          }}
        />
      )}
    </Stack>
  );
}

function ListModal({ list, onClose, onSaved }: { list: ContactList | null; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(list?.name ?? '');
  const [description, setDescription] = useState(list?.description ?? '');
  const [active, setActive] = useState(list?.is_active ?? true);
  const action = useAction();
  async function submit(e: FormEvent) {
    e.preventDefault();
    const body = { name, description: description || null, is_active: active };
    const ok = await action.run(() => (list ? put(`/api/v1/lists/${list.id}`, body) : post('/api/v1/lists', body)));
    if (ok) onSaved();
  }
  return (
    <Modal opened onClose={onClose} title={list ? `Edit “${list.name}”` : 'New list'} centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="List name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Switch label="Active" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel="Save list" />
        </Stack>
      </form>
    </Modal>
  );
}
