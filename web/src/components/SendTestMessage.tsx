import { Modal, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { MESSAGE_LIMITS } from '../../../src/domain/messages/message.ts';
import { messages, templates, type SendMessageBody } from '../api.ts';
import { fromLocalInput, displayZone } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { parseData, parseTags, testMessageProblems, type TestMessageForm } from '../message-events.ts';
import { FormActions } from './Layout.tsx';
import { ErrorText } from './PageState.tsx';

/** The content choice that is no starter: the text is written in the form. */
const WRITTEN = 'written';

const EMPTY: TestMessageForm = { to: '', fromEmail: '', subject: '', templateId: '', text: '', data: '', tags: 'test', scheduleAt: '' };

/**
 * D25.8: a test of transactional mail through the same POST /api/v1/messages an application calls:
 * a starter of the gallery (D22) or a written text, with `data` for its `{{ data.x }}`. The form
 * names its own mistakes beside their fields; what only the API can judge (an address, a render
 * error) comes back as the API's message.
 */
export function SendTestMessage({ onClose, onSent }: { onClose: () => void; onSent: () => Promise<void> }) {
  const phone = useMediaQuery('(max-width: 36em)');
  const starters = useLoad(() => templates.all({ kind: 'starter' }), []);
  const [form, setForm] = useState<TestMessageForm>(EMPTY);
  const [checked, setChecked] = useState(false);
  const action = useAction();
  const problems = testMessageProblems(form, new Date());
  const shown = checked ? problems : {};
  const set = (key: keyof TestMessageForm) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const input = (key: keyof TestMessageForm) => ({ value: form[key], error: shown[key], onChange: (e: { currentTarget: { value: string } }) => set(key)(e.currentTarget.value) });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setChecked(true);
    if (Object.keys(problems).length > 0) return;
    const tags = parseTags(form.tags);
    const body: SendMessageBody = {
      to: form.to.trim(),
      from_email: form.fromEmail.trim(),
      subject: form.subject,
      ...(form.templateId ? { template_id: Number(form.templateId) } : { text: form.text }),
      data: parseData(form.data).value,
      tags: tags.length ? tags : undefined,
      scheduled_at: fromLocalInput(form.scheduleAt),
    };
    if (await action.run(() => messages.send(body))) await onSent();
  }

  const options = [{ value: WRITTEN, label: 'Write the text here' }, ...(starters.data ?? []).map((t) => ({ value: String(t.id), label: `Starter: ${t.name}` }))];
  return (
    <Modal opened onClose={onClose} title="Send a test" centered fullScreen={phone ?? false} size="lg">
      <form onSubmit={submit} noValidate aria-label="Send a test">
        <Stack>
          <TextInput label="To" type="email" required placeholder="you@example.com" {...input('to')} />
          <TextInput label="From e-mail" type="email" required description="Signed with DKIM when its domain is a verified sending domain" placeholder="app@example.com" {...input('fromEmail')} />
          <TextInput label="Subject" required description="Liquid: {{ data.order }} is filled from the data below" maxLength={MESSAGE_LIMITS.subjectMax} {...input('subject')} />
          <Select
            label="Content"
            data={options}
            value={form.templateId || WRITTEN}
            allowDeselect={false}
            onChange={(v) => set('templateId')(v && v !== WRITTEN ? v : '')}
            error={starters.error ? `The starters could not be loaded: ${starters.error}` : undefined}
          />
          {!form.templateId && <Textarea label="Text" required autosize minRows={3} maxRows={10} placeholder="Order {{ data.order }} is paid." {...input('text')} />}
          <Textarea label="Data (JSON)" className="mono" autosize minRows={2} maxRows={8} placeholder='{"order": "A-42"}' description="Optional: an object, for {{ data.x }}" {...input('data')} />
          <TextInput label="Tags" description={`Optional: up to ${MESSAGE_LIMITS.tagsMax}, separated by commas`} {...input('tags')} />
          <TextInput label="Send at" type="datetime-local" description={`Optional, the account's time (${displayZone()}); at most ${MESSAGE_LIMITS.scheduleDaysMax} days ahead. Empty: now.`} {...input('scheduleAt')} />
          {checked && Object.keys(problems).length > 0 && (
            <Text size="sm" c="red" role="alert">
              Mend the fields marked in red.
            </Text>
          )}
          <ErrorText error={action.error} />
          <FormActions onCancel={onClose} busy={action.busy} submitLabel={form.scheduleAt ? 'Schedule' : 'Send'} />
        </Stack>
      </form>
    </Modal>
  );
}
