import { Anchor, Badge, Button, Card, Group, Paper, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { campaigns, errorText, templates as templatesApi, type Schemas } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { SandboxedHtml } from '../components/SandboxedHtml.tsx';
import { MjmlDesignButton } from '../components/MjmlDesignButton.tsx';
import { when } from '../format.ts';
import { renderWithSampleData } from '../sample-render.ts';
import { useAction, useLoad } from '../hooks.ts';
import { Can } from '../components/Can.tsx';

/** The API's template (D22), from the types generated off the served OpenAPI document. */
export type Template = Schemas['Template'];

export const allTemplates = () => templatesApi.all();

const FORMAT_LABELS: Record<Template['format'], string> = { html: 'HTML', mjml: 'MJML', markdown: 'Markdown' };
const NEW_BODIES: Record<Template['kind'], string> = {
  layout: '<html>\n<body>\n  <div style="max-width:600px;margin:0 auto;font-family:Arial,sans-serif">\n    {{ content }}\n    <p style="font-size:12px;color:#888"><a href="{{ unsubscribe_url }}">Unsubscribe</a> · <a href="{{ preferences_url }}">Preferences</a></p>\n  </div>\n</body>\n</html>\n',
  starter: '<p>Hi {{ first_name | default: "there" }},</p>\n<p>Write your message here.</p>\n<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>\n',
};

/** D22: a starter becomes a campaign with its body as the campaign's content, in its format. */
async function campaignFromStarter(template: Template): Promise<Schemas['Campaign']> {
  return campaigns.create({ name: template.name, format: template.format, html: template.body });
}

/** A built-in (or any) template copied into the account's own, to change freely. */
async function duplicate(template: Template): Promise<Template> {
  return templatesApi.create({ name: `${template.name} (copy)`.slice(0, 255), kind: template.kind, format: template.format, body: template.body });
}

/**
 * A scaled-down, sandboxed render of the template's compiled HTML (no scripts: SandboxedHtml),
 * its merge fields filled with sample data (issue 34), shown once rendered.
 */
function Thumbnail({ template }: { template: Template }) {
  const [html, setHtml] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void renderWithSampleData(template.html).then((rendered) => live && setHtml(rendered));
    return () => {
      live = false;
    };
  }, [template.html]);
  return (
    <div className="template-thumb" aria-hidden="true">
      {html !== null && <SandboxedHtml html={html} title={`Preview of ${template.name}`} className="template-thumb-frame" />}
    </div>
  );
}

function Badges({ template }: { template: Template }) {
  return (
    <Group gap={6}>
      <Badge variant="light" size="sm">
        {FORMAT_LABELS[template.format]}
      </Badge>
      {template.builtin && (
        <Badge variant="light" color="grape" size="sm">
          Built-in
        </Badge>
      )}
    </Group>
  );
}

/** D22: the gallery: starters to begin a campaign from, and layouts that wrap a campaign's content. */
export function TemplatesPage() {
  const templates = useLoad(allTemplates, []);
  const starters = templates.data?.filter((t) => t.kind === 'starter') ?? [];
  const layouts = templates.data?.filter((t) => t.kind === 'layout') ?? [];
  return (
    <Stack>
      <PageHeader title="Templates">
        <Can need="campaigns.write">
          <Button component={Link} to="/templates/new">
            New template
          </Button>
        </Can>
      </PageHeader>
      <Text size="sm" c="dimmed">
        Start a campaign from a starter, or wrap campaigns in a layout: a layout holds <code>{'{{ content }}'}</code> once, where each campaign&apos;s content goes. Built-in templates can be duplicated and changed as your own.
      </Text>
      <PageState loading={templates.loading} error={templates.error} onRetry={templates.reload} empty={templates.data?.length === 0}>
        <Gallery title="Starters" templates={starters} onChanged={templates.reload} />
        <Gallery title="Layouts" templates={layouts} onChanged={templates.reload} />
      </PageState>
    </Stack>
  );
}

function Gallery({ title, templates, onChanged }: { title: string; templates: Template[]; onChanged: () => Promise<void> }) {
  return (
    <section aria-label={title}>
      <Title order={3} mb="sm" mt="md">
        {title}
      </Title>
      {templates.length === 0 ? (
        <Text c="dimmed" size="sm">
          None yet.
        </Text>
      ) : (
        <div className="template-gallery">
          {templates.map((t) => (
            <TemplateCard key={t.id} template={t} onChanged={onChanged} />
          ))}
        </div>
      )}
    </section>
  );
}

function TemplateCard({ template, onChanged }: { template: Template; onChanged: () => Promise<void> }) {
  return (
    <Card withBorder padding="sm" radius="md" aria-label={template.name} component="article">
      <Card.Section>
        <Link to={`/templates/${template.id}`} aria-label={`Open ${template.name}`}>
          <Thumbnail template={template} />
        </Link>
      </Card.Section>
      <Stack gap={6} mt="sm">
        <Anchor component={Link} to={`/templates/${template.id}`} fw={600} size="sm">
          {template.name}
        </Anchor>
        <Badges template={template} />
        <CopyActions template={template} size="xs" duplicate={template.builtin}>
          {!template.builtin && (
            <>
              <Button size="xs" variant="light" component={Link} to={`/templates/${template.id}`}>
                Edit
              </Button>
              <DeleteTemplate template={template} onDeleted={onChanged} />
            </>
          )}
        </CopyActions>
      </Stack>
    </Card>
  );
}

/** "Use this starter" (a starter becomes a campaign, opened) and "Duplicate" (an own copy, opened), with their error. */
function CopyActions({ template, size, duplicate: canDuplicate, children }: { template: Template; size: 'xs' | 'sm'; duplicate: boolean; children?: ReactNode }) {
  const navigate = useNavigate();
  const action = useAction();
  // Issue 34: one click, one copy. The ref holds off a second click that lands before React has
  // re-rendered the button disabled (a double click), and the status says what is being made.
  const running = useRef(false);
  const [doing, setDoing] = useState<{ kind: 'copy' | 'use'; words: string } | null>(null);
  const once = async <T,>(what: { kind: 'copy' | 'use'; words: string }, make: () => Promise<T>, open: (made: T) => void) => {
    if (running.current) return;
    running.current = true;
    setDoing(what);
    try {
      const made = await action.run(make);
      if (made) open(made);
    } finally {
      running.current = false;
      setDoing(null);
    }
  };
  return (
    <>
      <Group gap={6} mt={4}>
        {children}
        {canDuplicate && (
          <Can need="campaigns.write">
            <Button
              size={size}
              variant="light"
              loading={doing?.kind === 'copy'}
              disabled={action.busy}
              onClick={() => void once({ kind: 'copy', words: `Copying “${template.name}”…` }, () => duplicate(template), (copy) => navigate(`/templates/${copy.id}`))}
            >
              Duplicate
            </Button>
          </Can>
        )}
        {template.kind === 'starter' && (
          <Can need="campaigns.write">
            <Button
              size={size}
              loading={doing?.kind === 'use'}
              disabled={action.busy}
              onClick={() => void once({ kind: 'use', words: `Creating a campaign from “${template.name}”…` }, () => campaignFromStarter(template), (campaign) => navigate(`/campaigns/${campaign.id}`))}
            >
              Use this starter
            </Button>
          </Can>
        )}
      </Group>
      {doing && (
        <Text size="sm" c="dimmed" role="status">
          {doing.words}
        </Text>
      )}
      <ErrorText error={action.error} />
    </>
  );
}

function DeleteTemplate({ template, onDeleted }: { template: Template; onDeleted: () => Promise<void> }) {
  return (
    <Can need="campaigns.write">
      <ConfirmButton
        size="xs"
        variant="light"
        color="red"
        label="Delete"
        aria-label={`Delete ${template.name}`}
        title={`Delete the template “${template.name}”?`}
        message={template.kind === 'layout' ? 'Campaigns not yet sent must use another layout first. Sent campaigns keep what they were sent with.' : 'Campaigns started from it keep their own copy.'}
        confirmLabel="Delete template"
        onConfirm={async () => {
          await templatesApi.remove(template.id);
          await onDeleted();
        }}
      />
    </Can>
  );
}

/** /templates/new and /templates/:id: an own template's editor, or a built-in one's read-only view. */
export function TemplateEditorPage() {
  const id = useParams().id!;
  const isNew = id === 'new';
  const saved = useLoad(() => (isNew ? Promise.resolve(null) : templatesApi.get(Number(id))), [id]);
  const navigate = useNavigate();
  const [notice, setNotice] = useState<string | null>(null);
  async function onSaved(result: Template) {
    setNotice(isNew ? 'Template created.' : 'Template saved.');
    if (isNew) navigate(`/templates/${result.id}`, { replace: true });
    else await saved.reload();
  }
  return (
    <Stack>
      <Anchor component={Link} to="/templates" size="sm">
        ← Templates
      </Anchor>
      <PageState loading={saved.loading} error={saved.error} onRetry={saved.reload} empty={!isNew && !saved.data}>
        {(isNew || saved.data) && <TemplateEditor key={saved.data?.updated_at ?? 'new'} template={saved.data ?? null} notice={notice} onSaved={onSaved} />}
      </PageState>
    </Stack>
  );
}

function TemplateEditor({ template, notice, onSaved }: { template: Template | null; notice: string | null; onSaved: (saved: Template) => Promise<void> }) {
  const readOnly = template?.builtin ?? false;
  const [name, setName] = useState(template?.name ?? '');
  const [kind, setKind] = useState<Template['kind']>(template?.kind ?? 'starter');
  const [format, setFormat] = useState<Template['format']>(template?.format ?? 'html');
  const [body, setBody] = useState(template?.body ?? NEW_BODIES.starter);
  const action = useAction();

  /** The visual editor's Save: the template with the design as it stands; the error's words, or null. */
  async function saveDesign(designed: string): Promise<string | null> {
    try {
      await templatesApi.update(template!.id, { name, kind, format, body: designed });
      setBody(designed);
      return null;
    } catch (err) {
      return errorText(err);
    }
  }

  async function save() {
    const values = { name, kind, format, body };
    const result = await action.run(() => (template ? templatesApi.update(template.id, values) : templatesApi.create(values)));
    if (result) await onSaved(result);
  }

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{template ? template.name : 'New template'}</Title>
        {template && <Badges template={template} />}
      </Group>
      {readOnly && (
        <Text size="sm" c="dimmed">
          A built-in template can&apos;t be changed. Duplicate it to make your own copy.
        </Text>
      )}
      <div className="two-columns">
        <Paper withBorder p="md">
          <Stack>
            <TextInput label="Name" required value={name} readOnly={readOnly} onChange={(e) => setName(e.currentTarget.value)} />
            <Group grow>
              <Select
                label="Kind"
                description="A layout wraps campaigns at {{ content }}"
                data={[
                  { value: 'starter', label: 'Starter' },
                  { value: 'layout', label: 'Layout' },
                ]}
                value={kind}
                readOnly={readOnly}
                allowDeselect={false}
                onChange={(v) => {
                  const next = (v ?? 'starter') as Template['kind'];
                  // a fresh body follows the kind until the user has written their own
                  if (!template && body === NEW_BODIES[kind]) setBody(NEW_BODIES[next]);
                  setKind(next);
                }}
              />
              <Select
                label="Format"
                description="The language of the body"
                data={(Object.keys(FORMAT_LABELS) as Template['format'][]).map((f) => ({ value: f, label: FORMAT_LABELS[f] }))}
                value={format}
                readOnly={readOnly}
                allowDeselect={false}
                onChange={(v) => setFormat((v ?? 'html') as Template['format'])}
              />
            </Group>
            {!readOnly && format === 'mjml' && <MjmlDesignButton source={body} title={`Design: ${name || 'new template'}`} onChange={setBody} onSave={template ? saveDesign : undefined} />}
            <Textarea
              label="Body"
              description="Liquid merge fields work here, e.g. {{ first_name }} and {{ unsubscribe_url }}."
              value={body}
              readOnly={readOnly}
              onChange={(e) => setBody(e.currentTarget.value)}
              autosize
              minRows={16}
              maxRows={40}
              spellCheck={false}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
            />
            <ErrorText error={action.error} />
            {notice && !action.error && (
              <Text size="sm" c="teal" role="status">
                {notice}
              </Text>
            )}
            {!readOnly && (
              <Group>
                <Can need="campaigns.write">
                  <Button onClick={save} loading={action.busy}>
                    {template ? 'Save' : 'Create template'}
                  </Button>
                </Can>
              </Group>
            )}
            {template && <CopyActions template={template} size="sm" duplicate />}
            {template && (
              <Text size="xs" c="dimmed">
                Updated {when(template.updated_at)}
              </Text>
            )}
          </Stack>
        </Paper>
        <Stack gap="xs">
          <Text fw={500} size="sm">
            Preview {template ? '(as saved)' : ''}
          </Text>
          {template ? <SandboxedHtml html={template.html} title={`${template.name} preview`} /> : <Text c="dimmed" size="sm">Create the template to see its preview.</Text>}
        </Stack>
      </div>
    </Stack>
  );
}
