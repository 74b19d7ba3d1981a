import { Badge, Button, Modal, Pagination, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { campaigns as campaignsApi, type Schemas } from '../api.ts';
import { DataTable, FormActions, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';

/** The API's campaign, from the types generated off the served OpenAPI document. */
export type Campaign = Schemas['Campaign'];

export const CAMPAIGN_COLOR = { DRAFT: 'gray', SCHEDULED: 'blue', SENDING: 'yellow', PAUSED: 'orange', SENT: 'green', FAILED: 'red', CANCELLED: 'dark' } as const;

/** D18: a follow-up's audience in words, after "the recipients who". */
export const FOLLOW_UP_WORDS: Record<NonNullable<Campaign['follow_up']>['audience'], string> = { NOT_OPENED: 'did not open it', NOT_CLICKED: 'did not click in it', OPENED: 'opened it', CLICKED: 'clicked in it' };

export function CampaignsPage() {
  const [page, setPage] = useState(0);
  const campaigns = useLoad(() => campaignsApi.page({ size: 25, page }), [page]);
  const [creating, setCreating] = useState(false);
  const { session } = useSession();
  return (
    <Stack>
      <PageHeader title="Campaigns">
        {can(session, 'campaigns.write') && <Button onClick={() => setCreating(true)}>New campaign</Button>}
      </PageHeader>
      <PageState loading={campaigns.loading} error={campaigns.error} onRetry={campaigns.reload} empty={campaigns.data?.items.length === 0} emptyText={can(session, 'campaigns.write') ? 'No campaigns yet. Write your first one.' : 'No campaigns yet.'}>
        <DataTable label="Campaigns" columns={['Name', 'Status', 'Recipients', 'Created', 'Sent']}>
          {campaigns.data?.items.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Link to={`/campaigns/${c.id}`}>{c.name}</Link>
                <Text size="xs" c="dimmed">
                  {c.subject ?? 'No subject yet'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={CAMPAIGN_COLOR[c.status]}>{c.status}</Badge>
              </Table.Td>
              <Table.Td>{c.status === 'DRAFT' || c.status === 'SCHEDULED' ? '—' : count(c.total_recipients)}</Table.Td>
              <Table.Td>{when(c.created_at)}</Table.Td>
              <Table.Td>{c.status === 'SCHEDULED' ? `Scheduled ${when(c.scheduled_at)}` : when(c.sent_at)}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(campaigns.data?.totalPages ?? 0) > 1 && <Pagination total={campaigns.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
      {creating && <NewCampaignModal onClose={() => setCreating(false)} />}
    </Stack>
  );
}

function NewCampaignModal({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const navigate = useNavigate();
  const action = useAction();
  async function submit(e: FormEvent) {
    e.preventDefault();
    const created = await action.run(() => campaignsApi.create({ name }));
    if (created) navigate(`/campaigns/${created.id}`);
  }
  return (
    <Modal opened onClose={onClose} title="New campaign" centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Campaign name" description="For you; recipients see the subject" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel="Create and edit" />
        </Stack>
      </form>
    </Modal>
  );
}
