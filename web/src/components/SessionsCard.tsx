import { Badge, Card, Table, Text, Title } from '@mantine/core';
import { security } from '../api.ts';
import { deviceOf } from '../device.ts';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { DataTable } from './Layout.tsx';
import { ErrorText, PageState } from './PageState.tsx';

/** D24.5: where the user is signed in; any other session can be signed out from here. */
export function SessionsCard() {
  const list = useLoad(() => security.sessions({ page: 0, size: 100 }), []);
  const action = useAction();
  return (
    <Card withBorder padding="lg" radius="md">
      <Title order={3} mb="sm">
        Sessions
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Where you are signed in. Sign out any you do not recognise, and change your password.
      </Text>
      <ErrorText error={action.error} />
      <PageState loading={list.loading} error={list.error} onRetry={list.reload} empty={list.data?.items.length === 0}>
        <DataTable label="Sessions" columns={['Device', 'IP address', 'Signed in', 'Last active', '']}>
          {list.data?.items.map((s) => (
            <Table.Tr key={s.id}>
              <Table.Td>
                <Text size="sm" title={s.user_agent ?? undefined}>
                  {deviceOf(s.user_agent)}
                </Text>
              </Table.Td>
              <Table.Td>{s.ip ?? '—'}</Table.Td>
              <Table.Td>{when(s.created_at)}</Table.Td>
              <Table.Td>{when(s.last_seen_at)}</Table.Td>
              <Table.Td>
                {s.current ? (
                  <Badge variant="light" color="green">
                    This session
                  </Badge>
                ) : (
                  <ConfirmButton
                    size="xs"
                    variant="light"
                    color="red"
                    label="Sign out"
                    aria-label={`Sign out the session started ${when(s.created_at)}`}
                    title="Sign out this session?"
                    message="Whoever uses it will have to sign in again."
                    confirmLabel="Sign out"
                    onConfirm={async () => {
                      await security.endSession(s.id);
                      await list.reload();
                    }}
                  />
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
    </Card>
  );
}
