import { Button, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { invitations } from '../api.ts';
import { useAction, useLoad } from '../hooks.ts';
import { when } from '../format.ts';
import { assignableRoles, ROLE_LABEL, type Role } from '../permissions.ts';
import { useSession } from '../session.tsx';
import { ConfirmButton } from './ConfirmButton.tsx';
import { DataTable } from './Layout.tsx';
import { ErrorText, PageState } from './PageState.tsx';

/** D24.3: invite by address and role (an admin offers no owner), and the pending invitations with resend and revoke. */
export function Invitations({ onJoined, nameOf }: { onJoined: () => Promise<void>; nameOf: (memberId: number | null) => string }) {
  const { session } = useSession();
  const roles = assignableRoles(session);
  const pending = useLoad(() => invitations.page({ page: 0, size: 100 }), []);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [notice, setNotice] = useState<string | null>(null);

  async function invite(e: FormEvent) {
    e.preventDefault();
    setNotice(null);
    const sent = await action.run(() => invitations.create({ email: email.trim(), role }));
    if (sent) {
      setNotice(`An invitation went to ${sent.email ?? email}. Its link works for 7 days.`);
      setEmail('');
      await Promise.all([pending.reload(), onJoined()]);
    }
  }

  return (
    <Stack>
      <Title order={3}>Invite someone</Title>
      <form onSubmit={invite} aria-label="Invite a member">
        <Group align="flex-end" wrap="wrap">
          <TextInput label="E-mail" type="email" required className="field-wide" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <Select label="Role" w={150} allowDeselect={false} data={roles.map((r) => ({ value: r, label: ROLE_LABEL[r] }))} value={role} onChange={(r) => r && setRole(r as Role)} />
          <Button type="submit" loading={action.busy}>
            Invite
          </Button>
        </Group>
      </form>
      <ErrorText error={action.error} />
      {notice && (
        <Text size="sm" c="green" role="status">
          {notice}
        </Text>
      )}
      <Title order={3}>Pending invitations</Title>
      <PageState loading={pending.loading} error={pending.error} onRetry={pending.reload} empty={pending.data?.items.length === 0} emptyText="No invitation is waiting.">
        <DataTable label="Pending invitations" columns={['E-mail', 'Role', 'Invited by', 'Sent', 'Expires', 'Actions']}>
          {pending.data?.items.map((i) => (
            <Table.Tr key={i.id}>
              <Table.Td>{i.email}</Table.Td>
              <Table.Td>{ROLE_LABEL[i.role] ?? i.role}</Table.Td>
              <Table.Td>{nameOf(i.invited_by)}</Table.Td>
              <Table.Td>{when(i.created_at)}</Table.Td>
              <Table.Td>{when(i.expires_at)}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={`Resend the invitation to ${i.email}`}
                    onClick={async () => {
                      setNotice(null);
                      if (await action.run(async () => (await invitations.resend(i.id), true))) {
                        setNotice(`A new link went to ${i.email}; the old one no longer works.`);
                        await pending.reload();
                      }
                    }}
                  >
                    Resend
                  </Button>
                  <ConfirmButton
                    size="xs"
                    variant="light"
                    color="red"
                    label="Revoke"
                    aria-label={`Revoke the invitation to ${i.email}`}
                    title="Revoke this invitation?"
                    message={`The link sent to ${i.email} stops working.`}
                    confirmLabel="Revoke"
                    onConfirm={async () => {
                      await invitations.revoke(i.id);
                      await pending.reload();
                    }}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
    </Stack>
  );
}
