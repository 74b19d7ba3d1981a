import { BarChart, LineChart } from '@mantine/charts';
import { Alert, Anchor, Badge, Button, Group, Menu, MultiSelect, Pagination, Paper, Progress, SegmentedControl, Stack, Table, Tabs, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { campaigns, type Schemas } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { CampaignPreview } from '../components/CampaignPreview.tsx';
import { CampaignArchive } from '../components/CampaignArchive.tsx';
import { ContentEditor } from '../components/ContentEditor.tsx';
import { count, fromLocalInput, percent, when } from '../format.ts';
import { useAction, useLoad, usePolling } from '../hooks.ts';
import { CAMPAIGN_COLOR, type Campaign } from './Campaigns.tsx';
import { allLists } from './Lists.tsx';
import { allSegments } from './Segments.tsx';
import { AbTestEditor, abTestBody, abTestForm, VariantsReport } from './CampaignAbTest.tsx';
import { DataTable } from '../components/Layout.tsx';
import { SendWindowFields } from '../components/SendWindowFields.tsx';
import { describeSendWindow } from '../send-window.ts';
import { ContentChecks, ContentFormatFields, contentSettingsOf, SendChecks } from '../components/CampaignContentControls.tsx';

type Recipient = Schemas['CampaignRecipient'];
type FollowUpAudience = NonNullable<Campaign['follow_up']>['audience'];
const FOLLOW_UP_WORDS: Record<FollowUpAudience, string> = { NOT_OPENED: 'did not open it', NOT_CLICKED: 'did not click in it', OPENED: 'opened it', CLICKED: 'clicked in it' };
const RECIPIENT_COLOR: Record<Recipient['status'], string> = { PENDING: 'gray', SENT: 'green', FAILED: 'red', BOUNCED: 'orange' };

export function CampaignPage() {
  const id = useParams().id!;
  const campaign = useLoad(() => campaigns.get(Number(id)), [id]);
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
                {c.status === 'SENT' && <SentActions campaign={c} onChanged={campaign.reload} />}
                <CampaignArchive campaign={c} />
                <Tabs defaultValue="report" keepMounted={false}>
                  <Tabs.List>
                    <Tabs.Tab value="report">Report</Tabs.Tab>
                    <Tabs.Tab value="recipients">Recipients</Tabs.Tab>
                    <Tabs.Tab value="links">Links</Tabs.Tab>
                    <Tabs.Tab value="content">Content</Tabs.Tab>
                  </Tabs.List>
                  <Tabs.Panel value="report" pt="md">
                    <Stack>
                      {c.variants && <VariantsReport campaign={c} />}
                      {c.status === 'SENT' ? <CampaignStatistics campaign={c} /> : <Text c="dimmed">The report is ready once the campaign is sent.</Text>}
                    </Stack>
                  </Tabs.Panel>
                  <Tabs.Panel value="recipients" pt="md">
                    <RecipientsTab campaign={c} />
                  </Tabs.Panel>
                  <Tabs.Panel value="links" pt="md">
                    <LinksTab campaign={c} />
                  </Tabs.Panel>
                  <Tabs.Panel value="content" pt="md">
                    <Text size="sm" c="dimmed" mb="sm">
                      From {c.from_name} &lt;{c.from_email}&gt; · sent {when(c.sent_at)}
                    </Text>
                    <CampaignPreview campaignId={c.id} preheader={c.preheader} />
                  </Tabs.Panel>
                </Tabs>
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
  const [segmentIds, setSegmentIds] = useState(c.segment_ids.map(String));
  const [tags, setTags] = useState(c.tags);
  const [abTest, setAbTest] = useState(abTestForm(c));
  const [sendWindow, setSendWindow] = useState(c.send_window);
  const [content, setContent] = useState(contentSettingsOf(c));
  const [testEmails, setTestEmails] = useState('');
  const [scheduleAt, setScheduleAt] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const lists = useLoad(allLists, []);
  const segments = useLoad(allSegments, []);
  const [audienceKey] = useDebouncedValue(JSON.stringify([listIds, segmentIds, tags]), 300);
  const estimate = useLoad(() => campaigns.audienceEstimate({ list_ids: listIds.map(Number), segment_ids: segmentIds.map(Number), tags, follow_up_of: c.follow_up?.campaign_id, follow_up_audience: c.follow_up?.audience }), [audienceKey]);
  const action = useAction();
  const field = (name: keyof typeof form) => ({ value: form[name], onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }) });
  const nullIfEmpty = (v: string) => (v.trim() === '' ? null : v);
  const save = () =>
    campaigns.update(c.id, {
      name: form.name,
      subject: nullIfEmpty(form.subject),
      from_name: nullIfEmpty(form.from_name),
      from_email: nullIfEmpty(form.from_email),
      reply_to: nullIfEmpty(form.reply_to),
      preheader: nullIfEmpty(form.preheader),
      html: nullIfEmpty(form.html),
      text: nullIfEmpty(form.text),
      list_ids: listIds.map(Number),
      segment_ids: segmentIds.map(Number),
      tags,
      ...abTestBody(abTest),
      send_window: sendWindow,
      ...content,
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
            <Button size="xs" variant="white" onClick={() => void run(() => campaigns.unschedule(c.id), 'Unscheduled: back to draft.')}>
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
              <ContentFormatFields value={content} onChange={setContent} saveError={action.error} />
              <ContentEditor value={form.html} onChange={(html) => setForm((f) => ({ ...f, html }))} format={content.format} />
              <Textarea label="Plain-text version" description="Optional; made from the HTML when empty" autosize minRows={3} {...field('text')} />
            </Stack>
          </Paper>
          <AbTestEditor form={abTest} onChange={setAbTest} />
          <Paper withBorder p="md">
            <Stack>
              <Title order={4}>Audience</Title>
              {c.follow_up && (
                <Alert color="indigo" variant="light" title="Follow-up">
                  Goes to the recipients of campaign #{c.follow_up.campaign_id} who {FOLLOW_UP_WORDS[c.follow_up.audience]}, as they are when it is sent. Lists and segments below add to them.
                </Alert>
              )}
              <MultiSelect label="Lists" placeholder="Choose lists" data={(lists.data ?? []).map((l) => ({ value: String(l.id), label: `${l.name} (${l.contact_count})` }))} value={listIds} onChange={setListIds} searchable />
              <MultiSelect
                label="Segments"
                placeholder="Choose segments"
                description="Members are decided when sending starts"
                data={(segments.data ?? []).map((s) => ({ value: String(s.id), label: `${s.name} (${s.contact_count} now)` }))}
                value={segmentIds}
                onChange={setSegmentIds}
                searchable
              />
              <TagsInput label="Only contacts with any of these tags" placeholder="Optional" value={tags} onChange={setTags} />
              <Text size="sm" role="status" aria-live="polite">
                {estimate.error ? `Estimate unavailable: ${estimate.error}` : estimate.data ? `About ${count(estimate.data.recipients)} subscribed recipients` : 'Estimating…'}
              </Text>
            </Stack>
          </Paper>
          <Paper withBorder p="md">
            <SendWindowFields value={sendWindow} onChange={setSendWindow} />
          </Paper>
        </Stack>
        {/* D22: the server's rendering of what is typed, with a chosen contact's data or the list's first (issue 15). */}
        <CampaignPreview campaignId={c.id} preheader={null} draft={{ subject: form.subject, preheader: form.preheader || null, html: form.html || null, text: form.text || null, ...content }} />
      </div>
      <Paper withBorder p="md">
        <Stack>
          <ErrorText error={action.error} />
          <ContentChecks campaignId={c.id} version={c.updated_at} />
          <CampaignArchive campaign={c} />
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
                    await campaigns.sendTest(c.id, testEmails.split(/[,;\s]+/).filter(Boolean));
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
                    await campaigns.schedule(c.id, fromLocalInput(scheduleAt) ?? scheduleAt);
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
              message={
                <>
                  {`It goes to about ${count(estimate.data?.recipients ?? 0)} recipients. This cannot be undone.`}
                  <SendChecks campaignId={c.id} />
                </>
              }
              confirmLabel="Send"
              onConfirm={async () => {
                if (c.status === 'DRAFT') await save();
                await campaigns.send(c.id);
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
        const copy = await action.run(() => campaigns.duplicate(c.id));
        if (copy) navigate(`/campaigns/${copy.id}`);
      }}
    >
      Duplicate
    </Button>
  );
}

function SendProgress({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const progress = useLoad(() => campaigns.progress(c.id), [c.id]);
  usePolling(c.status === 'SENDING', 1500, () => void progress.reload());
  const p = progress.data;
  const done = p ? p.sent + p.failed : 0;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={4}>{c.status === 'SENDING' ? 'Sending…' : 'Sending stopped'}</Title>
        {c.send_window && c.status === 'SENDING' && (
          <Text size="sm" c="dimmed">
            Sends only {describeSendWindow(c.send_window)}.
          </Text>
        )}
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
              await campaigns.send(c.id);
              await onChanged();
            }} />
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

function CampaignStatistics({ campaign: c }: { campaign: Campaign }) {
  const stats = useLoad(() => campaigns.statistics(c.id), [c.id]);
  const engagement = useLoad(() => campaigns.engagement(c.id), [c.id]);
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
                ['Human opens', `${count(s.human_opened)} · ${percent(s.human_open_rate)}`],
                ['Human clicks', `${count(s.human_clicked)} · ${percent(s.human_click_rate)}`],
                ['Opened (all)', `${count(s.opened)} · ${percent(s.open_rate)}`],
                ['Clicked (all)', `${count(s.clicked)} · ${percent(s.click_rate)}`],
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
          {/* D23: why the human figures come first. */}
          <Text size="sm" c="dimmed" aria-label="About human opens">
            Human opens and clicks leave out machines: Apple Mail's privacy proxy opens every message it receives, and mail
            security scanners follow links before anyone reads them ({count(s.machine_opened)} machine{' '}
            {s.machine_opened === 1 ? 'open' : 'opens'}, {count(s.machine_clicked)} machine {s.machine_clicked === 1 ? 'click' : 'clicks'}). Opened and
            Clicked count everything.
          </Text>
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

/** D18 and D19 on a sent campaign: follow up with a part of its recipients, or send the failed ones again. */
function SentActions({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const navigate = useNavigate();
  const failed = useLoad(() => campaigns.recipients(c.id, { status: 'FAILED', size: 1 }), [c.id, c.updated_at]);
  const action = useAction();
  const followUp = async (audience: FollowUpAudience) => {
    const draft = await action.run(() => campaigns.followUp(c.id, audience));
    if (draft) navigate(`/campaigns/${draft.id}`);
  };
  const failedCount = failed.data?.totalElements ?? 0;
  return (
    <Paper withBorder p="md">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm" wrap="wrap">
          <Button loading={action.busy} onClick={() => void followUp('NOT_OPENED')}>
            Follow up with non-openers
          </Button>
          <Menu position="bottom-start">
            <Menu.Target>
              <Button variant="default">Other follow-ups</Button>
            </Menu.Target>
            <Menu.Dropdown>
              {(['NOT_CLICKED', 'OPENED', 'CLICKED'] as const).map((audience) => (
                <Menu.Item key={audience} onClick={() => void followUp(audience)}>
                  Those who {FOLLOW_UP_WORDS[audience]}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
        </Group>
        {failedCount > 0 && (
          <ConfirmButton
            color="orange"
            variant="light"
            label={`Retry failed (${count(failedCount)})`}
            title="Send to the failed recipients again?"
            message="Recipients whose message failed go back in line, except those who are no longer subscribed or are on the suppression list."
            confirmLabel="Retry"
            onConfirm={async () => {
              await campaigns.retryFailed(c.id);
              await onChanged();
            }}
          />
        )}
      </Group>
      <ErrorText error={action.error} />
    </Paper>
  );
}

/** D19: who got it and who did not, and why. */
function RecipientsTab({ campaign: c }: { campaign: Campaign }) {
  const [status, setStatus] = useState<Recipient['status'] | ''>('');
  const [engagement, setEngagement] = useState('');
  const [page, setPage] = useState(0);
  const filter = { status: status || undefined, opened: engagement === 'opened' ? true : engagement === 'not_opened' ? false : undefined, clicked: engagement === 'clicked' ? true : undefined };
  const recipients = useLoad(() => campaigns.recipients(c.id, { ...filter, page, size: 25 }), [c.id, status, engagement, page]);
  return (
    <Stack>
      <Group wrap="wrap" gap="md">
        <SegmentedControl
          size="xs"
          aria-label="Recipient status"
          value={status}
          onChange={(v) => (setStatus(v as Recipient['status'] | ''), setPage(0))}
          data={[
            { value: '', label: 'All' },
            { value: 'SENT', label: 'Sent' },
            { value: 'BOUNCED', label: 'Bounced' },
            { value: 'FAILED', label: 'Failed' },
            { value: 'PENDING', label: 'Pending' },
          ]}
        />
        <SegmentedControl
          size="xs"
          aria-label="Engagement"
          value={engagement}
          onChange={(v) => (setEngagement(v), setPage(0))}
          data={[
            { value: '', label: 'Any' },
            { value: 'opened', label: 'Opened' },
            { value: 'not_opened', label: 'Not opened' },
            { value: 'clicked', label: 'Clicked' },
          ]}
        />
      </Group>
      <PageState loading={recipients.loading} error={recipients.error} onRetry={recipients.reload} empty={recipients.data?.items.length === 0} emptyText="No recipient matches.">
        <Text size="sm" c="dimmed">
          {count(recipients.data?.totalElements ?? 0)} recipients
        </Text>
        <DataTable label="Recipients" columns={['E-mail', 'Status', 'Attempts', 'Sent', 'Opened', 'Clicked', 'Last reply']}>
          {recipients.data?.items.map((r) => (
            <Table.Tr key={r.email}>
              <Table.Td>{r.contact_id === null ? r.email : <Link to={`/contacts/${encodeURIComponent(r.email)}`}>{r.email}</Link>}</Table.Td>
              <Table.Td>
                <Badge color={RECIPIENT_COLOR[r.status]} variant="light">
                  {r.status}
                </Badge>
              </Table.Td>
              <Table.Td>{r.attempts}</Table.Td>
              <Table.Td>{when(r.sent_at)}</Table.Td>
              <Table.Td>{when(r.opened_at)}</Table.Td>
              <Table.Td>{when(r.clicked_at)}</Table.Td>
              <Table.Td>
                <Text size="xs" className="key-value">
                  {r.last_error ?? '—'}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(recipients.data?.totalPages ?? 0) > 1 && <Pagination total={recipients.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
      </PageState>
    </Stack>
  );
}

/** D19: clicks per link, in the order the message holds them. */
function LinksTab({ campaign: c }: { campaign: Campaign }) {
  const links = useLoad(() => campaigns.links(c.id), [c.id]);
  return (
    <PageState loading={links.loading} error={links.error} onRetry={links.reload} empty={links.data?.links.length === 0} emptyText="The message has no tracked links.">
      <DataTable label="Links" columns={['Link', 'Clicks', 'Unique clicks']}>
        {links.data?.links.map((l, i) => (
          <Table.Tr key={i}>
            <Table.Td className="key-value">{l.url}</Table.Td>
            <Table.Td>{count(l.clicks)}</Table.Td>
            <Table.Td>{count(l.unique_clicks)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </PageState>
  );
}
