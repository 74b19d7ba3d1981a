import { Alert, Badge, Button, CopyButton, Group, NumberInput, Paper, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { domains, type Schemas } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { Can } from '../components/Can.tsx';

type SendingDomain = Schemas['SendingDomain'];
type Purpose = SendingDomain['records'][number]['purpose'];

const FOUND_KEY: Record<Purpose, keyof SendingDomain['found']> = { DKIM: 'dkim', SPF: 'spf', DMARC: 'dmarc' };

/** D23: the domains the account sends from: the DNS records to publish, their check, and the warm-up plan. */
export function DomainsPage() {
  const list = useLoad(() => domains.page({ size: 100 }), []);
  const [domain, setDomain] = useState('');
  const action = useAction();

  async function add(e: FormEvent) {
    e.preventDefault();
    if (await action.run(() => domains.create({ domain }))) {
      setDomain('');
      await list.reload();
    }
  }

  return (
    <Stack>
      <PageHeader title="Sending domains" />
      <Text size="sm" c="dimmed">
        Add the domain your From addresses use and publish its records at your DNS host. Once the DKIM record is verified, mail from the domain is signed with its key. A warm-up plan caps
        how much a new domain sends per day, growing each day, so mailbox providers learn to trust it.
      </Text>
      <form onSubmit={add} aria-label="Add a sending domain">
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Domain" required placeholder="example.com" className="field-wide" value={domain} onChange={(e) => setDomain(e.currentTarget.value)} />
          <Can need="campaigns.write">
            <Button type="submit" loading={action.busy}>
              Add domain
            </Button>
          </Can>
        </Group>
      </form>
      <ErrorText error={action.error} />
      <PageState loading={list.loading} error={list.error} onRetry={list.reload} empty={list.data?.items.length === 0} emptyText="No sending domains yet.">
        {list.data?.items.map((d) => <DomainCard key={d.id} initial={d} onDeleted={list.reload} />)}
      </PageState>
    </Stack>
  );
}

function DomainCard({ initial, onDeleted }: { initial: SendingDomain; onDeleted: () => Promise<unknown> }) {
  const [d, setD] = useState(initial);
  const verify = useAction();
  const checked = d.checked_at !== null;

  return (
    <Paper withBorder p="md" component="section" aria-label={d.domain}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3}>{d.domain}</Title>
          <Group gap="xs">
            <Status ok={d.dkim_verified} label="DKIM" checked={checked} />
            <Status ok={d.spf_ok} label="SPF" checked={checked} />
            <Status ok={d.dmarc_ok} label="DMARC" checked={checked} />
          </Group>
        </Group>
        <DataTable label={`DNS records for ${d.domain}`} columns={['Record', 'Type', 'Name', 'Value', checked ? 'Found' : 'Check']}>
          {d.records.map((r) => {
            const found = d.found[FOUND_KEY[r.purpose]];
            return (
              <Table.Tr key={r.purpose}>
                <Table.Td>{r.purpose}</Table.Td>
                <Table.Td>{r.type}</Table.Td>
                <Table.Td className="key-value">
                  {r.name} <Copy value={r.name} label={`Copy the ${r.purpose} name`} />
                </Table.Td>
                <Table.Td className="key-value record-value">
                  {r.value} <Copy value={r.value} label={`Copy the ${r.purpose} value`} />
                </Table.Td>
                <Table.Td className="key-value record-value">{!checked ? 'Not checked yet' : found === null ? <Text c="red" size="sm">Missing: nothing published</Text> : found}</Table.Td>
              </Table.Tr>
            );
          })}
        </DataTable>
        <Group wrap="wrap">
          <Button
            variant="light"
            loading={verify.busy}
            onClick={async () => {
              const checkedNow = await verify.run(() => domains.verify(d.id));
              if (checkedNow) setD(checkedNow);
            }}
          >
            Verify
          </Button>
          <Text size="sm" c="dimmed" role="status">
            {checked ? `Checked ${when(d.checked_at)}` : 'Publish the records, then verify.'}
          </Text>
          <Can need="campaigns.write">
            <ConfirmButton
              variant="subtle"
              color="red"
              label="Delete"
              aria-label={`Delete ${d.domain}`}
              title={`Delete ${d.domain}?`}
              message="Its DKIM key is deleted: mail from the domain is no longer signed, and its warm-up plan stops."
              confirmLabel="Delete"
              onConfirm={async () => {
                await domains.remove(d.id);
                await onDeleted();
              }}
            />
          </Can>
        </Group>
        <ErrorText error={verify.error} />
        <Warmup domain={d} onSaved={setD} />
      </Stack>
    </Paper>
  );
}

function Warmup({ domain, onSaved }: { domain: SendingDomain; onSaved: (d: SendingDomain) => void }) {
  const [enabled, setEnabled] = useState(domain.warmup.enabled);
  const [start, setStart] = useState<number | string>(domain.warmup.start);
  const [factor, setFactor] = useState<number | string>(domain.warmup.factor);
  const save = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const saved = await save.run(() => domains.update(domain.id, { warmup: { enabled, start: Number(start), factor: Number(factor) } }));
    if (saved) onSaved(saved);
  }

  return (
    <form onSubmit={submit} aria-label={`Warm-up plan for ${domain.domain}`}>
      <Stack gap="xs">
        <Title order={4}>Warm-up</Title>
        <Group align="flex-end" wrap="wrap">
          <Switch label="Warm up this domain" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          <NumberInput label="Messages on day 1" min={1} max={1_000_000} allowDecimal={false} value={start} onChange={setStart} w={170} />
          <NumberInput label="Daily growth (×)" min={1} max={10} decimalScale={2} step={0.1} value={factor} onChange={setFactor} w={150} />
          <Button type="submit" variant="light" loading={save.busy}>
            Save plan
          </Button>
        </Group>
        <Text size="sm" aria-label="Today's warm-up">
          {domain.warmup.enabled && domain.warmup_cap_today !== null
            ? `Today: ${count(domain.sent_today)} of ${count(domain.warmup_cap_today)} messages sent (day 1: ${domain.warmup.started_at?.slice(0, 10)}, UTC days); the rest wait for the next day.`
            : 'Off: mail from this domain is not capped.'}
        </Text>
        {domain.warmup.enabled && !domain.dkim_verified && (
          // D26.2: the same warning the API answers when the plan is saved.
          <Alert color="yellow" title="DKIM not verified" aria-label="Warm-up warning">
            Mail from this domain is not signed with its key until its DKIM record is verified, so the warm-up days pass without building its reputation. Publish the records above and check them.
          </Alert>
        )}
        <ErrorText error={save.error} />
      </Stack>
    </form>
  );
}

function Status({ ok, label, checked }: { ok: boolean; label: string; checked: boolean }) {
  if (!checked) return <Badge color="gray" variant="light">{`${label} not checked`}</Badge>;
  return <Badge color={ok ? 'green' : 'red'} variant="light">{`${label} ${ok ? (label === 'DKIM' ? 'verified' : 'ok') : 'missing'}`}</Badge>;
}

function Copy({ value, label }: { value: string; label: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button size="compact-xs" variant="subtle" onClick={copy} aria-label={label} color={copied ? 'teal' : undefined}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
      )}
    </CopyButton>
  );
}
