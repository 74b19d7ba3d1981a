import { Code, Group, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { automations } from '../api.ts';
import { SAMPLE_EVENT_JSON, sampleEventData } from '../automation-words.ts';
import type { ContentFormat } from '../content-editor.ts';
import { ChecksAlert, ContentFormatFields, StarterSelect } from './CampaignContentControls.tsx';
import { MessagePreview } from './CampaignPreview.tsx';
import { ContentEditor } from './ContentEditor.tsx';

/** A SEND_EMAIL step as the form holds it (D15's fields, and issue 34's format and layout). */
export interface MailStepDraft {
  type: string;
  subject?: string;
  from_email?: string;
  from_name?: string | null;
  html?: string;
  text?: string | null;
  format?: ContentFormat;
  template_id?: number | null;
  [field: string]: unknown;
}

/**
 * Issue 34 item 11: a workflow's e-mail written as a campaign's is, with the campaign page's parts:
 * a gallery template to start from, the format and layout, the content editor (its merge tags with
 * the triggering event's data), and the server's preview with sample event data and the content
 * checks beside it.
 */
export function MailStepFields({
  step,
  onChange,
  trigger,
  listName,
  index,
}: {
  step: MailStepDraft;
  onChange: (step: MailStepDraft) => void;
  trigger: { type: string; tag?: string; list_id?: number };
  listName: (id: number) => string | undefined;
  index: number;
}) {
  const [eventJson, setEventJson] = useState(SAMPLE_EVENT_JSON);
  // The editor holds its content from when it opens: a template picked (or a format changed) opens it afresh.
  const [editorKey, setEditorKey] = useState(0);
  const format: ContentFormat = step.format ?? 'html';
  const event = sampleEventData(trigger, listName, eventJson);
  const text = (name: 'subject' | 'from_email' | 'from_name') => ({ value: step[name] ?? '', onChange: (e: { currentTarget: { value: string } }) => onChange({ ...step, [name]: e.currentTarget.value }) });
  const content = { subject: step.subject ?? '', html: step.html ?? '', text: step.text || null, format, template_id: step.template_id ?? null, from_email: step.from_email || null, from_name: step.from_name || null };
  const [previewKey] = useDebouncedValue(JSON.stringify([content, event]), 400);

  return (
    // One column: the preview's desktop width needs the step's whole width beside the sidebar.
    <Stack>
      <Stack>
        <TextInput label="Subject" required {...text('subject')} />
        <Group grow wrap="wrap">
          <TextInput label="From e-mail" required type="email" {...text('from_email')} />
          <TextInput label="From name" {...text('from_name')} />
        </Group>
        <StarterSelect
          onPick={(starter) => {
            onChange({ ...step, html: starter.body, format: starter.format });
            setEditorKey((k) => k + 1);
          }}
        />
        <ContentFormatFields
          value={{ format, template_id: step.template_id ?? null }}
          onChange={(v) => {
            if (v.format !== format) setEditorKey((k) => k + 1);
            onChange({ ...step, ...v });
          }}
        />
        <ContentEditor key={editorKey} value={step.html ?? ''} onChange={(html) => onChange({ ...step, html })} format={format} title={`Design: step ${index + 1}`} eventKeys={Object.keys(event ?? {})} />
        <Textarea label="Plain-text version" description="Optional; made from the HTML when empty" autosize minRows={2} value={step.text ?? ''} onChange={(e) => onChange({ ...step, text: e.currentTarget.value || null })} />
      </Stack>
      <MessagePreview
        render={(email) => {
          if (!event) return Promise.reject(new Error('The sample event data is not a JSON object.'));
          return automations.previewStep({ ...content, event, ...(email ? { email } : {}) });
        }}
        renderKey={previewKey}
        preheader={null}
        frameTitle={`Step ${index + 1} preview`}
        footer={(preview) => <ChecksAlert warnings={preview.warnings} passed="The content passed every check." />}
      >
        {trigger.type === 'EVENT' ? (
          <Textarea label="Sample event data (JSON)" description="What the event's data might hold: {{ event.<key> }} reads it" className="mono" autosize minRows={3} value={eventJson} onChange={(e) => setEventJson(e.currentTarget.value)} />
        ) : (
          <Text size="xs" c="dimmed">
            Sample event data: <Code>{JSON.stringify(event)}</Code>
          </Text>
        )}
      </MessagePreview>
    </Stack>
  );
}
