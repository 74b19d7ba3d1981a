import { ActionIcon, Anchor, Button, Group, MultiSelect, NumberInput, Paper, SegmentedControl, Select, Stack, Switch, Table, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { campaigns as campaignsApi, segments as segmentsApi, type SegmentFilter, type Schemas } from '../api.ts';
import { DeleteButton } from '../components/ConfirmButton.tsx';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import {
  countConditions,
  defaultValue,
  fieldOptions,
  fromFilter,
  kindOf,
  MAX_CONDITIONS,
  MAX_DEPTH,
  newCondition,
  newGroup,
  OP_LABEL,
  opsFor,
  STATUSES,
  takesList,
  takesNoValue,
  toFilter,
  updateNode,
  type BuilderNode,
  type ConditionNode,
  type FieldOption,
  type GroupNode,
} from '../segment-builder.ts';
import type { Campaign } from './Campaigns.tsx';
import { allLists, type ContactList } from './Lists.tsx';
import { Can } from '../components/Can.tsx';

/** The API's segment, from the types generated off the served OpenAPI document. */
export type Segment = Schemas['Segment'];

/** Every segment of the account (pages of 100), for pickers. */
export const allSegments = segmentsApi.all;

export function SegmentsPage() {
  const segments = useLoad(allSegments, []);
  return (
    <Stack>
      <PageHeader title="Segments">
        <Can need="lists.write">
          <Button component={Link} to="/segments/new">
            New segment
          </Button>
        </Can>
      </PageHeader>
      <Text size="sm" c="dimmed">
        A segment is a saved filter: its members are counted again whenever it is read or a campaign is sent to it.
      </Text>
      <PageState loading={segments.loading} error={segments.error} onRetry={segments.reload} empty={segments.data?.length === 0} emptyText="No segments yet. Build one from contact fields, tags, lists and engagement.">
        <DataTable label="Segments" columns={['Name', 'Members now', 'Updated', 'Actions']}>
          {segments.data?.map((s) => (
            <Table.Tr key={s.id}>
              <Table.Td>
                <Anchor component={Link} to={`/segments/${s.id}`} fw={500}>
                  {s.name}
                </Anchor>
                {s.description && (
                  <Text size="xs" c="dimmed">
                    {s.description}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Link to={`/contacts?segment_id=${s.id}`}>{count(s.contact_count)} contacts</Link>
              </Table.Td>
              <Table.Td>{when(s.updated_at)}</Table.Td>
              <Table.Td>
                <DeleteButton
                  need="lists.write"
                  noun="segment"
                  name={s.name}
                  message="The contacts stay. A draft campaign that targets it takes no one from it any more."
                  onConfirm={async () => {
                    await segmentsApi.remove(s.id);
                    await segments.reload();
                  }}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
    </Stack>
  );
}

interface Choices {
  options: FieldOption[];
  lists: ContactList[];
  tags: string[];
  campaigns: Campaign[];
}

async function loadChoices(): Promise<Choices> {
  const [fields, lists, campaigns] = await Promise.all([
    segmentsApi.fields(),
    allLists(),
    campaignsApi.page({ status: 'SENT', size: 100 }),
  ]);
  return { options: fieldOptions(fields.custom_fields), lists, tags: fields.tags, campaigns: campaigns.items };
}

/** /segments/new and /segments/:id: the builder, with the live count and a sample as you build. */
export function SegmentEditorPage() {
  const id = useParams().id!;
  const isNew = id === 'new';
  const choices = useLoad(loadChoices, []);
  const saved = useLoad(() => (isNew ? Promise.resolve(null) : segmentsApi.get(Number(id))), [id]);
  return (
    <Stack>
      <Anchor component={Link} to="/segments" size="sm">
        ← Segments
      </Anchor>
      <PageState loading={choices.loading || saved.loading} error={choices.error ?? saved.error} onRetry={() => void Promise.all([choices.reload(), saved.reload()])} empty={!choices.data || (!isNew && !saved.data)}>
        {choices.data && (isNew || saved.data) && <SegmentEditor key={saved.data?.updated_at ?? 'new'} segment={saved.data ?? null} choices={choices.data} />}
      </PageState>
    </Stack>
  );
}

function SegmentEditor({ segment, choices }: { segment: Segment | null; choices: Choices }) {
  const navigate = useNavigate();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [root, setRoot] = useState<GroupNode>(() => (segment ? fromFilter(segment.filter) : newGroup('all', [newCondition('tags', choices.options)])));
  const filter = useMemo(() => toFilter(root, choices.options), [root, choices.options]);
  const [filterKey] = useDebouncedValue(JSON.stringify(filter), 350);
  const preview = useLoad(() => segmentsApi.preview({ filter: JSON.parse(filterKey) }), [filterKey]);
  const action = useAction();
  const conditions = countConditions(root);
  const edit = (nodeId: number, fn: (n: BuilderNode) => BuilderNode | null) => setRoot((r) => updateNode(r, nodeId, fn));

  async function save() {
    // The builder makes only filters of the document's shape (segment-builder.ts); the server checks the rest.
    const body = { name, description: description.trim() || null, filter: filter as SegmentFilter };
    const result = await action.run(() => (segment ? segmentsApi.update(segment.id, body) : segmentsApi.create(body)));
    if (result && !segment) navigate(`/segments/${result.id}`, { replace: true });
  }

  return (
    <Stack>
      <Title order={2}>{segment ? segment.name : 'New segment'}</Title>
      <div className="two-columns">
        <Stack>
          <Paper withBorder p="md">
            <Stack>
              <TextInput label="Segment name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
              <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} autosize minRows={1} />
            </Stack>
          </Paper>
          <Paper withBorder p="md" aria-label="Conditions">
            <GroupEditor node={root} depth={1} choices={choices} edit={edit} canAdd={conditions < MAX_CONDITIONS} isRoot />
          </Paper>
          <ErrorText error={action.error} />
          <Group>
            <Can need="lists.write">
              <Button onClick={() => void save()} loading={action.busy}>
                Save segment
              </Button>
            </Can>
          </Group>
        </Stack>
        <Paper withBorder p="md" aria-label="Live preview">
          <Stack>
            <Title order={4}>Who is in it now</Title>
            {preview.error ? (
              <ErrorText error={preview.error} />
            ) : (
              <Text size="xl" fw={700} role="status" aria-live="polite">
                {preview.data ? `${count(preview.data.count)} contacts` : 'Counting…'}
              </Text>
            )}
            {preview.data && preview.data.contacts.length > 0 && (
              <DataTable label="Sample members" columns={['E-mail', 'Name', 'Status']}>
                {preview.data.contacts.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>
                      <Link to={`/contacts/${encodeURIComponent(c.email)}`}>{c.email}</Link>
                    </Table.Td>
                    <Table.Td>{[c.first_name, c.last_name].filter(Boolean).join(' ') || '—'}</Table.Td>
                    <Table.Td>{c.status}</Table.Td>
                  </Table.Tr>
                ))}
              </DataTable>
            )}
            <Text size="xs" c="dimmed">
              {conditions} of {MAX_CONDITIONS} conditions; groups nest up to {MAX_DEPTH} deep.
            </Text>
          </Stack>
        </Paper>
      </div>
    </Stack>
  );
}

interface EditorProps {
  choices: Choices;
  edit: (id: number, fn: (n: BuilderNode) => BuilderNode | null) => void;
  canAdd: boolean;
}

function GroupEditor({ node, depth, choices, edit, canAdd, isRoot }: EditorProps & { node: GroupNode; depth: number; isRoot?: boolean }) {
  return (
    <Stack gap="sm" className={isRoot ? undefined : 'filter-group'} aria-label={isRoot ? 'Filter' : 'Group of conditions'}>
      <Group gap="sm" wrap="wrap">
        <Text size="sm">Contacts matching</Text>
        <SegmentedControl
          size="xs"
          value={node.mode}
          onChange={(mode) => edit(node.id, (n) => ({ ...(n as GroupNode), mode: mode as 'all' | 'any' }))}
          data={[
            { value: 'all', label: 'all of' },
            { value: 'any', label: 'any of' },
          ]}
          aria-label="Match all or any"
        />
        <Switch size="xs" label="Exclude these" checked={node.negate} onChange={(e) => edit(node.id, (n) => ({ ...(n as GroupNode), negate: e.currentTarget.checked }))} />
        {!isRoot && (
          <Button size="compact-xs" variant="subtle" color="red" onClick={() => edit(node.id, () => null)} aria-label="Remove group">
            Remove group
          </Button>
        )}
      </Group>
      {node.children.map((child) =>
        child.kind === 'group' ? (
          <GroupEditor key={child.id} node={child} depth={depth + 1} choices={choices} edit={edit} canAdd={canAdd} />
        ) : (
          <ConditionEditor key={child.id} node={child} choices={choices} edit={edit} />
        ),
      )}
      <Group gap="xs">
        <Button size="xs" variant="light" disabled={!canAdd} onClick={() => edit(node.id, (n) => ({ ...(n as GroupNode), children: [...(n as GroupNode).children, newCondition('email', choices.options)] }))}>
          Add condition
        </Button>
        {depth < MAX_DEPTH && (
          <Button size="xs" variant="subtle" disabled={!canAdd} onClick={() => edit(node.id, (n) => ({ ...(n as GroupNode), children: [...(n as GroupNode).children, newGroup(node.mode === 'all' ? 'any' : 'all', [newCondition('email', choices.options)])] }))}>
            Add group
          </Button>
        )}
      </Group>
    </Stack>
  );
}

function ConditionEditor({ node, choices, edit }: Omit<EditorProps, 'canAdd'> & { node: ConditionNode }) {
  const kind = kindOf(node.field, choices.options);
  const set = (patch: Partial<ConditionNode>) => edit(node.id, (n) => ({ ...(n as ConditionNode), ...patch }));
  const groups = [...new Set(choices.options.map((o) => o.group))].map((group) => ({ group, items: choices.options.filter((o) => o.group === group).map((o) => ({ value: o.value, label: o.label })) }));
  const listData = choices.lists.map((l) => ({ value: String(l.id), label: l.name }));
  const campaignData = [{ value: 'any', label: 'any campaign' }, ...choices.campaigns.map((c) => ({ value: String(c.id), label: c.name }))];
  return (
    <Group gap="xs" align="flex-end" wrap="wrap" className="filter-condition" aria-label="Condition">
      <Select label="Field" size="xs" w={190} data={groups} value={node.field} searchable allowDeselect={false} onChange={(field) => field && edit(node.id, () => ({ ...newCondition(field, choices.options), id: node.id }))} />
      {kind === 'engagement' || kind === 'event' ? (
        <Select
          label="Did"
          size="xs"
          w={110}
          allowDeselect={false}
          data={[
            { value: 'true', label: 'did' },
            { value: 'false', label: 'did not' },
          ]}
          value={String(node.value !== false)}
          onChange={(v) => set({ value: v === 'true' })}
        />
      ) : (
        <Select label="Operator" size="xs" w={180} allowDeselect={false} data={opsFor(kind).map((op) => ({ value: op, label: OP_LABEL[op] }))} value={node.op} onChange={(op) => op && set({ op, value: defaultValue(kind, op) })} />
      )}
      <ValueInput node={node} kind={kind} choices={choices} listData={listData} set={set} />
      {kind === 'engagement' && (
        <Select label="Campaign" size="xs" w={200} searchable allowDeselect={false} data={campaignData} value={String(node.campaign_id ?? 'any')} onChange={(v) => set({ campaign_id: v === 'any' || !v ? 'any' : Number(v) })} />
      )}
      {kind === 'event' && <TextInput label="Event name" size="xs" w={160} value={node.event ?? ''} onChange={(e) => set({ event: e.currentTarget.value })} />}
      {(kind === 'engagement' || kind === 'event') && (
        <NumberInput label="Within days" size="xs" w={110} min={0} placeholder="ever" value={node.within_days ?? ''} onChange={(v) => set({ within_days: v === '' ? null : Number(v) })} />
      )}
      <ActionIcon variant="subtle" color="red" size="lg" aria-label="Remove condition" onClick={() => edit(node.id, () => null)}>
        ×
      </ActionIcon>
    </Group>
  );
}

function ValueInput({ node, kind, choices, listData, set }: { node: ConditionNode; kind: ReturnType<typeof kindOf>; choices: Choices; listData: { value: string; label: string }[]; set: (p: Partial<ConditionNode>) => void }) {
  if (kind === 'engagement' || kind === 'event' || takesNoValue(node.op)) return null;
  const label = 'Value';
  if (kind === 'lists') {
    return node.op === 'in' ? (
      <MultiSelect label="Lists" size="xs" w={220} data={listData} value={((node.value as unknown[]) ?? []).map(String)} onChange={(v) => set({ value: v.map(Number) })} searchable />
    ) : (
      <Select label="List" size="xs" w={200} data={listData} value={node.value == null ? null : String(node.value)} onChange={(v) => set({ value: v === null ? null : Number(v) })} searchable />
    );
  }
  if (kind === 'tags') {
    return node.op === 'in' ? (
      <TagsInput label="Tags" size="xs" w={220} data={choices.tags} value={(node.value as string[]) ?? []} onChange={(v) => set({ value: v })} />
    ) : (
      <Select label="Tag" size="xs" w={180} data={[...new Set([...choices.tags, ...(node.value ? [String(node.value)] : [])])]} value={(node.value as string) || null} onChange={(v) => set({ value: v ?? '' })} searchable />
    );
  }
  if (kind === 'status') {
    return takesList(node.op) ? (
      <MultiSelect label="Statuses" size="xs" w={220} data={[...STATUSES]} value={(node.value as string[]) ?? []} onChange={(v) => set({ value: v })} />
    ) : (
      <Select label="Status" size="xs" w={160} allowDeselect={false} data={[...STATUSES]} value={String(node.value)} onChange={(v) => set({ value: v })} />
    );
  }
  if (kind === 'custom_boolean') {
    return (
      <Select
        label={label}
        size="xs"
        w={100}
        allowDeselect={false}
        data={[
          { value: 'true', label: 'true' },
          { value: 'false', label: 'false' },
        ]}
        value={String(node.value !== false)}
        onChange={(v) => set({ value: v === 'true' })}
      />
    );
  }
  if (takesList(node.op)) return <TagsInput label="Values" size="xs" w={220} placeholder="Type and press Enter" value={((node.value as unknown[]) ?? []).map(String)} onChange={(v) => set({ value: v })} />;
  if (kind === 'date') {
    if (node.op === 'within_days' || node.op === 'before_days') return <NumberInput label="Days" size="xs" w={90} min={0} value={Number(node.value ?? 0)} onChange={(v) => set({ value: Number(v) })} />;
    return <TextInput label="Date (UTC)" size="xs" w={190} type="datetime-local" value={String(node.value ?? '')} onChange={(e) => set({ value: e.currentTarget.value.length === 16 ? `${e.currentTarget.value}:00` : e.currentTarget.value })} />;
  }
  if (kind === 'number' || kind === 'custom_number') return <NumberInput label={label} size="xs" w={110} value={Number(node.value ?? 0)} onChange={(v) => set({ value: Number(v) })} />;
  return <TextInput label={label} size="xs" w={180} value={String(node.value ?? '')} onChange={(e) => set({ value: e.currentTarget.value })} />;
}
