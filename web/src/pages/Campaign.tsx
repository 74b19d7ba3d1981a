import { Anchor, Badge, Button, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import { campaigns } from '../api.ts';
import { PageState } from '../components/PageState.tsx';
import { CampaignPreview } from '../components/CampaignPreview.tsx';
import { CampaignArchive } from '../components/CampaignArchive.tsx';
import { when } from '../format.ts';
import { useAction, useLoad, usePolling } from '../hooks.ts';
import { CAMPAIGN_COLOR, type Campaign } from './Campaigns.tsx';
import { VariantsReport } from './CampaignAbTest.tsx';
import { CampaignEditor } from '../components/CampaignEditor.tsx';
import { SendProgress, SentActions } from '../components/CampaignSending.tsx';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';
import { CampaignStatistics } from '../components/CampaignStatistics.tsx';
import { RecipientsTab, LinksTab } from '../components/CampaignRecipients.tsx';
import { CampaignControls, CampaignStateNotice } from '../components/CampaignControls.tsx';

export function CampaignPage() {
  const { session } = useSession();
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
                <CampaignControls campaign={c} onChanged={campaign.reload} />
                {can(session, 'campaigns.write') && <DuplicateButton campaign={c} />}
                <Badge size="lg" color={CAMPAIGN_COLOR[c.status]} aria-label={`Status ${c.status}`}>
                  {c.status}
                </Badge>
              </Group>
            </Group>
            <CampaignStateNotice campaign={c} />
            {c.status === 'FAILED' && <SendProgress campaign={c} onChanged={campaign.reload} />}
            {c.status === 'DRAFT' || c.status === 'SCHEDULED' || c.status === 'FAILED' ? (
              <CampaignEditor key={c.updated_at} campaign={c} onChanged={campaign.reload} />
            ) : (
              <>
                {(c.status === 'SENDING' || c.status === 'PAUSED' || c.status === 'CANCELLED') && <SendProgress campaign={c} onChanged={campaign.reload} />}
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
                      {c.status === 'SENT' ? <CampaignStatistics campaign={c} /> : <Text c="dimmed">{c.status === 'CANCELLED' ? 'A cancelled campaign has no report; its Recipients tab shows who was sent it.' : 'The report is ready once the campaign is sent.'}</Text>}
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
