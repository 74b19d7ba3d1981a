import { Alert, Badge, Button, Checkbox, Code, Group, Modal, SimpleGrid, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../src/domain/outbound-webhooks/event-types.ts';
import { webhooks } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable, FormActions, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';

/** The API's webhook endpoint, from the types generated off the served OpenAPI document. */

/** The events an endpoint may subscribe to: the service's own list. */
const EVENT_TYPES = WEBHOOK_EVENT_TYPES;

/** What creating an endpoint answers: its secret is shown this once. */
type CreatedEndpoint = Awaited<ReturnType<typeof webhooks.create>>;

const DELIVERY_COLOR: Record<string, string> = { DELIVERED: 'green', PENDING: 'yellow', FAILED: 'red' };

/** Issue 15: outbound webhooks had no dashboard page; the API (/api/v1/webhooks) does it all. */
export function WebhooksPage() {
  const endpoints = useLoad(() => webhooks.page({ size: 100 }), []);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<CreatedEndpoint | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const action = useAction();
  return (
    <Stack>
      <PageHeader title="Webhooks">
        <Button onClick={() => setCreating(true)}>Add endpoint</Button>
      </PageHeader>
      <Text c="dimmed" size="sm">
        Sendwell POSTs each event you choose to your URL, signed with the endpoint's secret (the Sendwell-Signature header), and retries for a day when your server does not answer 2xx.
      </Text>
      {secret && (
        <Alert color="green" title="Endpoint created" withCloseButton onClose={() => setSecret(null)}>
          <Stack gap={4}>
            <Text size="sm">The signing secret for {secret.url}. It is shown only now: keep it where your receiver can check signatures.</Text>
            <Code aria-label="Signing secret" className="key-value">
              {secret.secret}
            </Code>
          </Stack>
        </Alert>
      )}
      <ErrorText error={action.error} />
      <PageState loading={endpoints.loading} error={endpoints.error} onRetry={endpoints.reload} empty={endpoints.data?.items.length === 0} emptyText="No webhook endpoints yet.">
        <DataTable label="Webhook endpoints" columns={['URL', 'Events', 'Active', 'Created', '']}>
          {endpoints.data?.items.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>
                <Text size="sm" className="key-value">
                  {e.url}
                </Text>
                {e.description && (
                  <Text size="xs" c="dimmed">
                    {e.description}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{e.event_types.join(', ')}</Text>
              </Table.Td>
              <Table.Td>
                <Switch
                  aria-label={`Active: ${e.url}`}
                  checked={e.is_active}
                  onChange={(ev) => {
                    const active = ev.currentTarget.checked;
                    void action.run(async () => {
                      await webhooks.update(e.id, { is_active: active });
                      await endpoints.reload();
                    });
                  }}
                />
              </Table.Td>
              <Table.Td>{when(e.created_at)}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button size="xs" variant="default" onClick={() => setOpen(open === e.id ? null : e.id)}>
                    {open === e.id ? 'Hide deliveries' : 'Deliveries'}
                  </Button>
                  <Button size="xs" variant="light" onClick={() => void action.run(() => webhooks.test(e.id))}>
                    Send test
                  </Button>
                  <ConfirmButton
                    size="xs"
                    color="red"
                    variant="subtle"
                    label="Delete"
                    title="Delete this endpoint?"
                    message={`${e.url} gets no more events.`}
                    confirmLabel="Delete"
                    onConfirm={async () => {
                      await webhooks.remove(e.id);
                      await endpoints.reload();
                    }}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
      {open !== null && <Deliveries endpointId={open} />}
      <CreateEndpoint
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={async (created) => {
          setCreating(false);
          setSecret(created);
          await endpoints.reload();
        }}
      />
    </Stack>
  );
}

function Deliveries({ endpointId }: { endpointId: number }) {
  const deliveries = useLoad(() => webhooks.deliveries(endpointId, { size: 20 }), [endpointId]);
  return (
    <PageState loading={deliveries.loading} error={deliveries.error} onRetry={deliveries.reload} empty={deliveries.data?.items.length === 0} emptyText="No deliveries yet.">
      <DataTable label="Recent deliveries" columns={['Event', 'Status', 'Attempts', 'Answer', 'Created']}>
        {deliveries.data?.items.map((d) => (
          <Table.Tr key={d.id}>
            <Table.Td>{d.event_type}</Table.Td>
            <Table.Td>
              <Badge color={DELIVERY_COLOR[d.status] ?? 'gray'} variant="light">
                {d.status}
              </Badge>
            </Table.Td>
            <Table.Td>{d.attempts}</Table.Td>
            <Table.Td>{d.last_status_code ?? d.last_error ?? '—'}</Table.Td>
            <Table.Td>{when(d.created_at)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </PageState>
  );
}

function CreateEndpoint({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: (created: CreatedEndpoint) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const action = useAction();
  async function submit(e: FormEvent) {
    e.preventDefault();
    const created = await action.run(() => webhooks.create({ url, event_types: events, description: description || null }));
    if (created) {
      setUrl('');
      setDescription('');
      setEvents([]);
      await onCreated(created);
    }
  }
  return (
    <Modal opened={opened} onClose={onClose} title="Add a webhook endpoint" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="URL" required placeholder="https://example.com/sendwell" value={url} onChange={(e) => setUrl(e.currentTarget.value)} />
          <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Checkbox.Group label="Events" required value={events} onChange={(v) => setEvents(v as WebhookEventType[])}>
            <SimpleGrid cols={{ base: 1, xs: 2 }} mt="xs">
              {EVENT_TYPES.map((t) => (
                <Checkbox key={t} value={t} label={t} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel="Add endpoint" />
        </Stack>
      </form>
    </Modal>
  );
}
