import { Button, Code, NavLink, Pagination, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { devInbox } from '../api.ts';
import { PageHeader } from '../components/Layout.tsx';
import { PageState } from '../components/PageState.tsx';
import { SandboxedHtml } from '../components/SandboxedHtml.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';

/** Mail captured instead of sent while no SMTP_URL is set: rendered only in a sandboxed iframe. */
export function InboxPage() {
  const [page, setPage] = useState(0);
  const inbox = useLoad(() => devInbox.page({ size: 25, page }), [page]);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const selected = inbox.data?.items.find((m) => m.id === selectedId) ?? inbox.data?.items[0];
  return (
    <Stack>
      <PageHeader title="Dev inbox">
        <Button variant="default" onClick={() => void inbox.reload()}>
          Refresh
        </Button>
      </PageHeader>
      <Text size="sm" c="dimmed">
        Without SMTP_URL, Sendwell keeps outgoing mail here instead of sending it.
      </Text>
      <PageState loading={inbox.loading} error={inbox.error} onRetry={inbox.reload} empty={inbox.data?.items.length === 0} emptyText="No captured mail yet. Send a campaign or a test.">
        <div className="two-columns">
          <Paper withBorder p="xs" component="nav" aria-label="Messages">
            {inbox.data?.items.map((m) => (
              <NavLink component="button" key={m.id} active={m.id === selected?.id} onClick={() => setSelectedId(m.id)} label={m.subject} description={`To ${m.to} · ${when(m.created_at)}`} />
            ))}
            {(inbox.data?.totalPages ?? 0) > 1 && <Pagination mt="sm" total={inbox.data!.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />}
          </Paper>
          {selected && (
            <Paper withBorder p="md" aria-label="Message">
              <Title order={4}>{selected.subject}</Title>
              <Text size="sm" c="dimmed" mb="sm">
                From {selected.from} to {selected.to}
              </Text>
              <Tabs defaultValue="html" keepMounted={false}>
                <Tabs.List>
                  <Tabs.Tab value="html">HTML</Tabs.Tab>
                  <Tabs.Tab value="text">Text</Tabs.Tab>
                  <Tabs.Tab value="headers">Headers</Tabs.Tab>
                </Tabs.List>
                <Tabs.Panel value="html" pt="sm">
                  {selected.html ? <SandboxedHtml html={selected.html} title={`Message: ${selected.subject}`} openLinks /> : <Text c="dimmed">No HTML part.</Text>}
                </Tabs.Panel>
                <Tabs.Panel value="text" pt="sm">
                  <Code block>{selected.text ?? 'No text part.'}</Code>
                </Tabs.Panel>
                <Tabs.Panel value="headers" pt="sm">
                  <Code block>{Object.entries(selected.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}</Code>
                </Tabs.Panel>
              </Tabs>
            </Paper>
          )}
        </div>
      </PageState>
    </Stack>
  );
}
