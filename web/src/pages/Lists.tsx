import { Alert, Badge, Button, Group, Modal, SegmentedControl, Stack, Switch, Table, Text, TextInput, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { lists as listsApi, type Schemas } from '../api.ts';
import { DeleteButton } from '../components/ConfirmButton.tsx';
import { DataTable, FormActions, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { Can } from '../components/Can.tsx';
import { PreferenceFields } from './PreferenceFields.tsx';

/** The API's list, from the types generated off the served OpenAPI document. */
export type ContactList = Schemas['ContactList'];

/** Every list of the account (pages of 100), for pickers. */
export const allLists = listsApi.all;

export function ListsPage() {
  const lists = useLoad(allLists, []);
  const [editing, setEditing] = useState<ContactList | 'new' | null>(null);
  return (
    <Stack>
      <PageHeader title="Lists">
        <Can need="lists.write">
          <Button onClick={() => setEditing('new')}>New list</Button>
        </Can>
      </PageHeader>
      <PageState loading={lists.loading} error={lists.error} onRetry={lists.reload} empty={lists.data?.length === 0} emptyText="No lists yet. Create one to group contacts for campaigns.">
        <DataTable label="Lists" columns={['Name', 'Members', 'Status', 'Opt-in', 'Created', 'Actions']}>
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
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Badge variant="light" color={l.opt_in === 'double' ? 'blue' : 'gray'}>
                    {l.opt_in === 'double' ? 'Double opt-in' : 'Single opt-in'}
                  </Badge>
                  {l.is_public && <Badge variant="outline">Public</Badge>}
                </Group>
              </Table.Td>
              <Table.Td>{when(l.created_at)}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Can need="lists.write">
                    <Button size="xs" variant="default" onClick={() => setEditing(l)} aria-label={`Edit ${l.name}`}>
                      Edit
                    </Button>
                  </Can>
                  <DeleteButton
                    need="lists.write"
                    noun="list"
                    name={l.name}
                    message={<ListUse listId={l.id} />}
                    onConfirm={async () => {
                      await listsApi.remove(l.id);
                      await lists.reload();
                    }}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
      <PreferenceFields />
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
  const [optIn, setOptIn] = useState<ContactList['opt_in']>(list?.opt_in ?? 'single');
  const [isPublic, setIsPublic] = useState(list?.is_public ?? false);
  const [subject, setSubject] = useState(list?.confirmation_subject ?? '');
  const [text, setText] = useState(list?.confirmation_text ?? '');
  const action = useAction();
  async function submit(e: FormEvent) {
    e.preventDefault();
    // D20: blank subject or text means the default confirmation mail.
    const body = { name, description: description || null, is_active: active, opt_in: optIn, is_public: isPublic, confirmation_subject: subject.trim() || null, confirmation_text: text.trim() || null };
    const ok = await action.run(() => (list ? listsApi.update(list.id, body) : listsApi.create(body)));
    if (ok) onSaved();
  }
  return (
    <Modal opened onClose={onClose} title={list ? `Edit “${list.name}”` : 'New list'} centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="List name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Switch
            label="Active"
            description="A marker for your team: switch it off for a list you no longer use. It changes nothing else: campaigns can still be sent to an inactive list, and its forms still take sign-ups."
            checked={active}
            onChange={(e) => setActive(e.currentTarget.checked)}
          />
          <Switch
            label="Public"
            description={
              isPublic
                ? 'Subscribers see this list in their preference centre and can join or leave it there, and sign-up forms can add people to it.'
                : 'Private: subscribers never see this list, and forms cannot use it. People join it only when you add them (import, the API, automations).'
            }
            checked={isPublic}
            onChange={(e) => setIsPublic(e.currentTarget.checked)}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="opt-in-label">
              Opt-in
            </Text>
            <SegmentedControl
              aria-labelledby="opt-in-label"
              value={optIn}
              onChange={(v) => setOptIn(v as ContactList['opt_in'])}
              data={[
                { value: 'single', label: 'Single' },
                { value: 'double', label: 'Double' },
              ]}
            />
            <Text size="xs" c="dimmed">
              {optIn === 'double'
                ? 'Sign-ups that ask for double opt-in wait until the person confirms by e-mail; until then they get no campaigns.'
                : 'Sign-ups are subscribed at once.'}
            </Text>
          </Stack>
          {optIn === 'double' && (
            <>
              <TextInput label="Confirmation mail subject" placeholder="Please confirm your subscription to …" maxLength={200} value={subject} onChange={(e) => setSubject(e.currentTarget.value)} />
              <Textarea
                label="Confirmation mail text"
                description="Plain text. Put {{ confirm_url }} where the confirmation link goes. Leave empty for the default text."
                autosize
                minRows={3}
                maxLength={5000}
                value={text}
                onChange={(e) => setText(e.currentTarget.value)}
              />
            </>
          )}
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel="Save list" />
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * D26.1, said before it deletes: the forms and sending campaigns that hold the list, read when the
 * dialog opens (the API refuses the delete while any does, in the same words).
 */
function ListUse({ listId }: { listId: number }) {
  const list = useLoad(() => listsApi.get(listId), [listId]);
  const usedBy = list.data?.used_by ?? [];
  if (usedBy.length === 0) return <>Its memberships are removed; the contacts stay.</>;
  return (
    <Alert color="yellow" title="This list is in use" role="status">
      Used by {usedBy.join(', ')}. It cannot be deleted until they no longer use it: take it out of the forms, and unschedule the campaigns or let them finish.
    </Alert>
  );
}
