import { Alert, Anchor, Button, Group, MultiSelect, Paper, Stack, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { campaigns, errorText, templates } from '../api.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { ErrorText } from './PageState.tsx';
import { CampaignPreview } from './CampaignPreview.tsx';
import { CampaignArchive } from './CampaignArchive.tsx';
import { ContentEditor } from './ContentEditor.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';
import { FOLLOW_UP_WORDS, type Campaign } from '../pages/Campaigns.tsx';
import { allLists } from '../pages/Lists.tsx';
import { allSegments } from '../pages/Segments.tsx';
import { AbTestEditor, abTestBody, abTestForm } from '../pages/CampaignAbTest.tsx';
import { SendWindowFields } from './SendWindowFields.tsx';
import { SchedulePicker } from './SchedulePicker.tsx';
import { ContentChecks, ContentFormatFields, contentSettingsOf, SendChecks } from './CampaignContentControls.tsx';
import { blockersSentence, sendBlockers, sendErrorWords } from '../send-readiness.ts';
import { FormatSwitchDialog, formatSwitchWarning } from './FormatSwitchDialog.tsx';

/** A campaign that may still change (DRAFT, SCHEDULED, FAILED): content, audience, window, A/B test; test, schedule, send. */
export function CampaignEditor({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  // D24.9: an author saves drafts but is offered no send; a viewer reads only.
  const { session } = useSession();
  const mayWrite = can(session, 'campaigns.write');
  const maySend = can(session, 'campaigns.send');
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
  // Issue 34: a format change that would garble written content is asked about first.
  const [formatSwitch, setFormatSwitch] = useState<typeof content | null>(null);
  const changeContent = (next: typeof content) => (next.format !== content.format && formatSwitchWarning(form.html, content.format, next.format) ? setFormatSwitch(next) : setContent(next));
  const [testEmails, setTestEmails] = useState('');
  const [scheduleAt, setScheduleAt] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [savedTemplate, setSavedTemplate] = useState<{ id: number; name: string } | null>(null);
  const lists = useLoad(allLists, []);
  const segments = useLoad(allSegments, []);
  const [audienceKey] = useDebouncedValue(JSON.stringify([listIds, segmentIds, tags]), 300);
  const estimate = useLoad(() => campaigns.audienceEstimate({ list_ids: listIds.map(Number), segment_ids: segmentIds.map(Number), tags, follow_up_of: c.follow_up?.campaign_id, follow_up_audience: c.follow_up?.audience }), [audienceKey]);
  const action = useAction();
  // Issue 34: what stops a send, in words, from what is typed (Send and Schedule save it first).
  const blockers = sendBlockers({ ...form, hasAudience: listIds.length > 0 || segmentIds.length > 0 || c.follow_up !== null, recipients: estimate.error ? undefined : estimate.data?.recipients });
  const blockersId = useId();
  const field = (name: keyof typeof form) => ({ value: form[name], onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }) });
  const nullIfEmpty = (v: string) => (v.trim() === '' ? null : v);
  const save = (html = form.html) =>
    campaigns.update(c.id, {
      name: form.name,
      subject: nullIfEmpty(form.subject),
      from_name: nullIfEmpty(form.from_name),
      from_email: nullIfEmpty(form.from_email),
      reply_to: nullIfEmpty(form.reply_to),
      preheader: nullIfEmpty(form.preheader),
      html: nullIfEmpty(html),
      text: nullIfEmpty(form.text),
      list_ids: listIds.map(Number),
      segment_ids: segmentIds.map(Number),
      tags,
      ...abTestBody(abTest),
      send_window: sendWindow,
      ...content,
    });
  /** The visual editor's Save: the campaign with the design as it stands; the error's words, or null. */
  const saveDesign = async (html: string): Promise<string | null> => {
    try {
      await save(html);
      setForm((f) => ({ ...f, html }));
      return null;
    } catch (err) {
      return errorText(err);
    }
  };
  /** Issue 33: the content becomes one of the account's own starters, for the next campaign. */
  const saveAsTemplate = () => templates.create({ name: form.name, kind: 'starter', format: content.format, body: form.html });
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
      {!mayWrite && (
        <Alert color="gray" title="Read only">
          Your role can read this campaign but not change it.
        </Alert>
      )}
      <div className="two-columns">
        {/* D24.9: a role without campaigns.write gets the fields disabled, not a form whose changes could never be saved. */}
        <fieldset className="plain-fieldset" disabled={!mayWrite}>
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
                <ContentFormatFields value={content} onChange={changeContent} saveError={action.error} />
                <FormatSwitchDialog
                  source={form.html}
                  from={content.format}
                  to={formatSwitch?.format ?? null}
                  onCancel={() => setFormatSwitch(null)}
                  onSwitch={(converted) => {
                    if (converted !== undefined) setForm((f) => ({ ...f, html: converted }));
                    if (formatSwitch) setContent(formatSwitch);
                    setFormatSwitch(null);
                  }}
                />
                <ContentEditor value={form.html} onChange={(html) => setForm((f) => ({ ...f, html }))} format={content.format} title={`Design: ${form.name}`} onSave={mayWrite ? saveDesign : undefined} />
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
        </fieldset>
        {/* D22: the server's rendering of what is typed, with a chosen contact's data or the list's first (issue 15). */}
        <CampaignPreview campaignId={c.id} preheader={null} draft={{ subject: form.subject, preheader: form.preheader || null, html: form.html || null, text: form.text || null, ...content }} />
      </div>
      <Paper withBorder p="md">
        <Stack>
          <ErrorText error={action.error && sendErrorWords(action.error)} />
          <ContentChecks campaignId={c.id} version={c.updated_at} />
          <CampaignArchive campaign={c} />
          {notice && (
            <Text c="green" role="status">
              {notice}
            </Text>
          )}
          {mayWrite && (
            <Group wrap="wrap">
              <Button loading={action.busy} onClick={() => void run(save, 'Saved.')} disabled={c.status === 'SCHEDULED'}>
                {c.status === 'FAILED' ? 'Save changes' : 'Save draft'}
              </Button>
              <Button variant="default" loading={action.busy} disabled={!form.html.trim()} onClick={() => void run(async () => setSavedTemplate(await saveAsTemplate()), 'Saved as a template.', false)}>
                Save as template
              </Button>
              {savedTemplate && (
                <Anchor component={Link} to={`/templates/${savedTemplate.id}`} size="sm">
                  Open the template “{savedTemplate.name}”
                </Anchor>
              )}
            </Group>
          )}
          {maySend && (
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
          )}
          {maySend && c.status === 'DRAFT' && (
            <Group align="end" wrap="wrap">
              <SchedulePicker onChange={setScheduleAt} />
              <Button
                variant="light"
                disabled={!scheduleAt || blockers.length > 0}
                aria-describedby={blockers.length > 0 ? blockersId : undefined}
                loading={action.busy}
                onClick={() =>
                  void run(async () => {
                    await save();
                    await campaigns.schedule(c.id, scheduleAt);
                  }, 'Scheduled.')
                }
              >
                Schedule
              </Button>
            </Group>
          )}
          {maySend && c.status !== 'FAILED' && (
            <Group>
              <ConfirmButton
                color="indigo"
                label="Send now"
                disabled={blockers.length > 0}
                aria-describedby={blockers.length > 0 ? blockersId : undefined}
                title="Send this campaign now?"
                message={
                  <>
                    {`It goes to about ${count(estimate.data?.recipients ?? 0)} recipient${estimate.data?.recipients === 1 ? '' : 's'}. This cannot be undone.`}
                    <SendChecks campaignId={c.id} />
                  </>
                }
                confirmLabel="Send"
                onConfirm={async () => {
                  try {
                    if (c.status === 'DRAFT') await save();
                    await campaigns.send(c.id);
                  } catch (err) {
                    throw new Error(sendErrorWords(errorText(err)));
                  }
                  await onChanged();
                }}
              />
            </Group>
          )}
          {maySend && c.status !== 'FAILED' && blockers.length > 0 && (
            <Text size="sm" c="dimmed" id={blockersId} data-testid="send-blockers">
              {blockersSentence(blockers)}
            </Text>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}
