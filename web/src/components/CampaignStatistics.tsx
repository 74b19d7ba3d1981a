import { BarChart } from '@mantine/charts';
import { Paper, Stack, Text, Title } from '@mantine/core';
import { campaigns } from '../api.ts';
import { PageState } from './PageState.tsx';
import { count, percent, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import type { Campaign } from '../pages/Campaigns.tsx';

export function CampaignStatistics({ campaign: c }: { campaign: Campaign }) {
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
                yAxisProps={{ allowDecimals: false }}
                aria-label="Delivery funnel chart"
              />
            </Paper>
            <Paper withBorder p="md">
              <Title order={4} mb="sm">
                Opens and clicks over time
              </Title>
              <PageState loading={engagement.loading} error={engagement.error} empty={engagement.data?.hours.length === 0} emptyText="No opens or clicks yet.">
                {/* Issue 34: bars, which read with one hour of data too (a line of one point is invisible), counted in whole numbers. */}
                <BarChart
                  h={260}
                  data={(engagement.data?.hours ?? []).map((h) => ({ ...h, hour: when(h.hour) }))}
                  dataKey="hour"
                  series={[
                    { name: 'opens', color: 'indigo.6' },
                    { name: 'clicks', color: 'teal.6' },
                  ]}
                  withLegend
                  yAxisProps={{ allowDecimals: false }}
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
