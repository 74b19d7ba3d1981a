import { Anchor, Badge, Card, Group, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { campaigns as campaignsApi, contacts as contactsApi, lists as listsApi } from '../api.ts';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { PageState } from '../components/PageState.tsx';
import { count, percent, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { Can } from '../components/Can.tsx';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';
import { CAMPAIGN_COLOR } from './Campaigns.tsx';

const RECENT = 5;

/** The numbers a marketer looks at first: the newest campaigns with their rates, and the audience's size. */
async function loadOverview() {
  const [campaigns, contacts, lists] = await Promise.all([
    campaignsApi.page({ size: RECENT, page: 0 }),
    contactsApi.page({ size: 1, page: 0, status: 'SUBSCRIBED' }),
    listsApi.page({ size: 1, page: 0 }),
  ]);
  // Statistics exist only for SENT campaigns (D13: 409 CAMPAIGN_NOT_SENT otherwise).
  const stats = await Promise.all(
    campaigns.items.map((c) => (c.status === 'SENT' ? campaignsApi.statistics(c.id) : Promise.resolve(null))),
  );
  return { campaigns: campaigns.items.map((c, i) => ({ campaign: c, stats: stats[i] })), totalCampaigns: campaigns.totalElements, subscribed: contacts.totalElements, lists: lists.totalElements };
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder padding="md" radius="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} aria-label={label}>
        {value}
      </Text>
    </Card>
  );
}

/** D17 item 11: where a marketer lands after signing in, instead of the API-keys page. */
export function OverviewPage() {
  const overview = useLoad(loadOverview, []);
  const data = overview.data;
  // D24.9: the first steps are offered to a role that can take them.
  const mayStart = can(useSession().session, 'lists.write');
  const isNew = mayStart && data !== undefined && data.totalCampaigns === 0 && data.subscribed === 0;
  return (
    <Stack>
      <PageHeader title="Overview" />
      <PageState loading={overview.loading} error={overview.error} onRetry={overview.reload} empty={data === undefined}>
        {data && (
          <>
            <SimpleGrid cols={{ base: 1, xs: 3 }}>
              <Figure label="Subscribed contacts" value={count(data.subscribed)} />
              <Figure label="Lists" value={count(data.lists)} />
              <Figure label="Campaigns" value={count(data.totalCampaigns)} />
            </SimpleGrid>
            {isNew ? (
              <Card withBorder padding="lg" radius="md">
                <Title order={3} mb="sm">
                  Get started
                </Title>
                <List type="ordered" spacing="xs">
                  <List.Item>
                    <Anchor component={Link} to="/lists">
                      Create a list
                    </Anchor>{' '}
                    for the people you write to.
                  </List.Item>
                  <List.Item>
                    <Anchor component={Link} to="/contacts">
                      Add or import contacts
                    </Anchor>{' '}
                    from a CSV file.
                  </List.Item>
                  <List.Item>
                    <Anchor component={Link} to="/campaigns">
                      Write a campaign
                    </Anchor>{' '}
                    and send it, or try it on yourself with a test send.
                  </List.Item>
                  <Can need="*">
                    <List.Item>
                      <Anchor component={Link} to="/keys">
                        Create an API key
                      </Anchor>{' '}
                      to connect your app.
                    </List.Item>
                  </Can>
                </List>
              </Card>
            ) : (
              <>
                <Group justify="space-between">
                  <Title order={3}>Recent campaigns</Title>
                  <Anchor component={Link} to="/campaigns">
                    All campaigns
                  </Anchor>
                </Group>
                <DataTable label="Recent campaigns" columns={['Campaign', 'Status', 'Delivered', 'Human opens', 'Human clicks', 'Bounces', 'Unsubscribes']} stack>
                  {data.campaigns.map(({ campaign, stats }) => (
                    <Table.Tr key={campaign.id}>
                      <Table.Td>
                        <Link to={`/campaigns/${campaign.id}`}>{campaign.name}</Link>
                        <Text size="xs" c="dimmed">
                          {campaign.sent_at ? `sent ${when(campaign.sent_at)}` : `created ${when(campaign.created_at)}`}
                        </Text>
                      </Table.Td>
                      <Table.Td data-label="Status">
                        <Badge color={CAMPAIGN_COLOR[campaign.status]} variant="light" className="status-badge">
                          {campaign.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td data-label="Delivered">{stats ? count(stats.delivered) : '—'}</Table.Td>
                      <Table.Td data-label="Human opens">{stats ? percent(stats.human_open_rate) : '—'}</Table.Td>
                      <Table.Td data-label="Human clicks">{stats ? percent(stats.human_click_rate) : '—'}</Table.Td>
                      <Table.Td data-label="Bounces">{stats ? percent(stats.bounce_rate) : '—'}</Table.Td>
                      <Table.Td data-label="Unsubscribes">{stats ? percent(stats.unsubscribe_rate) : '—'}</Table.Td>
                    </Table.Tr>
                  ))}
                </DataTable>
              </>
            )}
          </>
        )}
      </PageState>
    </Stack>
  );
}
