import { Alert, Badge, Button, Code, Group, Pagination, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { MESSAGE_LIMITS, MESSAGE_STATUSES, type MessageStatus } from '../../../src/domain/messages/message.ts';
import { messages } from '../api.ts';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { MessageDetail } from '../components/MessageDetail.tsx';
import { PageState } from '../components/PageState.tsx';
import { SendTestMessage } from '../components/SendTestMessage.tsx';
import { count, displayZone, fromLocalInput, when } from '../format.ts';
import { useLoad, usePolling } from '../hooks.ts';
import { MESSAGE_COLOR } from '../message-events.ts';
import { Can } from '../components/Can.tsx';

const tagPattern = new RegExp(MESSAGE_LIMITS.tagPattern);
/** The API filters by a whole address (D25.3); a half-typed one would only be refused. */
const wholeAddress = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A `date` input's day (on the account's clocks) as the instant it starts, in ISO 8601; `nextDay` for "until" (that day included). */
function dayStart(day: string, nextDay = false): string | undefined {
  const d = new Date(`${day}T00:00Z`);
  if (!day || Number.isNaN(d.getTime())) return undefined;
  if (nextDay) d.setUTCDate(d.getUTCDate() + 1);
  return fromLocalInput(d.toISOString().slice(0, 16)) ?? undefined;
}

/**
 * D25.8: transactional mail (D25) in the dashboard: the messages applications sent, newest first,
 * filtered as D25.3 allows; a message's fields and events; and a test sent from a starter or a text.
 * A session holds every permission (D17), so the send and cancel actions are always offered.
 */
export function TransactionalPage() {
  const [status, setStatus] = useState<MessageStatus | null>(null);
  const [to, setTo] = useState('');
  const [tag, setTag] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<number | null>(null);
  const [sending, setSending] = useState(false);
  const [toFilter] = useDebouncedValue(wholeAddress.test(to.trim()) ? to.trim() : '', 300);
  const [tagFilter] = useDebouncedValue(tagPattern.test(tag.trim()) ? tag.trim() : '', 300);
  const query = { status: status ?? undefined, to: toFilter || undefined, tag: tagFilter || undefined, since: dayStart(since), until: dayStart(until, true) };
  const filtered = Object.values(query).some((v) => v !== undefined);
  const list = useLoad(() => messages.page({ ...query, page, size: 25 }), [status, toFilter, tagFilter, since, until, page]);
  // A queued message is sent within seconds (D25.4): the list follows it to SENT on its own.
  usePolling(list.data?.items.some((m) => m.status === 'QUEUED') ?? false, 3000, () => void list.reload());
  const clearFilters = () => {
    setStatus(null);
    setTo('');
    setTag('');
    setSince('');
    setUntil('');
    setPage(0);
  };
  const resetPage = <T,>(set: (v: T) => void) => (v: T) => (set(v), setPage(0));

  return (
    <Stack>
      <PageHeader title="Transactional">
        <Can need="campaigns.send">
          <Button onClick={() => setSending(true)}>Send a test</Button>
        </Can>
      </PageHeader>
      <Text size="sm" c="dimmed">
        One message to one address, sent by your application: receipts, password resets, notifications. Times are in the account's time zone ({displayZone()}).
      </Text>
      <Group align="flex-end" wrap="wrap" role="search" aria-label="Filter messages">
        <Select label="Status" placeholder="Any" clearable data={[...MESSAGE_STATUSES]} value={status} onChange={(v) => resetPage(setStatus)(v as MessageStatus | null)} w={160} />
        <TextInput
          label="To"
          placeholder="someone@example.com"
          className="field-wide"
          value={to}
          onChange={(e) => resetPage(setTo)(e.currentTarget.value)}
          error={to.trim() && !wholeAddress.test(to.trim()) ? 'The whole address' : undefined}
        />
        <TextInput label="Tag" placeholder="receipt" w={160} value={tag} onChange={(e) => resetPage(setTag)(e.currentTarget.value)} error={tag.trim() && !tagPattern.test(tag.trim()) ? 'Letters, digits, - and _' : undefined} />
        <TextInput label="Since" type="date" w={160} value={since} onChange={(e) => resetPage(setSince)(e.currentTarget.value)} />
        <TextInput label="Until (included)" type="date" w={160} value={until} onChange={(e) => resetPage(setUntil)(e.currentTarget.value)} />
        {(status || to || tag || since || until) && (
          <Button variant="subtle" onClick={clearFilters}>
            Clear filters
          </Button>
        )}
      </Group>
      {!filtered && list.data?.totalElements === 0 && <FirstMessage />}
      <PageState loading={list.loading} error={list.error} onRetry={list.reload} empty={list.data?.items.length === 0} emptyText={filtered ? 'No message matches these filters.' : 'Nothing sent yet.'}>
        <Text size="sm" c="dimmed">
          {count(list.data?.totalElements ?? 0)} {list.data?.totalElements === 1 ? 'message' : 'messages'}
        </Text>
        <DataTable label="Messages" columns={['Status', 'To', 'Subject', 'Tags', 'Created', 'Sent', '']}>
          {list.data?.items.map((m) => (
            <Table.Tr key={m.id}>
              <Table.Td>
                <Badge color={MESSAGE_COLOR[m.status]} variant="light">
                  {m.status}
                </Badge>
              </Table.Td>
              <Table.Td className="nowrap">{m.to}</Table.Td>
              <Table.Td>{m.subject}</Table.Td>
              <Table.Td>{m.tags.join(', ') || '—'}</Table.Td>
              <Table.Td>{when(m.created_at)}</Table.Td>
              <Table.Td>{m.status === 'SCHEDULED' ? `Scheduled ${when(m.scheduled_at)}` : when(m.sent_at)}</Table.Td>
              <Table.Td>
                <Button size="xs" variant="default" aria-label={`Details of message ${m.id} to ${m.to}`} onClick={() => setOpen(m.id)}>
                  Details
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(list.data?.totalPages ?? 0) > 1 && <Pagination total={list.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
      <MessageDetail id={open} onClose={() => setOpen(null)} onChanged={list.reload} />
      {sending && (
        <SendTestMessage
          onClose={() => setSending(false)}
          onSent={async () => {
            setSending(false);
            await list.reload();
          }}
        />
      )}
    </Stack>
  );
}

/** The empty page: what transactional mail is, and how an application sends it. */
function FirstMessage() {
  const curl = [
    `curl -s -X POST ${window.location.origin}/api/v1/messages \\`,
    `  -H "Authorization: Bearer $SENDWELL_API_KEY" -H 'content-type: application/json' \\`,
    `  -H 'Idempotency-Key: order-1042-receipt' \\`,
    `  -d '{"to": "customer@example.com", "from_email": "shop@example.com", "subject": "Your receipt",`,
    `       "text": "Order {{ data.order }} is paid. Thank you!", "data": {"order": "1042"}, "tags": ["receipt"]}'`,
  ].join('\n');
  return (
    <Alert color="blue" title="No transactional messages yet">
      <Stack gap="xs">
        <Text size="sm">
          Transactional mail is what your application sends one person because of something they did: a receipt, a password reset, a sign-in code. It reaches everyone but suppressed addresses, unsubscribed
          contacts too, and carries no unsubscribe link. Send it with an API key that may send campaigns (campaigns.send), or through SMTP submission, and it shows here.
        </Text>
        <Code block aria-label="Example request" className="api-example">
          {curl}
        </Code>
        <Text size="xs" c="dimmed">
          A retried request with the same Idempotency-Key sends nothing twice. Or try it here with Send a test.
        </Text>
      </Stack>
    </Alert>
  );
}
