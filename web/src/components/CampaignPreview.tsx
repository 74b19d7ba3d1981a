import { Autocomplete, Group, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState, type ReactNode } from 'react';
import { campaigns, contacts as contactsApi, type PreviewBody, type Schemas } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { SandboxedHtml } from './SandboxedHtml.tsx';

/** Unsaved content the editor previews in place of the saved one (each field as typed). */
export type PreviewDraft = Omit<PreviewBody, 'email' | 'variant'>;

/** The widths a message is previewed at: a desktop mail client's reading pane, and a phone. */
const WIDTHS = { desktop: 680, phone: 375 } as const;
type Width = keyof typeof WIDTHS;

const MERGE_WORDS: Record<string, string> & Record<Schemas['CampaignPreview']['merge_data'], string> = { contact: 'this contact', 'list member': "your list's first contact", sample: 'sample data' };

/** What a preview answers: the campaign's (D22) or a workflow step's (issue 34), rendered by the server. */
export interface RenderedPreview {
  subject: string;
  html: string | null;
  merge_data: string;
}

/**
 * D22: the campaign as a recipient will see it, rendered by the server (POST /campaigns/{id}/preview):
 * the inbox line (subject and preheader), the message at desktop or phone width, for a chosen
 * contact or for the list's first contact / sample data. The HTML sits in the sandboxed iframe: no
 * script in the content ever runs. The server's preview carries no tracking, so nothing here counts.
 */
export function CampaignPreview({ campaignId, draft, preheader }: { campaignId: number; draft?: PreviewDraft; preheader: string | null }) {
  const [draftKey] = useDebouncedValue(JSON.stringify(draft ?? null), 400);
  return (
    <MessagePreview
      render={(email) => campaigns.preview(campaignId, { ...(draft ?? {}), ...(email ? { email } : {}) })}
      renderKey={`${campaignId} ${draftKey}`}
      preheader={draft ? (draft.preheader ?? null) : preheader}
      frameTitle="Campaign preview"
    />
  );
}

/**
 * The preview panel the campaign page and a workflow's e-mail step share (issue 34 item 11): the
 * server's rendering (`render`, asked again when `renderKey` or the chosen contact changes), the
 * inbox line, the message at desktop or phone width in the sandboxed iframe. `children` go under
 * the contact search (a step's sample event data); `footer` gets the answer (a step's checks).
 */
export function MessagePreview<T extends RenderedPreview>({
  render,
  renderKey,
  preheader,
  frameTitle,
  children,
  footer,
}: {
  render: (email: string | null) => Promise<T>;
  renderKey: string;
  preheader: string | null;
  frameTitle: string;
  children?: ReactNode;
  footer?: (preview: T) => ReactNode;
}) {
  const [width, setWidth] = useState<Width>('desktop');
  const [search, setSearch] = useState('');
  const [email, setEmail] = useState<string | null>(null);
  const [searchKey] = useDebouncedValue(search, 250);
  const preview = useLoad(() => render(email), [renderKey, email]);
  const contacts = useLoad(
    async () => (searchKey.trim() ? (await contactsApi.page({ search: searchKey.trim(), size: 10 })).items.map((c) => c.email) : []),
    [searchKey],
  );

  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Text fw={500}>Preview</Text>
          <SegmentedControl
            size="xs"
            aria-label="Preview width"
            value={width}
            onChange={(v) => setWidth(v as Width)}
            data={[
              { value: 'desktop', label: 'Desktop' },
              { value: 'phone', label: 'Phone' },
            ]}
          />
        </Group>
        <Autocomplete
          label="Preview for"
          placeholder="Search a contact by e-mail (empty: sample data)"
          size="xs"
          value={search}
          data={contacts.data ?? []}
          onChange={(value) => {
            setSearch(value);
            if (!value.trim()) setEmail(null);
          }}
          onOptionSubmit={(value) => {
            setSearch(value);
            setEmail(value);
          }}
        />
        {children}
        {preview.error ? (
          <Text c="red" size="sm" role="alert">
            {preview.error}
          </Text>
        ) : (
          preview.data && (
            <div aria-label="Inbox line" style={{ borderLeft: '3px solid var(--mantine-color-blue-5)', paddingLeft: 8 }}>
              <Text size="sm" fw={600} lineClamp={1}>
                {preview.data.subject || 'No subject yet'}
              </Text>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {preheader || 'No preheader: mail apps show the first words of the message'}
              </Text>
              <Text size="xs" c="dimmed">
                With {MERGE_WORDS[preview.data.merge_data] ?? preview.data.merge_data}
              </Text>
            </div>
          )
        )}
        {/* The message at the chosen width itself, scrolling sideways where the column is narrower. */}
        <div style={{ overflowX: 'auto' }}>
          <div style={{ width: WIDTHS[width], margin: '0 auto' }} data-preview-width={width}>
            <SandboxedHtml html={preview.data?.html ?? ''} title={frameTitle} />
          </div>
        </div>
        {preview.data && !preview.error && footer?.(preview.data)}
      </Stack>
    </Paper>
  );
}
