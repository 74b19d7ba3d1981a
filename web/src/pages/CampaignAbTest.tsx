import { Badge, Button, Group, NumberInput, Paper, Select, Stack, Switch, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { campaigns, type Schemas } from '../api.ts';
import { DataTable } from '../components/Layout.tsx';
import { PageState } from '../components/PageState.tsx';
import { count, percent } from '../format.ts';
import { useLoad, usePolling } from '../hooks.ts';
import type { Campaign } from './Campaigns.tsx';

type Variant = Schemas['CampaignVariant'];
type AbTest = Schemas['CampaignAbTest'];

/** D23: what the editor keeps of an A/B test: off, or its variants and settings. */
export interface AbTestForm {
  on: boolean;
  variants: Variant[];
  ab_test: AbTest;
}

const DEFAULT_TEST: AbTest = { test_percent: 20, metric: 'human_opens', wait_minutes: 240 };
const VARIANT_FIELDS = ['subject', 'from_name', 'html', 'text'] as const;
const letter = (i: number) => String.fromCharCode(65 + i);

export function abTestForm(c: Campaign): AbTestForm {
  return { on: c.variants !== null, variants: c.variants ?? [{}, {}], ab_test: c.ab_test ?? DEFAULT_TEST };
}

/** The form as the API takes it: both set, or both null. An empty field is the base campaign's (the API stores only the fields a variant sets). */
export function abTestBody(form: AbTestForm): { variants: Variant[] | null; ab_test: AbTest | null } {
  if (!form.on) return { variants: null, ab_test: null };
  return { variants: form.variants, ab_test: form.ab_test };
}

/** D23: the editor's A/B section: 2-4 variants over the content above, the test share, metric and wait. */
export function AbTestEditor({ form, onChange }: { form: AbTestForm; onChange: (form: AbTestForm) => void }) {
  const setVariant = (i: number, field: (typeof VARIANT_FIELDS)[number], value: string) => onChange({ ...form, variants: form.variants.map((v, j) => (j === i ? { ...v, [field]: value } : v)) });
  const setTest = (patch: Partial<AbTest>) => onChange({ ...form, ab_test: { ...form.ab_test, ...patch } });
  return (
    <Paper withBorder p="md" aria-label="A/B test">
      <Stack>
        <Group justify="space-between">
          <Title order={4}>A/B test</Title>
          <Switch label="Test variants" checked={form.on} onChange={(e) => onChange({ ...form, on: e.currentTarget.checked })} />
        </Group>
        {!form.on ? (
          <Text size="sm" c="dimmed">
            Send 2-4 versions of the subject, sender name or content to a part of the audience; the one people open or click most goes to the rest.
          </Text>
        ) : (
          <>
            <Group grow wrap="wrap" align="start">
              <NumberInput label="Test share (%)" description="Of the audience, split equally between the variants" min={2} max={50} value={form.ab_test.test_percent} onChange={(v) => setTest({ test_percent: Number(v) })} />
              <Select
                label="Winner by"
                description="Machines (privacy proxies, scanners) left out"
                data={[
                  { value: 'human_opens', label: 'Human opens' },
                  { value: 'human_clicks', label: 'Human clicks' },
                ]}
                value={form.ab_test.metric}
                onChange={(v) => v && setTest({ metric: v as AbTest['metric'] })}
                allowDeselect={false}
              />
              <NumberInput label="Wait (minutes)" description="After the test share is sent" min={1} max={10080} value={form.ab_test.wait_minutes} onChange={(v) => setTest({ wait_minutes: Number(v) })} />
            </Group>
            <Text size="sm" c="dimmed">
              Leave a field empty to use the campaign's own.
            </Text>
            {form.variants.map((v, i) => (
              <Paper withBorder p="sm" key={i} aria-label={`Variant ${letter(i)}`}>
                <Stack gap="xs">
                  <Group justify="space-between">
                    <Text fw={600}>Variant {letter(i)}</Text>
                    {form.variants.length > 2 && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => onChange({ ...form, variants: form.variants.filter((_, j) => j !== i) })}>
                        Remove variant {letter(i)}
                      </Button>
                    )}
                  </Group>
                  <Group grow wrap="wrap">
                    <TextInput label={`Variant ${letter(i)} subject`} value={v.subject ?? ''} onChange={(e) => setVariant(i, 'subject', e.currentTarget.value)} />
                    <TextInput label={`Variant ${letter(i)} sender name`} value={v.from_name ?? ''} onChange={(e) => setVariant(i, 'from_name', e.currentTarget.value)} />
                  </Group>
                  <Textarea label={`Variant ${letter(i)} HTML`} className="mono" autosize minRows={2} maxRows={12} value={v.html ?? ''} onChange={(e) => setVariant(i, 'html', e.currentTarget.value)} />
                  <Textarea label={`Variant ${letter(i)} plain text`} autosize minRows={1} maxRows={6} value={v.text ?? ''} onChange={(e) => setVariant(i, 'text', e.currentTarget.value)} />
                </Stack>
              </Paper>
            ))}
            {form.variants.length < 4 && (
              <Group>
                <Button variant="light" size="xs" onClick={() => onChange({ ...form, variants: [...form.variants, {}] })}>
                  Add variant
                </Button>
              </Group>
            )}
          </>
        )}
      </Stack>
    </Paper>
  );
}

/** D23: the report's per-variant table; the winner's figures include the rest of the audience. */
export function VariantsReport({ campaign: c }: { campaign: Campaign }) {
  const report = useLoad(() => campaigns.variants(c.id), [c.id, c.status]);
  usePolling(c.status === 'SENDING', 2000, () => void report.reload());
  const variants = report.data?.variants ?? [];
  const deciding = variants.some((v) => v.winner === null);
  return (
    <Paper withBorder p="md">
      <Title order={4} mb="xs">
        A/B test
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {deciding
          ? `Testing: the winner by ${c.ab_test?.metric === 'human_clicks' ? 'human clicks' : 'human opens'} is picked ${c.ab_test?.wait_minutes ?? '?'} minutes after the test share is sent, then sent to the rest.`
          : 'The winner was sent to the rest of the audience; its figures include them.'}
      </Text>
      <PageState loading={report.loading} error={report.error} onRetry={report.reload} empty={variants.length === 0}>
        <DataTable label="Variants" columns={['Variant', 'Subject', 'Share', 'Sent', 'Human opens', 'Human clicks', '']}>
          {variants.map((v) => (
            <Table.Tr key={v.index}>
              <Table.Td>{letter(v.index)}</Table.Td>
              <Table.Td>
                {v.subject}
                {v.from_name && (
                  <Text size="xs" c="dimmed">
                    From {v.from_name}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{percent(v.share_percent)}</Table.Td>
              <Table.Td>{count(v.sent)}</Table.Td>
              <Table.Td>
                {count(v.human_opened)} · {percent(v.human_open_rate)}
              </Table.Td>
              <Table.Td>
                {count(v.human_clicked)} · {percent(v.human_click_rate)}
              </Table.Td>
              <Table.Td>
                {v.winner === true && (
                  <Badge color="green" aria-label={`Variant ${letter(v.index)} won`}>
                    Winner
                  </Badge>
                )}
                {v.winner === null && (
                  <Badge color="yellow" variant="light">
                    Testing
                  </Badge>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
    </Paper>
  );
}
