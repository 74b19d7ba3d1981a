import { Badge, Button, Checkbox, CopyButton, Group, Menu, Modal, Paper, SegmentedControl, Stack, Table, Text, TextInput, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { apiKeys, type ApiKeySummary, type Schemas } from '../api.ts';
import { DataTable, FormActions, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { count, fromLocalInput, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';

type ApiKey = Schemas['ApiKey'];
type Permission = ApiKey['permissions'][number];

const PERMISSIONS = [
  ['contacts.read', 'Read contacts'],
  ['contacts.write', 'Create and edit contacts'],
  ['contacts.delete', 'Delete contacts'],
  ['lists.read', 'Read lists'],
  ['lists.write', 'Create and edit lists'],
  ['campaigns.read', 'Read campaigns and statistics'],
  ['campaigns.write', 'Create and edit campaigns'],
  ['campaigns.send', 'Send and schedule campaigns'],
  ['automation.read', 'Read automations'],
  ['automation.write', 'Create and edit automations'],
  ['*', 'Everything (full access, including key management)'],
] as const;

const STATUS_COLOR = { Active: 'green', Revoked: 'gray', Expired: 'orange' } as const;

export function KeysPage() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<'all' | ApiKey['status']>('all');
  const [creating, setCreating] = useState(false);
  const [shownValue, setShownValue] = useState<{ title: string; key: string } | null>(null);
  const keys = useLoad(() => apiKeys.page({ search, status, size: 100 }), [search, status]);
  const summary = useLoad(() => apiKeys.summary(), []);
  const reload = async () => {
    await Promise.all([keys.reload(), summary.reload()]);
  };

  return (
    <Stack>
      <PageHeader title="API keys">
        <Button variant="default" onClick={() => void reload()}>
          Refresh
        </Button>
        <Button onClick={() => setCreating(true)}>Create key</Button>
      </PageHeader>

      <PageState loading={summary.loading} error={summary.error} empty={!summary.data}>
        {summary.data && <SummaryCards summary={summary.data} />}
      </PageState>

      <Group align="end" wrap="wrap">
        <TextInput label="Search keys" placeholder="Name or part of the key" value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
        <div>
          <Text size="sm" fw={500} mb={4} id="status-filter-label">
            Status
          </Text>
          <SegmentedControl aria-labelledby="status-filter-label" value={status} onChange={(v) => setStatus(v as ApiKey['status'])} data={[{ value: 'all', label: 'All' }, 'Active', 'Revoked', 'Expired']} />
        </div>
      </Group>

      <PageState loading={keys.loading} error={keys.error} onRetry={keys.reload} empty={keys.data?.items.length === 0} emptyText={search || status !== 'all' ? 'No key matches.' : 'No API keys yet. Create one to connect an integration.'}>
        <DataTable label="API keys" columns={['Name', 'Key', 'Permissions', 'Status', 'Requests', 'Last used', 'Expires', 'Actions']}>
          {keys.data?.items.map((k) => (
            <KeyRow key={k.id} apiKey={k} onChanged={reload} onNewValue={(key) => setShownValue({ title: `New value for ${k.name}`, key })} />
          ))}
        </DataTable>
      </PageState>

      <CreateKeyModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(name, key) => {
          setCreating(false);
          setShownValue({ title: `Key “${name}” created`, key });
          void reload();
        }}
      />
      <Modal opened={shownValue !== null} onClose={() => setShownValue(null)} title={shownValue?.title} centered size="lg">
        {shownValue && <KeyValue value={shownValue.key} onDone={() => setShownValue(null)} />}
      </Modal>
    </Stack>
  );
}

function SummaryCards({ summary }: { summary: ApiKeySummary }) {
  const cards = [
    ['Total keys', summary.total],
    ['Active', summary.active],
    ['Inactive', summary.inactive],
    ['API requests', summary.total_requests],
  ] as const;
  return (
    <Stack gap="sm">
      <div className="cards">
        {cards.map(([label, value]) => (
          <Paper withBorder p="md" key={label}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
              {label}
            </Text>
            <Text size="xl" fw={700} aria-label={`${label}: ${value}`}>
              {count(value)}
            </Text>
          </Paper>
        ))}
      </div>
      <Paper withBorder p="md">
        <Text size="xs" c="dimmed" tt="uppercase" fw={700} mb="xs">
          Top endpoints
        </Text>
        {summary.top_endpoints.length === 0 ? (
          <Text size="sm" c="dimmed">
            No API requests yet.
          </Text>
        ) : (
          <Table aria-label="Top endpoints">
            <Table.Tbody>
              {summary.top_endpoints.map((e) => (
                <Table.Tr key={e.method + e.route}>
                  <Table.Td>
                    <Badge variant="light">{e.method}</Badge> <span className="key-value">{e.route}</span>
                  </Table.Td>
                  <Table.Td ta="right">{count(e.count)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Paper>
    </Stack>
  );
}

type Confirm = { title: string; message: string; label: string; run: () => Promise<unknown> } | null;

function KeyRow({ apiKey: k, onChanged, onNewValue }: { apiKey: ApiKey; onChanged: () => Promise<void>; onNewValue: (key: string) => void }) {
  const action = useAction();
  const [confirm, setConfirm] = useState<Confirm>(null);
  const act = async (run: () => Promise<unknown>) => {
    const ok = await action.run(async () => {
      await run();
      return true;
    });
    if (ok) {
      setConfirm(null);
      await onChanged();
    }
  };
  return (
    <Table.Tr>
      <Table.Td>
        <Text fw={500}>{k.name}</Text>
        {k.description && (
          <Text size="xs" c="dimmed">
            {k.description}
          </Text>
        )}
      </Table.Td>
      <Table.Td className="key-value">{k.masked_key}</Table.Td>
      <Table.Td>
        <Group gap={4}>
          {k.permissions.map((p) => (
            <Badge key={p} variant="outline" size="sm">
              {p}
            </Badge>
          ))}
        </Group>
      </Table.Td>
      <Table.Td>
        <Badge color={STATUS_COLOR[k.status]}>{k.permanently_revoked ? 'Revoked permanently' : k.status}</Badge>
      </Table.Td>
      <Table.Td data-label="requests">{count(k.request_count)}</Table.Td>
      <Table.Td>{when(k.last_used_at)}</Table.Td>
      <Table.Td>{k.expires_at ? when(k.expires_at) : 'Never'}</Table.Td>
      <Table.Td>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button variant="default" size="xs" aria-label={`Actions for ${k.name}`} loading={action.busy}>
              Actions
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            {!k.permanently_revoked && k.status === 'Active' && <Menu.Item onClick={() => void act(() => apiKeys.deactivate(k.id))}>Deactivate</Menu.Item>}
            {!k.permanently_revoked && k.status !== 'Active' && <Menu.Item onClick={() => void act(() => apiKeys.activate(k.id))}>Activate</Menu.Item>}
            {!k.permanently_revoked && (
              <Menu.Item
                onClick={() =>
                  setConfirm({
                    title: 'Regenerate this key?',
                    message: 'The current value stops working at once. The new value is shown once.',
                    label: 'Regenerate',
                    run: async () => onNewValue((await apiKeys.regenerate(k.id)).key),
                  })
                }
              >
                Regenerate
              </Menu.Item>
            )}
            {!k.permanently_revoked && (
              <Menu.Item color="red" onClick={() => setConfirm({ title: 'Revoke this key permanently?', message: 'A revoked key can never be used or activated again.', label: 'Revoke permanently', run: () => apiKeys.revoke(k.id) })}>
                Revoke
              </Menu.Item>
            )}
            <Menu.Item color="red" onClick={() => setConfirm({ title: 'Delete this key?', message: 'The key and its usage history are deleted.', label: 'Delete', run: () => apiKeys.remove(k.id) })}>
              Delete
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
        {action.error && !confirm && (
          <Text size="xs" c="red" role="alert">
            {action.error}
          </Text>
        )}
        <Modal opened={confirm !== null} onClose={() => setConfirm(null)} title={confirm?.title} centered>
          <Text size="sm">{confirm?.message}</Text>
          <ErrorText error={action.error} />
          <Group justify="flex-end" mt="md">
            <Button variant="default" onClick={() => setConfirm(null)}>
              Cancel
            </Button>
            <Button color="red" loading={action.busy} onClick={() => confirm && void act(confirm.run)}>
              {confirm?.label}
            </Button>
          </Group>
        </Modal>
      </Table.Td>
    </Table.Tr>
  );
}

function KeyValue({ value, onDone }: { value: string; onDone: () => void }) {
  return (
    <Stack>
      <Text size="sm">Copy this value now: it is not shown again.</Text>
      <TextInput label="API key" readOnly value={value} className="key-value" onFocus={(e) => e.currentTarget.select()} />
      <Group justify="flex-end">
        <CopyButton value={value}>{({ copied, copy }) => <Button onClick={copy} color={copied ? 'teal' : undefined}>{copied ? 'Copied' : 'Copy key'}</Button>}</CopyButton>
        <Button variant="default" onClick={onDone}>
          Done
        </Button>
      </Group>
    </Stack>
  );
}

function CreateKeyModal({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: (name: string, key: string) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>([]);
  const [expires, setExpires] = useState('');
  const action = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (permissions.length === 0) return action.setError('Choose at least one permission.');
    const created = await action.run(() =>
      apiKeys.create({ name, description: description || null, permissions, expires_at: fromLocalInput(expires) }),
    );
    if (created) {
      setName('');
      setDescription('');
      setPermissions([]);
      setExpires('');
      onCreated(created.name, created.key);
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title="Create an API key" centered size="lg">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Name" required placeholder="Where the key is used, e.g. Shop backend" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Textarea label="Description" autosize minRows={2} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Checkbox.Group label="Permissions" withAsterisk value={permissions} onChange={(v) => setPermissions(v as Permission[])}>
            <Stack gap={6} mt="xs">
              {PERMISSIONS.map(([value, label]) => (
                <Checkbox key={value} value={value} label={`${value} — ${label}`} />
              ))}
            </Stack>
          </Checkbox.Group>
          <TextInput label="Expires (optional)" type="datetime-local" value={expires} onChange={(e) => setExpires(e.currentTarget.value)} />
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel="Create key" />
        </Stack>
      </form>
    </Modal>
  );
}
