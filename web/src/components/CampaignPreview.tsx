import { Autocomplete, Group, Loader, LoadingOverlay, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState, type ReactNode } from 'react';
import { campaigns, contacts as contactsApi, type PreviewBody, type Schemas } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { SandboxedHtml } from './SandboxedHtml.tsx';

/** Unsaved content the editor previews in place of the saved one (each field as typed). */
export type PreviewDraft = Omit<PreviewBody, 'email' | 'variant'>;

/** The widths a message is previewed at: a desktop mail client's reading pane, and a phone. */
const WIDTHS = { desktop: 680, phone: 375 } as const;
type Width = keyof typeof WIDTHS;

const MERGE_WORDS: Record<string, string> & Record<Schemas['CampaignPreview']['merge_data'], string> = { contact: 'this contact', 'list member': "your list's first contact", sample: 'sample data' };

/**
 * Issue 34: the last render shown, kept across the editor's remount after "Save draft" (the page
 * keys the editor by the campaign's updated_at), so the preview keeps it, dimmed, until the new
 * one arrives instead of going blank for seconds. One preview's: the one being edited.
 */
let lastRender: { memoryKey: string; rendered: RenderedPreview } | null = null;

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
      memoryKey={`campaign ${campaignId}`}
    />
  );
}

/**
 * The preview panel the campaign page and a workflow's e-mail step share (issue 34 item 11): the
 * server's rendering (`render`, asked again when `renderKey` or the chosen contact changes), the
 * inbox line, the message at desktop or phone width in the sandboxed iframe. `children` go under
 * the contact search (a step's sample event data); `footer` gets the answer (a step's checks).
 * `memoryKey` names what is previewed, so its last render survives a remount (see lastRender).
 */
export function MessagePreview<T extends RenderedPreview>({
  render,
  renderKey,
  preheader,
  frameTitle,
  memoryKey,
  children,
  footer,
}: {
  render: (email: string | null) => Promise<T>;
  renderKey: string;
  preheader: string | null;
  frameTitle: string;
  memoryKey?: string;
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
  useEffect(() => {
    if (preview.data && memoryKey) lastRender = { memoryKey, rendered: preview.data };
  }, [memoryKey, preview.data]);
  const shown: RenderedPreview | undefined = preview.data ?? (memoryKey && lastRender?.memoryKey === memoryKey ? lastRender.rendered : undefined);
  const updating = preview.loading && !preview.error;

  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Text fw={500}>Preview</Text>
            {updating && (
              <Group gap={4} role="status" aria-live="polite">
                <Loader size={12} />
                <Text size="xs" c="dimmed">
                  {shown ? 'Updating the preview…' : 'Rendering the preview…'}
                </Text>
              </Group>
            )}
          </Group>
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
          shown && (
            <div aria-label="Inbox line" style={{ borderLeft: '3px solid var(--mantine-color-blue-5)', paddingLeft: 8 }}>
              <Text size="sm" fw={600} lineClamp={1}>
                {shown.subject || 'No subject yet'}
              </Text>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {preheader || 'No preheader: mail apps show the first words of the message'}
              </Text>
              <Text size="xs" c="dimmed">
                With {MERGE_WORDS[shown.merge_data] ?? shown.merge_data}
              </Text>
            </div>
          )
        )}
        {/* The message at the chosen width itself, scrolling sideways where the column is narrower. */}
        {/* While a new render is on its way, the last one stays under a light veil with a spinner. */}
        <div style={{ overflowX: 'auto', position: 'relative' }} aria-busy={updating}>
          <LoadingOverlay visible={updating} zIndex={2} overlayProps={{ backgroundOpacity: 0.25 }} loaderProps={{ size: 'sm' }} />
          <div style={{ width: WIDTHS[width], margin: '0 auto' }} data-preview-width={width}>
            <SandboxedHtml html={shown?.html ?? ''} title={frameTitle} />
          </div>
        </div>
        {preview.data && !preview.error && footer?.(preview.data)}
      </Stack>
    </Paper>
  );
}
