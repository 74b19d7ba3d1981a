import { Badge, Group, Pagination, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { ACTOR_TYPES, AUDIT_ACTIONS } from '../../../src/domain/audit/audit-entry.ts';
import type { ActorType } from '../../../src/domain/shared/actor.ts';
import { auditLog, type Schemas } from '../api.ts';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { PageState } from '../components/PageState.tsx';
import { fromLocalInput, displayZone, when } from '../format.ts';
import { useLoad } from '../hooks.ts';

const ACTOR_LABEL: Record<string, string> = { user: 'Member', api_key: 'API key', system: 'System (command line, workers)' };
const SIZE = 50;

/** D24.8/D24.9: who changed what and when, newest first, with the log's filters. Admins and owners only. */
export function AuditLogPage() {
  const [action, setAction] = useState<string | null>(null);
  const [actorType, setActorType] = useState<ActorType | null>(null);
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [page, setPage] = useState(0);
  const filters = { action: action ?? undefined, actor_type: actorType ?? undefined, since: fromLocalInput(since) ?? undefined, until: fromLocalInput(until) ?? undefined };
  const log = useLoad(() => auditLog.page({ ...filters, page, size: SIZE }), [action, actorType, since, until, page]);
  // Any filter change starts from the first page.
  const filter = <T,>(set: (v: T) => void) => (v: T) => (set(v), setPage(0));

  return (
    <Stack>
      <PageHeader title="Audit log" />
      <Text size="sm" c="dimmed">
        Every change made in the dashboard, through the API or on the command line. Times are in {displayZone()}.
      </Text>
      <Group align="flex-end" wrap="wrap" role="search" aria-label="Filter the audit log">
        <Select label="Action" placeholder="Any" clearable searchable w={240} data={[...AUDIT_ACTIONS]} value={action} onChange={filter(setAction)} />
        <Select label="Actor" placeholder="Anyone" clearable w={220} data={ACTOR_TYPES.map((t) => ({ value: t, label: ACTOR_LABEL[t] }))} value={actorType} onChange={(v) => filter(setActorType)(v as ActorType | null)} />
        <TextInput label="Since" type="datetime-local" value={since} onChange={(e) => filter(setSince)(e.currentTarget.value)} />
        <TextInput label="Until" type="datetime-local" value={until} onChange={(e) => filter(setUntil)(e.currentTarget.value)} />
      </Group>
      <PageState loading={log.loading} error={log.error} onRetry={log.reload} empty={log.data?.items.length === 0} emptyText="No entry matches.">
        <Text size="sm" c="dimmed">
          {log.data?.totalElements === 1 ? '1 entry' : `${log.data?.totalElements ?? 0} entries`}
        </Text>
        <DataTable label="Audit log" columns={['When', 'Actor', 'Action', 'Target', 'IP address']}>
          {log.data?.items.map((e) => <EntryRow key={e.id} entry={e} />)}
        </DataTable>
        {(log.data?.totalPages ?? 0) > 1 && <Pagination total={log.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
    </Stack>
  );
}

function EntryRow({ entry: e }: { entry: Schemas['AuditEntry'] }) {
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(e.at)}</Table.Td>
      <Table.Td>
        <Badge variant="light" color={e.actor.type === 'user' ? 'blue' : e.actor.type === 'api_key' ? 'grape' : 'gray'} mr={6}>
          {ACTOR_LABEL[e.actor.type]?.split(' ')[0] ?? e.actor.type}
        </Badge>
        {e.actor.label ?? e.actor.id ?? ''}
      </Table.Td>
      <Table.Td>
        <Text component="span" ff="monospace" size="sm">
          {e.action}
        </Text>
      </Table.Td>
      <Table.Td>{e.target ? `${e.target.type} ${e.target.id}` : '—'}</Table.Td>
      <Table.Td>{e.ip ?? '—'}</Table.Td>
    </Table.Tr>
  );
}
