import { Anchor, Badge, Button, Checkbox, Group, NumberInput, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { automations, type Automation, type AutomationBody } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { useAction, useLoad, usePolling } from '../hooks.ts';
import { type Step, type Trigger } from './Automations.tsx';
import { allLists } from './Lists.tsx';
import { CONDITION_OPS, DEFAULT_TRIGGER, DURATION_UNITS, splitDuration, STEP_LABELS, STEP_STATUS_WORDS, toSeconds, TRIGGER_LABELS, type DurationUnit } from '../automation-words.ts';
import { MailStepFields } from '../components/AutomationMailStep.tsx';
import { Can } from '../components/Can.tsx';

/** D15's step types, with the fields each one takes (their names in words: STEP_LABELS). */
const STEP_FIELDS: Record<string, { fields: { name: string; label: string; kind: 'text' | 'number' | 'list' | 'op' | 'duration'; required?: boolean }[] }> = {
  // Issue 34 item 11: written as a campaign's content is (MailStepFields).
  SEND_EMAIL: { fields: [] },
  WAIT: { fields: [{ name: 'seconds', label: 'Wait for', kind: 'duration', required: true }] },
  ADD_TAG: { fields: [{ name: 'tag', label: 'Tag', kind: 'text', required: true }] },
  REMOVE_TAG: { fields: [{ name: 'tag', label: 'Tag', kind: 'text', required: true }] },
  ADD_TO_LIST: { fields: [{ name: 'list_id', label: 'List', kind: 'list', required: true }] },
  REMOVE_FROM_LIST: { fields: [{ name: 'list_id', label: 'List', kind: 'list', required: true }] },
  UPDATE_LEAD_SCORE: { fields: [{ name: 'delta', label: 'Add (negative to subtract)', kind: 'number', required: true }] },
  CONDITION: {
    fields: [
      { name: 'field', label: 'Field (tags, lead_score, status, custom_fields.<key>, event.<path>)', kind: 'text', required: true },
      { name: 'op', label: 'Test', kind: 'op', required: true },
      { name: 'value', label: 'Value', kind: 'text' },
    ],
  },
};

/**
 * The form's drafts: a trigger or step of a chosen type with its fields as typed so far. Steps are
 * edited field by field from STEP_FIELDS, so a step draft is indexed by field name; the server
 * checks what is saved against D15 (400 naming the field).
 */
type Draft<T> = T extends { type: string } ? Pick<T, 'type'> & Partial<T> : never;
type TriggerDraft = Draft<Trigger>;
type StepDraft = Pick<Step, 'type'> & Record<string, unknown>;

export function AutomationEditorPage() {
  const id = useParams().id!;
  const isNew = id === 'new';
  const automation = useLoad(async () => (isNew ? null : automations.get(Number(id))), [id]);
  return (
    <Stack>
      <Anchor component={Link} to="/automations" size="sm">
        ← Automations
      </Anchor>
      <PageState loading={automation.loading} error={automation.error} onRetry={automation.reload} empty={automation.data === undefined}>
        {automation.data !== undefined && (
          <>
            <AutomationForm key={automation.data?.updated_at ?? 'new'} automation={automation.data} onSaved={automation.reload} />
            {automation.data && <Runs automationId={automation.data.id} />}
          </>
        )}
      </PageState>
    </Stack>
  );
}

function AutomationForm({ automation, onSaved }: { automation: Automation | null; onSaved: () => Promise<void> }) {
  const navigate = useNavigate();
  const [name, setName] = useState(automation?.name ?? '');
  const [trigger, setTrigger] = useState<TriggerDraft>(automation?.trigger ?? DEFAULT_TRIGGER);
  const [steps, setSteps] = useState<StepDraft[]>(automation?.steps ?? [{ type: 'ADD_TAG', tag: '' }]);
  const [allowReentry, setAllowReentry] = useState(automation?.allow_reentry ?? false);
  const [notice, setNotice] = useState<string | null>(null);
  const lists = useLoad(allLists, []);
  const listOptions = (lists.data ?? []).map((l) => ({ value: String(l.id), label: l.name }));
  const action = useAction();

  const setStep = (i: number, step: StepDraft) => setSteps(steps.map((s, j) => (j === i ? step : s)));
  const move = (i: number, by: number) => {
    const next = [...steps];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    setSteps(next);
  };

  async function save() {
    setNotice(null);
    const body = { name, trigger, steps, allow_reentry: allowReentry } as AutomationBody;
    const saved = await action.run(() => (automation ? automations.update(automation.id, body) : automations.create(body)));
    if (!saved) return;
    if (!automation) navigate(`/automations/${saved.id}`, { replace: true });
    else {
      setNotice('Saved.');
      await onSaved();
    }
  }
  async function toggleActive() {
    if (!automation) return;
    const ok = await action.run(() => (automation.is_active ? automations.deactivate(automation.id) : automations.activate(automation.id)));
    if (ok) await onSaved();
  }

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={2}>{automation ? automation.name : 'New automation'}</Title>
        {automation && (
          <Group>
            <Badge size="lg" color={automation.is_active ? 'green' : 'gray'}>
              {automation.is_active ? 'Active' : 'Inactive'}
            </Badge>
            <Can need="automation.write">
              <Button variant={automation.is_active ? 'default' : 'filled'} color={automation.is_active ? undefined : 'green'} onClick={() => void toggleActive()} loading={action.busy}>
                {automation.is_active ? 'Deactivate' : 'Activate'}
              </Button>
            </Can>
          </Group>
        )}
      </Group>
      <Paper withBorder p="md">
        <Stack>
          <TextInput label="Automation name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Group align="end" wrap="wrap">
            <Select label="Trigger" data={[...TRIGGER_LABELS]} value={trigger.type} allowDeselect={false} onChange={(v) => v && setTrigger({ type: v as Trigger['type'] })} />
            {trigger.type === 'EVENT' && <TextInput label="Event name" required value={trigger.event ?? ''} onChange={(e) => setTrigger({ ...trigger, event: e.currentTarget.value })} />}
            {(trigger.type === 'TAG_ADDED' || trigger.type === 'TAG_REMOVED') && <TextInput label="Tag" required value={trigger.tag ?? ''} onChange={(e) => setTrigger({ ...trigger, tag: e.currentTarget.value })} />}
            {trigger.type === 'LIST_JOINED' && (
              <Select label="List" required data={listOptions} value={trigger.list_id ? String(trigger.list_id) : null} onChange={(v) => setTrigger({ ...trigger, list_id: v ? Number(v) : undefined })} />
            )}
          </Group>
          <Checkbox label="A contact may be in several runs at once" checked={allowReentry} onChange={(e) => setAllowReentry(e.currentTarget.checked)} />
        </Stack>
      </Paper>
      {steps.map((step, i) => (
        <Paper withBorder p="md" key={i} aria-label={`Step ${i + 1}`}>
          <Stack>
            <Group justify="space-between" wrap="wrap">
              <Select
                label={`Step ${i + 1}`}
                data={Object.keys(STEP_FIELDS).map((value) => ({ value, label: STEP_LABELS[value] }))}
                value={step.type}
                allowDeselect={false}
                onChange={(v) => v && setStep(i, { type: v as Step['type'] })}
              />
              <Group gap="xs">
                <Button size="xs" variant="default" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move step ${i + 1} up`}>
                  Up
                </Button>
                <Button size="xs" variant="default" disabled={i === steps.length - 1} onClick={() => move(i, 1)} aria-label={`Move step ${i + 1} down`}>
                  Down
                </Button>
                <Button size="xs" variant="subtle" color="red" disabled={steps.length === 1} onClick={() => setSteps(steps.filter((_, j) => j !== i))} aria-label={`Remove step ${i + 1}`}>
                  Remove
                </Button>
              </Group>
            </Group>
            {step.type === 'SEND_EMAIL' && <MailStepFields step={step} onChange={(next) => setStep(i, next as StepDraft)} trigger={trigger} listName={(id) => lists.data?.find((l) => l.id === id)?.name} index={i} />}
            {STEP_FIELDS[step.type]?.fields.map((f) => {
              const value = step[f.name];
              const label = f.label;
              const update = (v: unknown) => setStep(i, { ...step, [f.name]: v });
              if (f.kind === 'duration') return <DurationInput key={f.name} label={label} seconds={typeof value === 'number' ? value : undefined} onChange={update} />;
              if (f.kind === 'number') return <NumberInput key={f.name} label={label} required={f.required} value={typeof value === 'number' ? value : ''} onChange={(v) => update(typeof v === 'number' ? v : undefined)} />;
              if (f.kind === 'list') return <Select key={f.name} label={label} required data={listOptions} value={value ? String(value) : null} onChange={(v) => update(v ? Number(v) : undefined)} />;
              if (f.kind === 'op') return <Select key={f.name} label={label} required data={CONDITION_OPS} value={(value as string) ?? null} onChange={(v) => update(v ?? undefined)} />;
              return <TextInput key={f.name} label={label} required={f.required} value={(value as string) ?? ''} onChange={(e) => update(e.currentTarget.value)} />;
            })}
          </Stack>
        </Paper>
      ))}
      <Group>
        <Button variant="light" onClick={() => setSteps([...steps, { type: 'ADD_TAG', tag: '' }])}>
          Add step
        </Button>
      </Group>
      <ErrorText error={action.error} />
      {notice && (
        <Text c="green" role="status">
          {notice}
        </Text>
      )}
      <Group justify="space-between">
        {automation ? (
          <Can need="automation.write">
            <ConfirmButton
              variant="light"
              color="red"
              label="Delete automation"
              title="Delete this automation?"
              message="Its runs stop and are deleted."
              confirmLabel="Delete"
              onConfirm={async () => {
                await automations.remove(automation.id);
                navigate('/automations');
              }}
            />
          </Can>
        ) : (
          <span />
        )}
        <Can need="automation.write">
          <Button onClick={() => void save()} loading={action.busy}>
            Save automation
          </Button>
        </Can>
      </Group>
    </Stack>
  );
}

function Runs({ automationId }: { automationId: number }) {
  const runs = useLoad(() => automations.runs(automationId, { size: 50 }), [automationId]);
  usePolling(true, 3000, () => void runs.reload());
  return (
    <Paper withBorder p="md">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Runs</Title>
        <Button size="xs" variant="default" onClick={() => void runs.reload()}>
          Refresh
        </Button>
      </Group>
      <PageState loading={runs.loading} error={runs.error} empty={runs.data?.items.length === 0} emptyText="No runs yet. Runs start when the trigger happens while the automation is active.">
        <div className="table-scroll">
          <Table aria-label="Runs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Contact</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Steps done</Table.Th>
                <Table.Th>Next</Table.Th>
                <Table.Th>Started</Table.Th>
                <Table.Th>Finished</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.data?.items.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{r.email}</Table.Td>
                  <Table.Td>
                    <Badge color={r.status === 'COMPLETED' ? 'green' : r.status === 'ACTIVE' ? 'blue' : 'gray'}>{r.status}</Badge>
                    {r.ended_reason && (
                      <Text size="xs" c="dimmed">
                        {r.ended_reason}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{r.history.map((h) => `${STEP_LABELS[h.type] ?? h.type}: ${STEP_STATUS_WORDS[h.status] ?? h.status}`).join(', ') || '—'}</Table.Td>
                  <Table.Td>{r.current_step_type ? `${STEP_LABELS[r.current_step_type] ?? r.current_step_type}${r.due_at ? ` at ${when(r.due_at)}` : ''}` : '—'}</Table.Td>
                  <Table.Td>{when(r.created_at)}</Table.Td>
                  <Table.Td>{when(r.finished_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      </PageState>
    </Paper>
  );
}

/** A WAIT's length in minutes, hours or days; the API keeps seconds (D15). */
function DurationInput({ label, seconds, onChange }: { label: string; seconds: number | undefined; onChange: (seconds: number | undefined) => void }) {
  const initial = seconds === undefined ? { amount: undefined, unit: 'hours' as DurationUnit } : splitDuration(seconds);
  const [unit, setUnit] = useState<DurationUnit>(initial.unit);
  const [amount, setAmount] = useState<number | undefined>(initial.amount);
  const set = (a: number | undefined, u: DurationUnit) => {
    setAmount(a);
    setUnit(u);
    onChange(a === undefined ? undefined : toSeconds(a, u));
  };
  return (
    <Group align="end" wrap="nowrap">
      <NumberInput label={label} required min={0} decimalScale={2} value={amount ?? ''} onChange={(v) => set(typeof v === 'number' ? v : undefined, unit)} />
      <Select aria-label="Unit" data={DURATION_UNITS.map((u) => ({ value: u.value, label: u.label }))} value={unit} allowDeselect={false} onChange={(v) => v && set(amount, v as DurationUnit)} w={120} />
    </Group>
  );
}
