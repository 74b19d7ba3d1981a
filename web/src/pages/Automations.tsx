import { Badge, Button, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { automations as automationsApi, type Automation } from '../api.ts';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { describeStep, describeTrigger, listNamer } from '../automation-words.ts';
import { allLists } from './Lists.tsx';
import { Can } from '../components/Can.tsx';

export type Trigger = Automation['trigger'];
export type Step = Automation['steps'][number];

export function AutomationsPage() {
  const automations = useLoad(() => automationsApi.page({ size: 100 }), []);
  const lists = useLoad(allLists, []);
  const listName = listNamer(lists.data);
  return (
    <Stack>
      <PageHeader title="Automations">
        <Can need="automation.write">
          <Button component={Link} to="/automations/new">
            New automation
          </Button>
        </Can>
      </PageHeader>
      <PageState loading={automations.loading} error={automations.error} onRetry={automations.reload} empty={automations.data?.items.length === 0} emptyText="No automations yet. Build one: a trigger, then steps.">
        <DataTable label="Automations" columns={['Name', 'Trigger', 'Steps', 'State', 'Updated']}>
          {automations.data?.items.map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td>
                <Link to={`/automations/${a.id}`}>{a.name}</Link>
              </Table.Td>
              <Table.Td>{describeTrigger(a.trigger, listName)}</Table.Td>
              <Table.Td>
                <Text size="sm">{a.steps.map((s) => describeStep(s, listName)).join(' → ')}</Text>
              </Table.Td>
              <Table.Td>{a.is_active ? <Badge color="green">Active</Badge> : <Badge color="gray">Inactive</Badge>}</Table.Td>
              <Table.Td>{when(a.updated_at)}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
    </Stack>
  );
}
