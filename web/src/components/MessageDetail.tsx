import { Badge, Code, Drawer, Group, Stack, Table, Text, ThemeIcon, Timeline, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { canCancel } from '../../../src/domain/messages/message.ts';
import { messages } from '../api.ts';
import { displayZone, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { MESSAGE_COLOR, messageEvents, type Message } from '../message-events.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { PageState } from './PageState.tsx';
import { Can } from './Can.tsx';

/** D25.8: one transactional message, all its fields and its events, in a drawer over the list. */
export function MessageDetail({ id, onClose, onChanged }: { id: number | null; onClose: () => void; onChanged: () => Promise<void> }) {
  const phone = useMediaQuery('(max-width: 36em)');
  return (
    <Drawer opened={id !== null} onClose={onClose} position="right" size={phone ? '100%' : 'lg'} title={id !== null ? `Message ${id}` : ''}>
      {id !== null && <Loaded id={id} onChanged={onChanged} />}
    </Drawer>
  );
}

function Loaded({ id, onChanged }: { id: number; onChanged: () => Promise<void> }) {
  const message = useLoad(() => messages.get(id), [id]);
  const m = message.data;
  return (
    <PageState loading={message.loading} error={message.error} onRetry={message.reload} empty={!m}>
      {m && (
        <Stack>
          <Group justify="space-between" wrap="wrap">
            <Badge color={MESSAGE_COLOR[m.status]} variant="light" size="lg" aria-label="Status">
              {m.status}
            </Badge>
            {canCancel(m.status) && (
              <Can need="campaigns.send">
                <ConfirmButton
                  size="xs"
                  color="red"
                  variant="light"
                  label="Cancel message"
                  title="Cancel this message?"
                  message={`It is not sent to ${m.to}. A canceled message cannot be scheduled again; send a new one instead.`}
                  confirmLabel="Cancel message"
                  onConfirm={async () => {
                    await messages.cancel(m.id);
                    await Promise.all([message.reload(), onChanged()]);
                  }}
                />
              </Can>
            )}
          </Group>
          <Fields m={m} />
          <Title order={4}>Events</Title>
          <Text size="xs" c="dimmed">
            Times in {displayZone()}. Opens and clicks are counted only when the message was sent with tracking.
          </Text>
          <Timeline bulletSize={14} lineWidth={2} aria-label="Events">
            {messageEvents(m).map((e) => (
              <Timeline.Item key={e.label} title={e.label} bullet={<ThemeIcon size={14} radius="xl" color={e.problem ? 'red' : e.pending ? 'gray' : 'green'} />}>
                <Text size="xs" c="dimmed">
                  {e.at ? when(e.at) : e.pending ? 'not yet' : 'time not recorded'}
                </Text>
                {e.detail && (
                  <Text size="sm" c={e.problem ? 'red' : undefined}>
                    {e.detail}
                  </Text>
                )}
              </Timeline.Item>
            ))}
          </Timeline>
        </Stack>
      )}
    </PageState>
  );
}

/** Every field of the message the API answers, in words. */
function Fields({ m }: { m: Message }) {
  const metadata = Object.entries(m.metadata);
  const rows: [string, ReactNode][] = [
    ['To', m.to],
    ['From', m.from_email],
    ['Subject', m.subject],
    ['Tags', m.tags.length ? m.tags.join(', ') : '—'],
    ['Created', when(m.created_at)],
    ['Scheduled for', when(m.scheduled_at)],
    ['Sent', when(m.sent_at)],
    ['First opened', when(m.opened_at)],
    ['First clicked', when(m.clicked_at)],
    ['Error', m.error ?? '—'],
  ];
  return (
    <>
      <Table aria-label="Message fields" variant="vertical" layout="fixed" withTableBorder>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={120}>{label}</Table.Th>
              <Table.Td className="cell-wrap">{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text fw={500} size="sm">
        Metadata
      </Text>
      {metadata.length === 0 ? (
        <Text size="sm" c="dimmed">
          None
        </Text>
      ) : (
        <Code block aria-label="Metadata" className="api-example">
          {JSON.stringify(m.metadata, null, 2)}
        </Code>
      )}
    </>
  );
}
