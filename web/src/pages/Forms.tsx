import { ActionIcon, Alert, Anchor, Button, Checkbox, Code, ColorInput, CopyButton, Group, MultiSelect, Paper, Select, Stack, Switch, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { forms as formsApi, segments, type Schemas } from '../api.ts';
import { DeleteButton } from '../components/ConfirmButton.tsx';
import { DataTable, PageHeader } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { addableFields, addField, customKeyProblem, fieldTitle, moveField, newFields, removeField, updateField, type BuilderField } from '../form-builder.ts';
import { useAction, useLoad } from '../hooks.ts';
import { CUSTOM_FIELD_PREFIX, DEFAULT_BUTTON_TEXT, FORM_LIMITS } from '../../../src/domain/forms/form.ts';
import { allLists, type ContactList } from './Lists.tsx';
import { Can } from '../components/Can.tsx';

/** The API's sign-up form, from the types generated off the served OpenAPI document. */
export type SignUpForm = Schemas['Form'];

export const allForms = formsApi.all;

/** D20: the account's sign-up forms, each with its hosted page. */
export function FormsPage() {
  const forms = useLoad(allForms, []);
  const lists = useLoad(allLists, []);
  const listName = (id: number) => lists.data?.find((l) => l.id === id)?.name ?? `#${id}`;
  return (
    <Stack>
      <PageHeader title="Sign-up forms">
        <Can need="lists.write">
          <Button component={Link} to="/forms/new">
            New form
          </Button>
        </Can>
      </PageHeader>
      <Text size="sm" c="dimmed">
        A form signs people up to your public lists: share its hosted page, or paste its embed code into any website. Lists set to double opt-in ask each person to confirm by e-mail first.
      </Text>
      <PageState loading={forms.loading} error={forms.error} onRetry={forms.reload} empty={forms.data?.length === 0} emptyText="No sign-up forms yet.">
        <DataTable label="Sign-up forms" columns={['Name', 'Lists', 'Hosted page', 'Updated', 'Actions']}>
          {forms.data?.map((f) => (
            <Table.Tr key={f.id}>
              <Table.Td>
                <Anchor component={Link} to={`/forms/${f.id}`} fw={500}>
                  {f.name}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {f.fields.map((field) => field.label).join(', ')}
                </Text>
              </Table.Td>
              <Table.Td>{f.list_ids.map(listName).join(', ')}</Table.Td>
              <Table.Td>
                <Anchor href={f.hosted_url} target="_blank" rel="noopener noreferrer" size="sm">
                  Open
                </Anchor>
              </Table.Td>
              <Table.Td>{when(f.updated_at)}</Table.Td>
              <Table.Td>
                <DeleteForm
                  form={f}
                  onDeleted={async () => {
                    await forms.reload();
                  }}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </PageState>
    </Stack>
  );
}

function DeleteForm({ form, onDeleted }: { form: SignUpForm; onDeleted: () => Promise<void> }) {
  return (
    <DeleteButton
      need="lists.write"
      noun="form"
      name={form.name}
      message="Its hosted page and every copy of its embed code stop taking sign-ups. The contacts it signed up stay."
      onConfirm={async () => {
        await formsApi.remove(form.id);
        await onDeleted();
      }}
    />
  );
}

interface Choices {
  lists: ContactList[];
  customKeys: string[];
}

async function loadChoices(): Promise<Choices> {
  const [lists, fields] = await Promise.all([allLists(), segments.fields()]);
  return { lists, customKeys: fields.custom_fields.map((f) => f.key) };
}

/** /forms/new and /forms/:id: the builder, and once saved, the embed code and hosted page. */
export function FormEditorPage() {
  const id = useParams().id!;
  const isNew = id === 'new';
  const choices = useLoad(loadChoices, []);
  const saved = useLoad(() => (isNew ? Promise.resolve(null) : formsApi.get(Number(id))), [id]);
  const navigate = useNavigate();
  const [notice, setNotice] = useState<string | null>(null);
  // What the server kept is shown again (a new form's page, or the saved one reloaded), with its embed code.
  async function onSaved(result: SignUpForm) {
    setNotice(isNew ? 'Form created.' : 'Form saved.');
    if (isNew) navigate(`/forms/${result.id}`, { replace: true });
    else await saved.reload();
  }
  return (
    <Stack>
      <Anchor component={Link} to="/forms" size="sm">
        ← Sign-up forms
      </Anchor>
      <PageState loading={choices.loading || saved.loading} error={choices.error ?? saved.error} onRetry={() => void Promise.all([choices.reload(), saved.reload()])} empty={!choices.data || (!isNew && !saved.data)}>
        {choices.data && (isNew || saved.data) && <FormEditor key={saved.data?.updated_at ?? 'new'} form={saved.data ?? null} choices={choices.data} notice={notice} onSaved={onSaved} />}
      </PageState>
    </Stack>
  );
}

function FormEditor({ form, choices, notice, onSaved }: { form: SignUpForm | null; choices: Choices; notice: string | null; onSaved: (saved: SignUpForm) => Promise<void> }) {
  const navigate = useNavigate();
  const publicLists = choices.lists.filter((l) => l.is_public);
  const [name, setName] = useState(form?.name ?? '');
  // A list made private since the form was saved is no longer one a form may use.
  const [listIds, setListIds] = useState<string[]>(() => (form?.list_ids ?? []).filter((id) => publicLists.some((l) => l.id === id)).map(String));
  const droppedLists = (form?.list_ids.length ?? 0) - listIds.length;
  const [fields, setFields] = useState<BuilderField[]>(form?.fields ?? newFields());
  const [successMessage, setSuccessMessage] = useState(form?.success_message ?? '');
  const [redirectUrl, setRedirectUrl] = useState(form?.redirect_url ?? '');
  const [options, setOptions] = useState<FormOptions>(() => optionsOf(form));
  const action = useAction();

  async function save() {
    const body = {
      name,
      list_ids: listIds.map(Number),
      fields,
      success_message: successMessage.trim() || null,
      redirect_url: redirectUrl.trim() || null,
      button_text: options.buttonText.trim() || null,
      button_color: options.buttonColor.trim() || null,
      consent_text: options.askConsent ? options.consentText.trim() || null : null,
      confirm_redirect_url: options.confirmRedirectUrl.trim() || null,
    };
    const result = await action.run(() => (form ? formsApi.update(form.id, body) : formsApi.create(body)));
    if (result) await onSaved(result);
  }

  return (
    <Stack>
      <Title order={2}>{form ? form.name : 'New sign-up form'}</Title>
      <div className="two-columns form-editor">
        <Stack>
          <Paper withBorder p="md">
            <Stack>
              <TextInput label="Form name" description="The hosted page's title." required value={name} onChange={(e) => setName(e.currentTarget.value)} />
              <MultiSelect
                label="Lists"
                description="Public lists only: a sign-up joins every list chosen."
                required
                data={publicLists.map((l) => ({ value: String(l.id), label: `${l.name}${l.opt_in === 'double' ? ' (double opt-in)' : ''}` }))}
                value={listIds}
                onChange={setListIds}
                searchable
              />
              {publicLists.length === 0 && (
                <Alert color="yellow" variant="light">
                  No list is public yet. A form signs people up to public lists only: make one public on the <Anchor component={Link} to="/lists">Lists</Anchor> page, or with the API.
                </Alert>
              )}
              {droppedLists > 0 && (
                <Alert color="yellow" variant="light">
                  {droppedLists === 1 ? 'One of its lists is' : `${droppedLists} of its lists are`} no longer public, so the form no longer signs up to {droppedLists === 1 ? 'it' : 'them'}. Save to keep the rest.
                </Alert>
              )}
            </Stack>
          </Paper>
          <FieldsEditor fields={fields} setFields={setFields} customKeys={choices.customKeys} />
          <OptionsEditor options={options} setOptions={setOptions} />
          <Paper withBorder p="md">
            <Stack>
              <Textarea
                label="Success message"
                description="Shown after a sign-up. Empty: a default that says whether a confirmation e-mail was sent."
                value={successMessage}
                onChange={(e) => setSuccessMessage(e.currentTarget.value)}
                autosize
                minRows={2}
              />
              <TextInput
                label="Redirect to"
                description="Instead of the message, send the browser to this page after a sign-up."
                placeholder="https://example.com/thanks"
                value={redirectUrl}
                onChange={(e) => setRedirectUrl(e.currentTarget.value)}
              />
              <TextInput
                label="After confirming by e-mail, send to"
                description="For double opt-in lists: the page a person lands on once they click the link in the confirmation e-mail. Empty: a confirmation page."
                placeholder="https://example.com/welcome"
                value={options.confirmRedirectUrl}
                onChange={(e) => setOptions({ ...options, confirmRedirectUrl: e.currentTarget.value })}
              />
            </Stack>
          </Paper>
          <ErrorText error={action.error} />
          <Group>
            <Can need="lists.write">
              <Button onClick={() => void save()} loading={action.busy}>
                Save form
              </Button>
            </Can>
            {form && <DeleteForm form={form} onDeleted={async () => navigate('/forms')} />}
            {notice && !action.error && (
              <Text size="sm" c="teal" role="status">
                {notice}
              </Text>
            )}
          </Group>
        </Stack>
        {form ? <EmbedPanel form={form} /> : <Text c="dimmed">Save the form to get its embed code and hosted page.</Text>}
      </div>
    </Stack>
  );
}

/** Issue 34: the button's words and colour, and the consent checkbox, as the builder holds them. */
interface FormOptions {
  buttonText: string;
  buttonColor: string;
  askConsent: boolean;
  consentText: string;
  confirmRedirectUrl: string;
}

const optionsOf = (form: SignUpForm | null): FormOptions => ({
  buttonText: form?.button_text ?? '',
  buttonColor: form?.button_color ?? '',
  askConsent: Boolean(form?.consent_text),
  consentText: form?.consent_text ?? '',
  confirmRedirectUrl: form?.confirm_redirect_url ?? '',
});

function OptionsEditor({ options, setOptions }: { options: FormOptions; setOptions: (o: FormOptions) => void }) {
  const set = (change: Partial<FormOptions>) => setOptions({ ...options, ...change });
  return (
    <Paper withBorder p="md" aria-label="Button and consent">
      <Stack>
        <Title order={4}>Button and consent</Title>
        <Group grow wrap="wrap" align="flex-start">
          <TextInput
            label="Button text"
            description={`Empty: ${DEFAULT_BUTTON_TEXT}`}
            placeholder={DEFAULT_BUTTON_TEXT}
            maxLength={FORM_LIMITS.buttonTextMax}
            value={options.buttonText}
            onChange={(e) => set({ buttonText: e.currentTarget.value })}
            miw={180}
          />
          <ColorInput label="Button colour" description="A hex colour, like #0b7285. Empty: blue." placeholder="#228be6" format="hex" value={options.buttonColor} onChange={(v) => set({ buttonColor: v })} miw={180} />
        </Group>
        <Switch
          label="Ask for consent"
          description="A checkbox the person must tick to sign up. Its words are kept with their consent record, as shown."
          checked={options.askConsent}
          onChange={(e) => set({ askConsent: e.currentTarget.checked })}
        />
        {options.askConsent && (
          <Textarea
            label="Consent text"
            description="Plain text, shown beside the checkbox."
            placeholder="Yes, I agree to receive the newsletter. I can unsubscribe at any time."
            required
            maxLength={FORM_LIMITS.consentTextMax}
            autosize
            minRows={2}
            value={options.consentText}
            onChange={(e) => set({ consentText: e.currentTarget.value })}
          />
        )}
      </Stack>
    </Paper>
  );
}

function FieldsEditor({ fields, setFields, customKeys }: { fields: BuilderField[]; setFields: (f: BuilderField[]) => void; customKeys: string[] }) {
  const [newKey, setNewKey] = useState('');
  const keyProblem = newKey ? customKeyProblem(newKey, fields) : null;
  const addable = addableFields(fields, customKeys);
  return (
    <Paper withBorder p="md" aria-label="Fields">
      <Stack gap="sm">
        <Title order={4}>Fields</Title>
        {fields.map((field, i) => {
          const title = fieldTitle(field.name);
          return (
            <Group key={field.name} gap="xs" wrap="wrap" align="flex-end">
              <TextInput
                label={title}
                aria-label={`Label of ${title}`}
                value={field.label}
                onChange={(e) => setFields(updateField(fields, i, { label: e.currentTarget.value }))}
                className="grow"
              />
              <Checkbox
                label="Required"
                aria-label={`${title} required`}
                checked={field.required}
                disabled={field.name === 'email'}
                onChange={(e) => setFields(updateField(fields, i, { required: e.currentTarget.checked }))}
                mb={8}
              />
              <ActionIcon variant="default" size="lg" aria-label={`Move ${title} up`} disabled={i === 0} onClick={() => setFields(moveField(fields, i, -1))}>
                ↑
              </ActionIcon>
              <ActionIcon variant="default" size="lg" aria-label={`Move ${title} down`} disabled={i === fields.length - 1} onClick={() => setFields(moveField(fields, i, 1))}>
                ↓
              </ActionIcon>
              <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove ${title}`} disabled={field.name === 'email'} onClick={() => setFields(removeField(fields, i))}>
                ×
              </ActionIcon>
            </Group>
          );
        })}
        <Group gap="xs" align="flex-end" wrap="wrap">
          <Select label="Add a field" placeholder="Choose a field" data={addable} value={null} onChange={(name) => name && setFields(addField(fields, name))} disabled={addable.length === 0} searchable />
          <TextInput label="New custom field" placeholder="company_size" value={newKey} onChange={(e) => setNewKey(e.currentTarget.value.trim())} error={keyProblem} />
          <Button
            variant="default"
            disabled={!newKey || keyProblem !== null}
            onClick={() => {
              setFields(addField(fields, CUSTOM_FIELD_PREFIX + newKey));
              setNewKey('');
            }}
          >
            Add custom field
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function EmbedPanel({ form }: { form: SignUpForm }) {
  return (
    <Paper withBorder p="md" aria-label="Embed code">
      <Stack>
        <Title order={4}>Hosted page</Title>
        <Group gap="xs">
          <Anchor href={form.hosted_url} target="_blank" rel="noopener noreferrer" className="key-value" size="sm">
            {form.hosted_url}
          </Anchor>
          <CopyButton value={form.hosted_url}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant="subtle" onClick={copy} color={copied ? 'teal' : undefined}>
                {copied ? 'Copied' : 'Copy link'}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Title order={4}>Embed code</Title>
        <Text size="sm" c="dimmed">
          Paste this into any web page: a plain HTML form, no script needed. It takes the page's own styles; its fields carry the class names sendwell-form, sendwell-field and sendwell-submit. To link the thank-you page back to
          the exact page, add a hidden field return_to holding its address; without it, the browser's referrer is used.
        </Text>
        <Code block aria-label="Embed HTML" className="embed-code">
          {form.embed_html}
        </Code>
        <Group>
          <CopyButton value={form.embed_html}>
            {({ copied, copy }) => (
              <Button onClick={copy} color={copied ? 'teal' : undefined}>
                {copied ? 'Copied' : 'Copy embed code'}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Text size="xs" c="dimmed">
          Updated {when(form.updated_at)}. After changing the fields, paste the new code: a copy that sends a field the form no longer has is refused, and the person is shown the hosted form instead.
        </Text>
      </Stack>
    </Paper>
  );
}
