import { BarChart, LineChart } from '@mantine/charts';
import { Alert, Anchor, Badge, Button, Group, MultiSelect, Paper, Progress, Stack, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { get, post, put, query } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { SandboxedHtml } from '../components/SandboxedHtml.tsx';
import { count, fromLocalInput, percent, when } from '../format.ts';
import { useAction, useLoad, usePolling } from '../hooks.ts';
import { CAMPAIGN_COLOR, type Campaign } from './Campaigns.tsx';
import { allLists } from './Lists.tsx';

interface Progress {
  status: string;
  total_recipients: number;
  sent: number;
  bounced: number;
  failed: number;
  remaining: number;
}
interface Statistics {
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  unsubscribed: number;
  open_rate: number;
  click_rate: number;
  bounce_rate: number;
  click_to_open_rate: number;
  unsubscribe_rate: number;
}

export function CampaignPage() {
  const id = useParams().id!;
  const campaign = useLoad(() => get<Campaign>(`/api/v1/campaigns/${id}`), [id]);
  const c = campaign.data;
  usePolling(c?.status === 'SENDING' || c?.status === 'SCHEDULED', 2000, () => void campaign.reload());
  return (
    <Stack>
      <Anchor component={Link} to="/campaigns" size="sm">
        ← Campaigns
      </Anchor>
      <PageState loading={campaign.loading} error={campaign.error} onRetry={campaign.reload} empty={!c}>
        {c && (
          <>
            <Group justify="space-between" wrap="wrap">
              <Title order={2}>{c.name}</Title>
              <Group gap="sm">
                <DuplicateButton campaign={c} />
                <Badge size="lg" color={CAMPAIGN_COLOR[c.status]} aria-label={`Status ${c.status}`}>
                  {c.status}
                </Badge>
              </Group>
            </Group>
            {c.status === 'FAILED' && <SendProgress campaign={c} onChanged={campaign.reload} />}
            {c.status === 'DRAFT' || c.status === 'SCHEDULED' || c.status === 'FAILED' ? (
              <CampaignEditor key={c.updated_at} campaign={c} onChanged={campaign.reload} />
            ) : (
              <>
                {c.status === 'SENDING' && <SendProgress campaign={c} onChanged={campaign.reload} />}
                {c.status === 'SENT' && <CampaignStatistics campaign={c} />}
                <Paper withBorder p="md">
                  <Text fw={500}>{c.subject}</Text>
                  <Text size="sm" c="dimmed" mb="sm">
                    From {c.from_name} &lt;{c.from_email}&gt; · sent {when(c.sent_at)}
                  </Text>
                  <SandboxedHtml html={c.html ?? ''} title="Campaign content" />
                </Paper>
              </>
            )}
          </>
        )}
      </PageState>
    </Stack>
  );
}

function CampaignEditor({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const [form, setForm] = useState({
    name: c.name,
    subject: c.subject ?? '',
    from_name: c.from_name ?? '',
    from_email: c.from_email ?? '',
    reply_to: c.reply_to ?? '',
    preheader: c.preheader ?? '',
    html: c.html ?? '',
    text: c.text ?? '',
  });
  const [listIds, setListIds] = useState(c.list_ids.map(String));
  const [tags, setTags] = useState(c.tags);
  const [testEmails, setTestEmails] = useState('');
  const [scheduleAt, setScheduleAt] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  // The preview is the server's rendering of what is typed, with a real contact's data (issue 15).
  const [previewKey] = useDebouncedValue(JSON.stringify([form.subject, form.preheader, form.html, form.text]), 400);
  const preview = useLoad(
    () => post<{ subject: string; html: string | null; merge_data: string }>(`/api/v1/campaigns/${c.id}/preview`, { subject: form.subject, preheader: form.preheader || null, html: form.html || null, text: form.text || null }),
    [previewKey],
  );
  const lists = useLoad(allLists, []);
  const [audienceKey] = useDebouncedValue(JSON.stringify([listIds, tags]), 300);
  const estimate = useLoad(() => get<{ recipients: number }>('/api/v1/campaigns/audience-estimate' + query({ list_ids: listIds, tags })), [audienceKey]);
  const action = useAction();
  const field = (name: keyof typeof form) => ({ value: form[name], onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }) });
  const nullIfEmpty = (v: string) => (v.trim() === '' ? null : v);
  const save = () =>
    put(`/api/v1/campaigns/${c.id}`, {
      name: form.name,
      subject: nullIfEmpty(form.subject),
      from_name: nullIfEmpty(form.from_name),
      from_email: nullIfEmpty(form.from_email),
      reply_to: nullIfEmpty(form.reply_to),
      preheader: nullIfEmpty(form.preheader),
      html: nullIfEmpty(form.html),
      text: nullIfEmpty(form.text),
      list_ids: listIds.map(Number),
      tags,
    });
  const run = async (what: () => Promise<unknown>, done: string, reload = true) => {
    setNotice(null);
    const ok = await action.run(async () => {
      await what();
      return true;
    });
    if (ok) {
      setNotice(done);
      if (reload) await onChanged();
    }
  };

  return (
    <Stack>
      {c.status === 'SCHEDULED' && (
        <Alert color="blue" title="Scheduled">
          <Group justify="space-between">
            <Text size="sm">Sends at {when(c.scheduled_at)}. Unschedule to edit it.</Text>
            <Button size="xs" variant="white" onClick={() => void run(() => post(`/api/v1/campaigns/${c.id}/unschedule`), 'Unscheduled: back to draft.')}>
              Unschedule
            </Button>
          </Group>
        </Alert>
      )}
      <div className="two-columns">
        <Stack>
          <Paper withBorder p="md">
            <Stack>
              <TextInput label="Campaign name" required {...field('name')} />
              <TextInput label="Subject" {...field('subject')} />
              <TextInput label="Preheader" description="The preview line mail apps show after the subject" {...field('preheader')} />
              <Group grow wrap="wrap">
                <TextInput label="From name" {...field('from_name')} />
                <TextInput label="From e-mail" type="email" {...field('from_email')} />
              </Group>
              <TextInput label="Reply-to" type="email" {...field('reply_to')} />
              <Textarea label="HTML content" className="mono" autosize minRows={10} maxRows={24} {...field('html')} />
              <Textarea label="Plain-text version" description="Optional; made from the HTML when empty" autosize minRows={3} {...field('text')} />
            </Stack>
          </Paper>
          <Paper withBorder p="md">
            <Stack>
              <Title order={4}>Audience</Title>
              <MultiSelect label="Lists" placeholder="Choose lists" data={(lists.data ?? []).map((l) => ({ value: String(l.id), label: `${l.name} (${l.contact_count})` }))} value={listIds} onChange={setListIds} searchable />
              <TagsInput label="Only contacts with any of these tags" placeholder="Optional" value={tags} onChange={setTags} />
              <Text size="sm" role="status" aria-live="polite">
                {estimate.error ? `Estimate unavailable: ${estimate.error}` : estimate.data ? `About ${count(estimate.data.recipients)} subscribed recipients` : 'Estimating…'}
              </Text>
            </Stack>
          </Paper>
        </Stack>
        <Paper withBorder p="md">
          <Text fw={500}>Preview</Text>
          {preview.error ? (
            <Text c="red" size="sm" role="alert">
              {preview.error}
            </Text>
          ) : (
            preview.data && (
              <Text size="sm" c="dimmed" mb="xs">
                {preview.data.subject || 'No subject yet'} · with {preview.data.merge_data === 'sample' ? 'sample data' : "your list's first contact"}
              </Text>
            )
          )}
          <SandboxedHtml html={preview.data?.html ?? ''} title="Campaign preview" />
        </Paper>
      </div>
      <Paper withBorder p="md">
        <Stack>
          <ErrorText error={action.error} />
          {notice && (
            <Text c="green" role="status">
              {notice}
            </Text>
          )}
          <Group wrap="wrap">
            <Button loading={action.busy} onClick={() => void run(save, 'Saved.')} disabled={c.status === 'SCHEDULED'}>
              {c.status === 'FAILED' ? 'Save changes' : 'Save draft'}
            </Button>
          </Group>
          <Group align="end" wrap="wrap">
            <TextInput label="Send a test to" placeholder="you@example.com, colleague@example.com" value={testEmails} onChange={(e) => setTestEmails(e.currentTarget.value)} />
            <Button
              variant="light"
              disabled={!testEmails.trim()}
              loading={action.busy}
              onClick={() =>
                void run(
                  async () => {
                    if (c.status !== 'SCHEDULED') await save();
                    await post(`/api/v1/campaigns/${c.id}/test`, { emails: testEmails.split(/[,;\s]+/).filter(Boolean) });
                  },
                  'Test sent.',
                  false,
                )
              }
            >
              Send test
            </Button>
          </Group>
          {c.status === 'DRAFT' && (
            <Group align="end" wrap="wrap">
              <TextInput label="Schedule for" type="datetime-local" value={scheduleAt} onChange={(e) => setScheduleAt(e.currentTarget.value)} />
              <Button
                variant="light"
                disabled={!scheduleAt}
                loading={action.busy}
                onClick={() =>
                  void run(async () => {
                    await save();
                    await post(`/api/v1/campaigns/${c.id}/schedule`, { scheduled_at: fromLocalInput(scheduleAt) });
                  }, 'Scheduled.')
                }
              >
                Schedule
              </Button>
            </Group>
          )}
          {c.status !== 'FAILED' && (
          <Group>
            <ConfirmButton
              color="indigo"
              label="Send now"
              title="Send this campaign now?"
              message={`It goes to about ${count(estimate.data?.recipients ?? 0)} recipients. This cannot be undone.`}
              confirmLabel="Send"
              onConfirm={async () => {
                if (c.status === 'DRAFT') await save();
                await post(`/api/v1/campaigns/${c.id}/send`);
                await onChanged();
              }}
            />
          </Group>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}

/** D17.4: a copy of any campaign, as a new draft. */
function DuplicateButton({ campaign: c }: { campaign: Campaign }) {
  const navigate = useNavigate();
  const action = useAction();
  return (
    <Button
      variant="default"
      size="xs"
      loading={action.busy}
      title={action.error ?? undefined}
      onClick={async () => {
        const copy = await action.run(() => post<Campaign>(`/api/v1/campaigns/${c.id}/duplicate`));
        if (copy) navigate(`/campaigns/${copy.id}`);
      }}
    >
      Duplicate
    </Button>
  );
}

function SendProgress({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const progress = useLoad(() => get<Progress>(`/api/v1/campaigns/${c.id}/progress`), [c.id]);
  usePolling(c.status === 'SENDING', 1500, () => void progress.reload());
  const p = progress.data;
  const done = p ? p.sent + p.failed : 0;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={4}>{c.status === 'SENDING' ? 'Sending…' : 'Sending stopped'}</Title>
        {c.error && (
          <Alert color="red" title="Why it failed">
            {c.error}
          </Alert>
        )}
        {p && (
          <>
            <Progress value={p.total_recipients ? (100 * done) / p.total_recipients : 0} animated={c.status === 'SENDING'} aria-label="Sending progress" />
            <Text size="sm" role="status">
              {count(p.sent)} of {count(p.total_recipients)} sent · {count(p.bounced)} bounced · {count(p.failed)} failed · {count(p.remaining)} remaining
            </Text>
          </>
        )}
        {c.status === 'FAILED' && (
          <Group>
            <ConfirmButton color="indigo" label="Resume sending" title="Resume sending?" message="Only recipients not yet sent get the campaign." confirmLabel="Resume" onConfirm={async () => {
              await post(`/api/v1/campaigns/${c.id}/send`);
              await onChanged();
            }} />
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

function CampaignStatistics({ campaign: c }: { campaign: Campaign }) {
  const stats = useLoad(() => get<Statistics>(`/api/v1/campaigns/${c.id}/statistics`), [c.id]);
  const engagement = useLoad(() => get<{ hours: { hour: string; opens: number; clicks: number }[] }>(`/api/v1/campaigns/${c.id}/engagement`), [c.id]);
  const s = stats.data;
  return (
    <PageState loading={stats.loading} error={stats.error} onRetry={stats.reload} empty={!s}>
      {s && (
        <Stack>
          <div className="cards" aria-label="Statistics">
            {(
              [
                ['Sent', count(s.sent)],
                ['Delivered', count(s.delivered)],
                ['Opened', `${count(s.opened)} · ${percent(s.open_rate)}`],
                ['Clicked', `${count(s.clicked)} · ${percent(s.click_rate)}`],
                ['Bounced', `${count(s.bounced)} · ${percent(s.bounce_rate)}`],
                ['Complaints', count(s.complained)],
                ['Unsubscribed', `${count(s.unsubscribed)} · ${percent(s.unsubscribe_rate)}`],
                ['Click-to-open', percent(s.click_to_open_rate)],
              ] as const
            ).map(([label, value]) => (
              <Paper withBorder p="md" key={label}>
                <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                  {label}
                </Text>
                <Text size="lg" fw={700}>
                  {value}
                </Text>
              </Paper>
            ))}
          </div>
          <div className="two-columns">
            <Paper withBorder p="md">
              <Title order={4} mb="sm">
                Delivery funnel
              </Title>
              <BarChart
                h={260}
                data={[
                  { stage: 'Sent', recipients: s.sent },
                  { stage: 'Delivered', recipients: s.delivered },
                  { stage: 'Opened', recipients: s.opened },
                  { stage: 'Clicked', recipients: s.clicked },
                ]}
                dataKey="stage"
                series={[{ name: 'recipients', color: 'indigo.6' }]}
                aria-label="Delivery funnel chart"
              />
            </Paper>
            <Paper withBorder p="md">
              <Title order={4} mb="sm">
                Opens and clicks over time
              </Title>
              <PageState loading={engagement.loading} error={engagement.error} empty={engagement.data?.hours.length === 0} emptyText="No opens or clicks yet.">
                <LineChart
                  h={260}
                  data={(engagement.data?.hours ?? []).map((h) => ({ ...h, hour: when(h.hour) }))}
                  dataKey="hour"
                  series={[
                    { name: 'opens', color: 'indigo.6' },
                    { name: 'clicks', color: 'teal.6' },
                  ]}
                  withLegend
                  aria-label="Opens and clicks over time chart"
                />
              </PageState>
            </Paper>
          </div>
        </Stack>
      )}
    </PageState>
  );
}
