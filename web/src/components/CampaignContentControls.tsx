import { Alert, Group, List, Loader, Select, Text } from '@mantine/core';
import { campaigns, templates, type Schemas } from '../api.ts';
import { useLoad } from '../hooks.ts';

/** D22: what a campaign's html is written in, and the layout placed around it. */
export type ContentSettings = Pick<Schemas['Campaign'], 'format' | 'template_id'>;

export const contentSettingsOf = (c: Schemas['Campaign']): ContentSettings => ({ format: c.format, template_id: c.template_id });

const FORMATS = [
  { value: 'html', label: 'HTML' },
  { value: 'mjml', label: 'MJML' },
  { value: 'markdown', label: 'Markdown' },
];

/** The account's and the built-in layouts (D22's templates of kind layout); none when the templates API is not there. */
const allLayouts = () => templates.all({ kind: 'layout' }).then((all) => all.filter((t) => t.kind === 'layout'));

/** An error from saving that is about the content (its format, its layout, an MJML line): shown beside these fields. */
const CONTENT_ERROR = /^(html|variants\[\d+\]\.html|template_id|format|the layout)\b|MJML|compile/i;

/**
 * D22: the Format and Layout selects, next to the content's text area. A save error about the
 * content (such as an MJML error naming its line) shows here, where it is fixed.
 */
export function ContentFormatFields({ value, onChange, saveError }: { value: ContentSettings; onChange: (v: ContentSettings) => void; saveError?: string | null }) {
  const layouts = useLoad(allLayouts, []);
  const options = [{ value: '', label: 'No layout' }, ...(layouts.data ?? []).map((l) => ({ value: String(l.id), label: l.builtin ? `${l.name} (built-in)` : l.name }))];
  if (value.template_id !== null && !options.some((o) => o.value === String(value.template_id))) options.push({ value: String(value.template_id), label: `Layout #${value.template_id}` });
  return (
    <>
      <Group grow wrap="wrap">
        <Select label="Format" description="What the content below is written in" data={FORMATS} value={value.format} allowDeselect={false} onChange={(f) => f && onChange({ ...value, format: f as ContentSettings['format'] })} />
        <Select
          label="Layout"
          description="Placed around the content at its {{ content }}"
          data={options}
          value={value.template_id === null ? '' : String(value.template_id)}
          allowDeselect={false}
          onChange={(id) => onChange({ ...value, template_id: id ? Number(id) : null })}
        />
      </Group>
      {saveError && CONTENT_ERROR.test(saveError) && (
        <Text c="red" size="sm" role="alert" data-testid="content-error">
          {saveError}
        </Text>
      )}
    </>
  );
}

type Warning = Schemas['CampaignChecks']['warnings'][number];

const loadChecks = (campaignId: number) => campaigns.checks(campaignId);

function WarningList({ warnings }: { warnings: Warning[] }) {
  return (
    <List size="sm" spacing={4}>
      {warnings.map((w, i) => (
        <List.Item key={i}>
          <Text span fw={600} size="sm">
            {w.code}
          </Text>{' '}
          {w.message}
        </List.Item>
      ))}
    </List>
  );
}

/** D22's content checks as the campaign page shows them: the warnings, or that there are none (`passed` says of what). */
export function ChecksAlert({ warnings, passed }: { warnings: Warning[]; passed: string }) {
  return (
    <Alert color={warnings.length ? 'yellow' : 'green'} variant="light" title={warnings.length ? `Checks: ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : 'Checks: no warnings'} data-testid="content-checks">
      {warnings.length ? <WarningList warnings={warnings} /> : <Text size="sm">{passed}</Text>}
    </Alert>
  );
}

/** D22: the checks of the content as last saved, before it is sent; `version` (updated_at) reloads them after a save. */
export function ContentChecks({ campaignId, version }: { campaignId: number; version: string }) {
  const checks = useLoad(() => loadChecks(campaignId), [campaignId, version]);
  if (checks.error) return <Text c="red" size="sm">Checks unavailable: {checks.error}</Text>;
  if (!checks.data) return <Loader size="xs" />;
  return <ChecksAlert warnings={checks.data.warnings} passed="The saved content passed every check." />;
}

type Starter = Schemas['Template'];

/** The gallery's and the account's starters (D22's templates of kind starter). */
const allStarters = () => templates.all({ kind: 'starter' }).then((all) => all.filter((t) => t.kind === 'starter'));

/**
 * D22: start content from a starter of the gallery (its body and format taken as they are, as
 * "Use this starter" does for a campaign); issue 34 item 11 uses it for a workflow's e-mail.
 */
export function StarterSelect({ onPick }: { onPick: (starter: Starter) => void }) {
  const starters = useLoad(allStarters, []);
  const options = (starters.data ?? []).map((t) => ({ value: String(t.id), label: t.builtin ? `${t.name} (gallery)` : t.name }));
  return (
    <Select
      label="Start from a template"
      description="Replaces the content below with the template's"
      placeholder={starters.loading ? 'Loading templates…' : 'Choose a template'}
      data={options}
      value={null}
      searchable
      onChange={(id) => {
        const starter = starters.data?.find((t) => String(t.id) === id);
        if (starter) onPick(starter);
      }}
    />
  );
}

/** D22: the checks again in the send confirmation, so they are seen right before sending. */
export function SendChecks({ campaignId }: { campaignId: number }) {
  const checks = useLoad(() => loadChecks(campaignId), [campaignId]);
  if (!checks.data?.warnings.length) return null;
  return (
    <Alert color="yellow" variant="light" mt="sm" title="Before you send" data-testid="send-checks">
      <WarningList warnings={checks.data.warnings} />
    </Alert>
  );
}
