import { Badge, Button, Group, Pagination, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { suppressions, type Schemas } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { Can } from '../components/Can.tsx';

type Suppression = Schemas['Suppression'];
const SOURCE_COLOR: Record<Suppression['source'], string> = { MANUAL: 'gray', BOUNCE: 'orange', COMPLAINT: 'red', UNSUBSCRIBE: 'blue', ERASURE: 'violet' };

/** D19: addresses and @domains never mailed, whatever the contact's status. */
export function SuppressionsPage() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 300);
  const [page, setPage] = useState(0);
  const list = useLoad(() => suppressions.page({ search: debounced, page, size: 25 }), [debounced, page]);
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();

  async function add(e: FormEvent) {
    e.preventDefault();
    setNotice(null);
    const res = await action.run(() => suppressions.create({ value, reason: reason.trim() || null }));
    if (res) {
      setNotice(`${res.value} will not be mailed.`);
      setValue('');
      setReason('');
      await list.reload();
    }
  }

  return (
    <Stack>
      <PageHeader title="Suppression list" />
      <Text size="sm" c="dimmed">
        Nobody here gets a campaign, an automation message or a test, whatever their contact status. Hard bounces and spam complaints are added on their own. Add a whole domain with @example.com. The command line imports and exports it as CSV (sendwell suppressions import|export).
      </Text>
      <form onSubmit={add} aria-label="Add to the suppression list">
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Address or @domain" required placeholder="someone@example.com or @example.com" className="field-wide" value={value} onChange={(e) => setValue(e.currentTarget.value)} />
          <TextInput label="Reason" placeholder="Optional" className="field-wide" value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          <Can need="contacts.write">
            <Button type="submit" loading={action.busy}>
              Suppress
            </Button>
          </Can>
        </Group>
      </form>
      <ErrorText error={action.error} />
      {notice && (
        <Text size="sm" c="green" role="status">
          {notice}
        </Text>
      )}
      <TextInput label="Search" placeholder="Part of an address or domain" className="field-wide" value={search} onChange={(e) => (setSearch(e.currentTarget.value), setPage(0))} />
      <PageState loading={list.loading} error={list.error} onRetry={list.reload} empty={list.data?.items.length === 0} emptyText={debounced ? 'Nothing matches.' : 'The list is empty.'}>
        <Text size="sm" c="dimmed">
          {list.data?.totalElements ?? 0} entries
        </Text>
        <DataTable label="Suppressions" columns={['Address or domain', 'Source', 'Reason', 'Added', 'Actions']}>
          {list.data?.items.map((s) => (
            <Table.Tr key={s.id}>
              <Table.Td className="key-value">{s.value}</Table.Td>
              <Table.Td>
                <Badge color={SOURCE_COLOR[s.source]} variant="light">
                  {s.source}
                </Badge>
              </Table.Td>
              <Table.Td>{s.reason ?? '—'}</Table.Td>
              <Table.Td>{when(s.created_at)}</Table.Td>
              <Table.Td>
                <Can need="contacts.write">
                  <ConfirmButton
                    size="xs"
                    variant="light"
                    color="red"
                    label="Remove"
                    aria-label={`Remove ${s.value}`}
                    title={`Mail ${s.value} again?`}
                    message="It is removed from the suppression list; its contacts get mail again if their status allows."
                    confirmLabel="Remove"
                    onConfirm={async () => {
                      await suppressions.remove(s.id);
                      await list.reload();
                    }}
                  />
                </Can>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(list.data?.totalPages ?? 0) > 1 && <Pagination total={list.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
    </Stack>
  );
}
