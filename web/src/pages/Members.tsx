import { Badge, Pagination, Select, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { members, type Schemas } from '../api.ts';

type Member = Schemas['Member'];
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Invitations } from '../components/Invitations.tsx';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { mayManage, reach, ROLE_LABEL, ROLES, type Role } from '../permissions.ts';
import { useSession } from '../session.tsx';

/**
 * D24.2/D24.9: the account's members. Everyone sees the list; admins and owners also change roles,
 * remove members and invite (invitations below). Only what one's reach allows is offered: an
 * admin is offered no owner, and nothing on an owner's row.
 */
export function MembersPage() {
  const { session } = useSession();
  const [page, setPage] = useState(0);
  const list = useLoad(() => members.page({ page, size: 50 }), [page]);
  const action = useAction();
  const managing = reach(session) !== 'none';

  return (
    <Stack>
      <PageHeader title="Members" />
      <Text size="sm" c="dimmed">
        Viewers read; authors also write drafts and workflows but never send; managers do everything but API keys, webhooks and members; admins do everything; owners also make and remove owners.
      </Text>
      <ErrorText error={action.error} />
      <PageState loading={list.loading} error={list.error} onRetry={list.reload} empty={list.data?.items.length === 0}>
        <DataTable label="Members" columns={['E-mail', 'Role', 'Two-factor', 'Last sign-in', 'Member since', ...(managing ? ['Actions'] : [])]}>
          {list.data?.items.map((m) => (
            <MemberRow key={m.id} member={m} me={m.id === session?.user.id} managing={managing} run={action.run} reload={list.reload} />
          ))}
        </DataTable>
        {(list.data?.totalPages ?? 0) > 1 && <Pagination total={list.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
      {managing && <Invitations onJoined={list.reload} nameOf={(id) => list.data?.items.find((m) => m.id === id)?.email ?? '—'} />}
    </Stack>
  );
}

function MemberRow(props: { member: Member; me: boolean; managing: boolean; run: ReturnType<typeof useAction>['run']; reload: () => Promise<void> }) {
  const { member: m, me, managing, run, reload } = props;
  const { session } = useSession();
  const roles = ROLES.filter((r) => r === m.role || mayManage(session, m.role, r));
  const mayChange = roles.length > 1;
  return (
    <Table.Tr>
      <Table.Td>
        {m.email} {me && <Badge variant="light">you</Badge>}
      </Table.Td>
      <Table.Td>
        {mayChange ? (
          <Select
            aria-label={`Role of ${m.email}`}
            size="xs"
            w={130}
            allowDeselect={false}
            data={roles.map((r) => ({ value: r, label: ROLE_LABEL[r] }))}
            value={m.role}
            onChange={async (next) => {
              if (next && next !== m.role && (await run(() => members.setRole(m.id, next as Role)))) await reload();
            }}
          />
        ) : (
          ROLE_LABEL[m.role] ?? m.role
        )}
      </Table.Td>
      <Table.Td>
        <Badge color={m.two_factor ? 'green' : 'gray'} variant="light">
          {m.two_factor ? 'On' : 'Off'}
        </Badge>
      </Table.Td>
      <Table.Td>{when(m.last_sign_in_at)}</Table.Td>
      <Table.Td>{when(m.created_at)}</Table.Td>
      {managing && (
        <Table.Td>
          {mayManage(session, m.role, null) && !me && (
            <ConfirmButton
              size="xs"
              variant="light"
              color="red"
              label="Remove"
              aria-label={`Remove ${m.email}`}
              title="Remove this member?"
              message={`${m.email} loses access at once: their sessions end. Invite them again to bring them back.`}
              confirmLabel="Remove"
              onConfirm={async () => {
                await members.remove(m.id);
                await reload();
              }}
            />
          )}
        </Table.Td>
      )}
    </Table.Tr>
  );
}
