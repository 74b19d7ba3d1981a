import { Alert, Button } from '@mantine/core';
import { useNavigate } from 'react-router';
import { campaigns } from '../api.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { ErrorText } from './PageState.tsx';
import { useAction } from '../hooks.ts';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';
import type { Campaign } from '../pages/Campaigns.tsx';

/**
 * Issue 34: what can be done to the campaign's status from its page. A send under way is paused
 * (no question asked: resuming undoes it), resumed, or cancelled (asked first: it cannot be
 * undone); a draft is deleted (asked first), and the page goes back to the list.
 */
export function CampaignControls({ campaign: c, onChanged }: { campaign: Campaign; onChanged: () => Promise<void> }) {
  const { session } = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const maySend = can(session, 'campaigns.send');
  const run = async (change: () => Promise<unknown>) => {
    if ((await action.run(change)) !== undefined) await onChanged();
  };
  return (
    <>
      {maySend && c.status === 'SENDING' && (
        <Button size="xs" variant="default" loading={action.busy} onClick={() => void run(() => campaigns.pause(c.id))}>
          Pause sending
        </Button>
      )}
      {maySend && c.status === 'PAUSED' && (
        <Button size="xs" color="indigo" loading={action.busy} onClick={() => void run(() => campaigns.resume(c.id))}>
          Resume sending
        </Button>
      )}
      {maySend && (c.status === 'SENDING' || c.status === 'PAUSED') && (
        <ConfirmButton
          size="xs"
          variant="light"
          color="red"
          label="Cancel sending"
          title="Cancel this campaign?"
          message="The recipients who have not been sent it yet will never get it; those who have keep it. A cancelled campaign cannot be sent again (duplicate it to send it anew)."
          confirmLabel="Cancel campaign"
          dismissLabel={c.status === 'PAUSED' ? 'Keep it paused' : 'Keep sending'}
          onConfirm={async () => {
            await campaigns.cancel(c.id);
            await onChanged();
          }}
        />
      )}
      {can(session, 'campaigns.write') && c.status === 'DRAFT' && (
        <ConfirmButton
          size="xs"
          variant="light"
          color="red"
          label="Delete draft"
          title={`Delete the draft “${c.name}”?`}
          message="Its content and settings are deleted. This cannot be undone."
          confirmLabel="Delete draft"
          dismissLabel="Keep it"
          onConfirm={async () => {
            await campaigns.remove(c.id);
            navigate('/campaigns');
          }}
        />
      )}
      {action.error && <ErrorText error={action.error} />}
    </>
  );
}

/** Issue 34: a paused or cancelled campaign says what that means for its recipients. */
export function CampaignStateNotice({ campaign: c }: { campaign: Campaign }) {
  if (c.status === 'PAUSED') {
    return (
      <Alert color="orange" role="status">
        No more messages go out until sending is resumed; it then goes on with the recipients not yet sent, each once.
      </Alert>
    );
  }
  if (c.status === 'CANCELLED') {
    return (
      <Alert color="gray" role="status">
        Sending was cancelled. Recipients not yet sent never get it: they are listed as Cancelled under Recipients.
      </Alert>
    );
  }
  return null;
}
