import { Anchor, Card, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { AccountTimeZone } from '../components/AccountTimeZone.tsx';
import { PageHeader } from '../components/Layout.tsx';
import { can, ROLE_LABEL } from '../permissions.ts';
import { useSession } from '../session.tsx';

/** D17.10: `/settings` is a page, not raw JSON: the account and the signed-in user, and where the rest is managed. */
export function SettingsPage() {
  const { session } = useSession();
  if (!session) return null;
  return (
    <Stack>
      <PageHeader title="Settings" />
      <Card withBorder padding="lg" radius="md">
        <Title order={3} mb="sm">
          Account
        </Title>
        <Table aria-label="Account" variant="vertical" withTableBorder={false}>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={160}>Name</Table.Th>
              <Table.Td>{session.account.name}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Plan</Table.Th>
              <Table.Td>{session.account.plan}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Slug</Table.Th>
              <Table.Td>
                <Text component="span" ff="monospace" size="sm">
                  {session.account.slug}
                </Text>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Public archive</Table.Th>
              <Table.Td>
                {/* D22: the campaigns marked "Show in the public archive", once sent, with an RSS feed. */}
                <Anchor href={`/archive/${encodeURIComponent(session.account.slug)}`} target="_blank" rel="noreferrer">
                  {`${window.location.origin}/archive/${session.account.slug}`}
                </Anchor>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Signed in as</Table.Th>
              <Table.Td>
                {session.user.email} ({ROLE_LABEL[session.user.role]})
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <Text size="sm" c="dimmed" mt="sm">
          The plan is managed by whoever runs this Sendwell instance, with its command line (sendwell accounts).
        </Text>
      </Card>
      <Card withBorder padding="lg" radius="md">
        <Title order={3} mb="xs">
          Time zone
        </Title>
        {/* Issue 34: every date the dashboard shows is in it; scheduling offers it first. */}
        <Text size="sm" c="dimmed" mb="sm">
          Dates everywhere in the dashboard are shown in this zone, and scheduling starts from it.
        </Text>
        <AccountTimeZone />
      </Card>
      <Card withBorder padding="lg" radius="md">
        <Title order={3} mb="sm">
          Team and security
        </Title>
        {/* D24.9: only what the role can open. */}
        <Stack gap="xs">
          <Anchor component={Link} to="/settings/members">
            Members{can(session, '*') ? ' and invitations' : ''}
          </Anchor>
          <Anchor component={Link} to="/settings/security">
            Your password, two-factor sign-in and sessions
          </Anchor>
          {can(session, '*') && (
            <Anchor component={Link} to="/settings/audit-log">
              Audit log
            </Anchor>
          )}
        </Stack>
      </Card>
      {can(session, '*') && (
        <Card withBorder padding="lg" radius="md">
          <Title order={3} mb="sm">
            Connections
          </Title>
          <Stack gap="xs">
            <Anchor component={Link} to="/keys">
              API keys
            </Anchor>
            <Anchor component={Link} to="/settings/webhooks">
              Webhooks
            </Anchor>
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
