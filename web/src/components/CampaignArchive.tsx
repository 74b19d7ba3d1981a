import { Anchor, Group, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { campaigns, type Schemas } from '../api.ts';
import { useAction } from '../hooks.ts';
import { ErrorText } from './PageState.tsx';

/**
 * D22: whether the campaign is in the account's public archive. It may change in any status (a
 * SENT campaign's too) and is saved at once, on its own: the editor around it keeps what is typed.
 * The archive shows the campaign once it is SENT, at its archive_url.
 */
export function CampaignArchive({ campaign }: { campaign: Schemas['Campaign'] }) {
  const [shown, setShown] = useState({ archive: campaign.archive, archive_url: campaign.archive_url });
  const action = useAction();
  const toggle = async (archive: boolean) => {
    const saved = await action.run(() => campaigns.update(campaign.id, { archive }));
    if (saved) setShown({ archive: saved.archive, archive_url: saved.archive_url });
  };
  return (
    <div>
      <Group gap="sm" wrap="wrap">
        <Switch label="Show in the public archive" checked={shown.archive} disabled={action.busy} onChange={(e) => void toggle(e.currentTarget.checked)} />
        {shown.archive_url ? (
          <Anchor href={shown.archive_url} target="_blank" rel="noreferrer" size="sm">
            View in the archive
          </Anchor>
        ) : (
          shown.archive && (
            <Text size="sm" c="dimmed">
              Shown there once sent
            </Text>
          )
        )}
      </Group>
      <ErrorText error={action.error} />
    </div>
  );
}
