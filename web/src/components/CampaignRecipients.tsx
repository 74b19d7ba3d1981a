import { Badge, Group, Pagination, SegmentedControl, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { campaigns, type Schemas } from '../api.ts';
import { PageState } from './PageState.tsx';
import { count, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import type { Campaign } from '../pages/Campaigns.tsx';
import { DataTable } from './Layout.tsx';

type Recipient = Schemas['CampaignRecipient'];
const RECIPIENT_COLOR: Record<Recipient['status'], string> = { PENDING: 'gray', SENT: 'green', FAILED: 'red', BOUNCED: 'orange', CANCELLED: 'dark' };

/** D19: who got it and who did not, and why. */
export function RecipientsTab({ campaign: c }: { campaign: Campaign }) {
  const [status, setStatus] = useState<Recipient['status'] | ''>('');
  const [engagement, setEngagement] = useState('');
  const [page, setPage] = useState(0);
  const filter = { status: status || undefined, opened: engagement === 'opened' ? true : engagement === 'not_opened' ? false : undefined, clicked: engagement === 'clicked' ? true : undefined };
  const recipients = useLoad(() => campaigns.recipients(c.id, { ...filter, page, size: 25 }), [c.id, status, engagement, page]);
  return (
    <Stack>
      <Group wrap="wrap" gap="md">
        <SegmentedControl
          size="xs"
          aria-label="Recipient status"
          value={status}
          onChange={(v) => (setStatus(v as Recipient['status'] | ''), setPage(0))}
          data={[
            { value: '', label: 'All' },
            { value: 'SENT', label: 'Sent' },
            { value: 'BOUNCED', label: 'Bounced' },
            { value: 'FAILED', label: 'Failed' },
            { value: 'PENDING', label: 'Pending' },
            // issue 34: those a cancel left unsent
            ...(c.status === 'CANCELLED' ? [{ value: 'CANCELLED', label: 'Cancelled' }] : []),
          ]}
        />
        <SegmentedControl
          size="xs"
          aria-label="Engagement"
          value={engagement}
          onChange={(v) => (setEngagement(v), setPage(0))}
          data={[
            { value: '', label: 'Any' },
            { value: 'opened', label: 'Opened' },
            { value: 'not_opened', label: 'Not opened' },
            { value: 'clicked', label: 'Clicked' },
          ]}
        />
      </Group>
      <PageState loading={recipients.loading} error={recipients.error} onRetry={recipients.reload} empty={recipients.data?.items.length === 0} emptyText="No recipient matches.">
        <Text size="sm" c="dimmed">
          {count(recipients.data?.totalElements ?? 0)} recipients
        </Text>
        <DataTable label="Recipients" columns={['E-mail', 'Status', 'Attempts', 'Sent', 'Opened', 'Clicked', 'Last reply']}>
          {recipients.data?.items.map((r) => (
            <Table.Tr key={r.email}>
              <Table.Td>{r.contact_id === null ? r.email : <Link to={`/contacts/${encodeURIComponent(r.email)}`}>{r.email}</Link>}</Table.Td>
              <Table.Td>
                <Badge color={RECIPIENT_COLOR[r.status]} variant="light">
                  {r.status}
                </Badge>
                <LeftBadges recipient={r} />
              </Table.Td>
              <Table.Td>{r.attempts}</Table.Td>
              <Table.Td>{when(r.sent_at)}</Table.Td>
              <Table.Td>{when(r.opened_at)}</Table.Td>
              <Table.Td>{when(r.clicked_at)}</Table.Td>
              <Table.Td>
                <Text size="xs" className="key-value">
                  {r.last_error ?? '—'}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(recipients.data?.totalPages ?? 0) > 1 && <Pagination total={recipients.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
    </Stack>
  );
}

/**
 * Issue 34: the recipient's unsubscribe through this message, and a spam complaint about it, each
 * with its time, under the status: in the table's second column, so a phone shows them unscrolled.
 */
function LeftBadges({ recipient: r }: { recipient: Recipient }) {
  const marks = [
    { at: r.unsubscribed_at, label: 'Unsubscribed', variant: 'light' },
    { at: r.complained_at, label: 'Complained', variant: 'filled' },
  ].filter((m): m is { at: string; label: string; variant: string } => m.at !== null);
  return marks.map((m) => (
    <Stack key={m.label} gap={0} mt={4} align="flex-start">
      <Badge color="red" variant={m.variant}>
        {m.label}
      </Badge>
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        {when(m.at)}
      </Text>
    </Stack>
  ));
}

/** D19: clicks per link, in the order the message holds them. */
export function LinksTab({ campaign: c }: { campaign: Campaign }) {
  const links = useLoad(() => campaigns.links(c.id), [c.id]);
  return (
    <PageState loading={links.loading} error={links.error} onRetry={links.reload} empty={links.data?.links.length === 0} emptyText="The message has no tracked links.">
      <DataTable label="Links" columns={['Link', 'Clicks', 'Unique clicks']}>
        {links.data?.links.map((l, i) => (
          <Table.Tr key={i}>
            <Table.Td className="key-value">{l.url}</Table.Td>
            <Table.Td>{count(l.clicks)}</Table.Td>
            <Table.Td>{count(l.unique_clicks)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </PageState>
  );
}
