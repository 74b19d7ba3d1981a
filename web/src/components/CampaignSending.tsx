import { Alert, Button, Group, Menu, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { useNavigate } from 'react-router';
import { campaigns } from '../api.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';
import { ErrorText } from './PageState.tsx';
import { count, when } from '../format.ts';
import { useAction, useLoad, usePolling } from '../hooks.ts';
import { FOLLOW_UP_WORDS, type Campaign } from '../pages/Campaigns.tsx';
import { describeSendWindow } from '../send-window.ts';

export function SendProgress({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const progress = useLoad(() => campaigns.progress(c.id), [c.id, c.status]);
  const maySend = can(useSession().session, 'campaigns.send');
  usePolling(c.status === 'SENDING', 1500, () => void progress.reload());
  const p = progress.data;
  const done = p ? p.sent + p.failed : 0;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={4}>{{ SENDING: 'Sending…', PAUSED: 'Sending paused', CANCELLED: 'Sending cancelled' }[c.status as string] ?? 'Sending stopped'}</Title>
        {c.send_window && c.status === 'SENDING' && (
          <Text size="sm" c="dimmed">
            Sends only {describeSendWindow(c.send_window)}.
          </Text>
        )}
        {c.held && <HeldNotice campaign={c} held={c.held} />}
        {c.error && (
          <Alert color="red" title="Why it failed">
            {c.error}
          </Alert>
        )}
        {p && (
          <>
            <Progress value={p.total_recipients ? (100 * done) / p.total_recipients : 0} animated={c.status === 'SENDING'} aria-label="Sending progress" />
            <Text size="sm" role="status">
              {count(p.sent)} of {count(p.total_recipients)} sent · {count(p.bounced)} bounced · {count(p.failed)} failed · {p.cancelled > 0 ? `${count(p.cancelled)} cancelled` : `${count(p.remaining)} remaining`}
            </Text>
          </>
        )}
        {c.status === 'FAILED' && maySend && (
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

/** D26.2: a SENDING campaign that waits says why, and when it goes on. */
function HeldNotice({ campaign: c, held }: { campaign: Campaign; held: NonNullable<Campaign['held']> }) {
  const resumes = held.until ? ` It goes on at ${when(held.until)}.` : '';
  const why = {
    warmup: `The warm-up of ${c.from_email?.split('@')[1] ?? 'its sending domain'} allows no more mail today.`,
    send_window: 'It is outside its send window.',
    pacing: 'Every recipient left waits for its pace: a receiving domain’s rate, or a retry after a temporary refusal.',
  }[held.reason];
  return (
    <Alert color="yellow" title="Waiting" role="status">
      {why}
      {resumes}
    </Alert>
  );
}

/** D18 and D19 on a sent campaign: follow up with a part of its recipients, or send the failed ones again. */
export function SentActions({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const navigate = useNavigate();
  const failed = useLoad(() => campaigns.recipients(c.id, { status: 'FAILED', size: 1 }), [c.id, c.updated_at]);
  const action = useAction();
  const followUp = async (audience: keyof typeof FOLLOW_UP_WORDS) => {
    const draft = await action.run(() => campaigns.followUp(c.id, audience));
    if (draft) navigate(`/campaigns/${draft.id}`);
  };
  const failedCount = failed.data?.totalElements ?? 0;
  // D24.9: a follow-up is a new draft (campaigns.write); a retry sends (campaigns.send).
  const { session } = useSession();
  if (!can(session, 'campaigns.write')) return null;
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
        {failedCount > 0 && can(session, 'campaigns.send') && (
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
