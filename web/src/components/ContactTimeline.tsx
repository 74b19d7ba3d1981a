import { Anchor, Badge, Button, Group, Paper, Text, ThemeIcon, Timeline, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { contacts, type Schemas } from '../api.ts';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { ErrorText, PageState } from './PageState.tsx';

type Entry = Schemas['TimelineEntry'];

/** Entries per page: "Show older" asks for the next page by its cursor. */
export const TIMELINE_PAGE_SIZE = 10;

/** What each kind says, and its bullet's colour. D23: opens and clicks by machines are said as such. */
const KIND: Record<Entry['kind'], { label: string; color: string; by?: 'person' | 'machine' }> = {
  sent: { label: 'Sent', color: 'blue' },
  opened: { label: 'Opened', color: 'teal', by: 'person' },
  opened_by_machine: { label: 'Opened', color: 'gray', by: 'machine' },
  clicked: { label: 'Clicked', color: 'green', by: 'person' },
  clicked_by_machine: { label: 'Clicked', color: 'gray', by: 'machine' },
  bounced: { label: 'Bounced', color: 'orange' },
  complained: { label: 'Marked as spam', color: 'red' },
  unsubscribed: { label: 'Unsubscribed', color: 'red' },
  left_list: { label: 'Left list', color: 'gray' },
  subscribed: { label: 'Subscribed', color: 'green' },
  event: { label: 'Event', color: 'violet' },
  automation_run: { label: 'Workflow started', color: 'indigo' },
};

const CONSENT_SOURCE: Record<string, string> = { FORM: 'by a form', API: 'through the API', IMPORT: 'by an import', CONFIRMATION: 'confirmed by e-mail', EVENT: 'by an event' };

/** A link to the page of what the entry concerns. */
function To({ to, name }: { to: string; name: string }) {
  return (
    <Anchor component={Link} to={to} size="sm">
      {name}
    </Anchor>
  );
}

/** What the entry concerns: the campaign, list, form, workflow or event, linked where it has a page. */
function Subject({ e }: { e: Entry }) {
  if (e.campaign) return <To to={`/campaigns/${e.campaign.id}`} name={e.campaign.name} />;
  if (e.list) return <To to={`/lists/${e.list.id}`} name={e.list.name} />;
  if (e.automation) return <To to={`/automations/${e.automation.id}`} name={e.automation.name} />;
  if (e.event) {
    return (
      <Text size="sm" className="key-value">
        {e.event}
      </Text>
    );
  }
  if (e.form) {
    return (
      <Text size="sm">
        by the form <To to={`/forms/${e.form.id}`} name={e.form.name} />
      </Text>
    );
  }
  if (e.kind === 'subscribed') return <Text size="sm">{CONSENT_SOURCE[e.detail ?? ''] ?? ''}</Text>;
  // A message whose campaign was deleted, or a workflow's message.
  return (
    <Text size="sm" c="dimmed">
      a workflow's message or a deleted campaign
    </Text>
  );
}

function Item({ e }: { e: Entry }) {
  const kind = KIND[e.kind];
  return (
    <Group gap={6} wrap="wrap" data-kind={e.kind}>
      <Text fw={500} size="sm">
        {kind.label}
      </Text>
      {kind.by && (
        <Badge size="xs" variant="light" color={kind.by === 'machine' ? 'gray' : 'teal'} title={kind.by === 'machine' ? 'A mail privacy proxy or link scanner, not a person' : undefined}>
          {kind.by === 'machine' ? 'Machine' : 'Person'}
        </Badge>
      )}
      <Subject e={e} />
      {e.kind === 'automation_run' && e.detail && (
        <Badge size="xs" variant="outline">
          {e.detail.toLowerCase()}
        </Badge>
      )}
    </Group>
  );
}

/** Issue 34: the contact's activity, newest first, a page at a time. */
export function ContactTimeline({ email }: { email: string }) {
  const first = useLoad(() => contacts.timeline(email, { size: TIMELINE_PAGE_SIZE }), [email]);
  const [older, setOlder] = useState<{ entries: Entry[]; next: string | null } | null>(null);
  const more = useAction();
  const entries = [...(first.data?.entries ?? []), ...(older?.entries ?? [])];
  const next = older ? older.next : (first.data?.next_cursor ?? null);
  return (
    <Paper withBorder p="md">
      <Title order={3} size="h4" mb="xs">
        Activity
      </Title>
      <PageState loading={first.loading && !first.data} error={first.error} onRetry={() => (setOlder(null), first.reload())} empty={entries.length === 0} emptyText="No activity yet.">
        <Timeline bulletSize={14} lineWidth={2} aria-label="Activity">
          {entries.map((e) => (
            <Timeline.Item key={`${e.kind}:${e.id}`} bullet={<ThemeIcon size={14} radius="xl" color={KIND[e.kind].color} />} title={<Item e={e} />}>
              <Text size="xs" c="dimmed">
                {when(e.at)}
              </Text>
            </Timeline.Item>
          ))}
        </Timeline>
        {next !== null && (
          <Button
            mt="sm"
            variant="light"
            size="xs"
            loading={more.busy}
            onClick={() =>
              more.run(async () => {
                const page = await contacts.timeline(email, { size: TIMELINE_PAGE_SIZE, cursor: next });
                setOlder({ entries: [...(older?.entries ?? []), ...page.entries], next: page.next_cursor });
                return true;
              })
            }
          >
            Show older
          </Button>
        )}
        <ErrorText error={more.error} />
      </PageState>
    </Paper>
  );
}
