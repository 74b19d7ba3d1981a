import { Alert, Anchor, Badge, Button, Group, MultiSelect, Paper, Select, Stack, Table, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { contacts, lists, suppressions, type Schemas } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable } from '../components/Layout.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { when } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { STATUS_COLOR, type Contact } from './Contacts.tsx';
import { allForms, type SignUpForm } from './Forms.tsx';
import { allLists, type ContactList } from './Lists.tsx';
import { customValueToSave, type CustomValue } from '../custom-fields.ts';
import { downloadJson } from '../download.ts';
import { Can } from '../components/Can.tsx';
import { ContactTimeline } from '../components/ContactTimeline.tsx';

type FieldRow = { key: string; value: string };
type ConsentRecord = Schemas['ConsentRecord'];
type MembershipStatus = Contact['memberships'][number]['status'];

/** D20: a membership's status as the page says it. */
const MEMBERSHIP: Record<MembershipStatus, { color: string; label: string }> = {
  SUBSCRIBED: { color: 'green', label: 'Subscribed' },
  UNCONFIRMED: { color: 'yellow', label: 'Waiting for confirmation' },
  UNSUBSCRIBED: { color: 'gray', label: 'Unsubscribed' },
};
const CONSENT_SOURCE: Record<ConsentRecord['source'], string> = { FORM: 'Form', API: 'API', IMPORT: 'Import', CONFIRMATION: 'Confirmed by e-mail', EVENT: 'Created by an event: no consent' };
/** D17.5: what the form says about a status only an explicit change may leave. */
const HELD_STATUS: Record<string, string> = {
  BOUNCED: 'Mail to this address was refused. Choose Subscribed only if you know it works again.',
  COMPLAINED: 'This person reported your mail as spam. Choose Subscribed only with their new consent.',
};

export function ContactPage() {
  const email = useParams().email!;
  const contact = useLoad(() => contacts.get(email), [email]);
  const lists = useLoad(allLists, []);
  const consents = useLoad(() => contacts.consents(email), [email]);
  const names = new Map((lists.data ?? []).map((l: ContactList) => [l.id, l.name]));
  const listName = (id: number) => names.get(id) ?? `List ${id}`;
  // A consent keeps its form's id after the form is deleted (D20), so a form may be gone.
  const forms = useLoad(allForms, []);
  const formNames = new Map((forms.data ?? []).map((f: SignUpForm) => [f.id, f.name]));
  return (
    <Stack>
      <Anchor component={Link} to="/contacts" size="sm">
        ← Contacts
      </Anchor>
      <PageState loading={contact.loading} error={contact.error} onRetry={contact.reload} empty={!contact.data}>
        {contact.data && <SuppressionNotice email={contact.data.email} />}
        {contact.data && (
          <ContactForm
            contact={contact.data}
            email={email}
            listOptions={(lists.data ?? []).map((l) => ({ value: String(l.id), label: l.name }))}
            onSaved={async () => {
              await contact.reload();
              await consents.reload();
            }}
          />
        )}
        {contact.data && <Memberships memberships={contact.data.memberships} listName={listName} />}
      </PageState>
      {contact.data && <ContactTimeline key={email} email={email} />}
      <PageState loading={consents.loading} error={consents.error} onRetry={consents.reload}>
        {consents.data && <Consents consents={consents.data.consents} listName={listName} formNames={formNames} />}
      </PageState>
    </Stack>
  );
}

function ContactForm({ contact, email, listOptions, onSaved }: { contact: Contact; email: string; listOptions: { value: string; label: string }[]; onSaved: () => Promise<void> }) {
  const navigate = useNavigate();
  const [firstName, setFirstName] = useState(contact.first_name ?? '');
  const [lastName, setLastName] = useState(contact.last_name ?? '');
  const [phone, setPhone] = useState(contact.phone ?? '');
  const [status, setStatus] = useState(contact.status);
  const [tags, setTags] = useState(contact.tags);
  const [fields, setFields] = useState<FieldRow[]>(Object.entries(contact.custom_fields).map(([key, value]) => ({ key, value: String(value ?? '') })));
  const [listIds, setListIds] = useState(contact.list_ids.map(String));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => setListIds(contact.list_ids.map(String)), [contact.list_ids]);
  // D17.5: an explicit change may set SUBSCRIBED or UNSUBSCRIBED from any status; the status is sent only when changed.
  const statusOptions = ['SUBSCRIBED', 'UNSUBSCRIBED', ...(HELD_STATUS[contact.status] ? [{ value: contact.status, label: contact.status, disabled: true }] : [])];

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    const ok = await action.run(async () => {
      const custom: Record<string, CustomValue> = {};
      for (const key of Object.keys(contact.custom_fields)) custom[key] = null; // removed rows are deleted (D11)
      // The document leaves a custom value's type open; D11 keeps it a scalar.
      for (const row of fields) if (row.key.trim()) custom[row.key.trim()] = customValueToSave(contact.custom_fields[row.key.trim()] as CustomValue | undefined, row.value);
      await contacts.update(email, {
        first_name: firstName || null,
        last_name: lastName || null,
        phone: phone || null,
        tags,
        custom_fields: custom,
        // The select offers only SUBSCRIBED and UNSUBSCRIBED (D17.5); a held status shows disabled.
        ...(status !== contact.status ? { status: status as 'SUBSCRIBED' | 'UNSUBSCRIBED' } : {}),
      });
      const before = new Set(contact.list_ids.map(String));
      const after = new Set(listIds);
      for (const id of after) if (!before.has(id)) await lists.addMembers(Number(id), [contact.email]);
      for (const id of before) if (!after.has(id)) await lists.removeMember(Number(id), contact.email);
      return true;
    });
    if (ok) {
      setSaved(true);
      await onSaved();
    }
  }

  return (
    <form onSubmit={submit}>
      <Stack>
        <Group justify="space-between" wrap="wrap">
          <div>
            <Title order={2}>{contact.email}</Title>
            <Text size="sm" c="dimmed">
              Added {when(contact.created_at)} · updated {when(contact.updated_at)}
            </Text>
          </div>
          <Group>
            <Badge color={STATUS_COLOR[contact.status]} size="lg">
              {contact.status}
            </Badge>
            <Badge variant="outline" size="lg" aria-label={`Lead score ${contact.lead_score}`}>
              Lead score {contact.lead_score}
            </Badge>
          </Group>
        </Group>
        <Paper withBorder p="md">
          <Stack>
            <Group grow wrap="wrap">
              <TextInput label="First name" value={firstName} onChange={(e) => setFirstName(e.currentTarget.value)} />
              <TextInput label="Last name" value={lastName} onChange={(e) => setLastName(e.currentTarget.value)} />
            </Group>
            <Group grow wrap="wrap">
              <TextInput label="Phone" value={phone} onChange={(e) => setPhone(e.currentTarget.value)} />
              <Select label="Subscription" data={statusOptions} value={status} onChange={(v) => v && setStatus(v as Contact['status'])} description={HELD_STATUS[contact.status]} />
            </Group>
            <TagsInput label="Tags" placeholder="Type a tag and press Enter" value={tags} onChange={setTags} />
            <MultiSelect label="Lists" description="The lists it is subscribed to" placeholder="Not in any list" data={listOptions} value={listIds} onChange={setListIds} searchable />
          </Stack>
        </Paper>
        <Paper withBorder p="md">
          <Text fw={500} mb="xs">
            Custom fields
          </Text>
          <Stack gap="xs">
            {fields.length === 0 && (
              <Text size="sm" c="dimmed">
                No custom fields.
              </Text>
            )}
            {fields.map((row, i) => (
              <Group key={i} align="end" wrap="nowrap">
                <TextInput label="Field" value={row.key} onChange={(e) => setFields(fields.map((f, j) => (j === i ? { ...f, key: e.currentTarget.value } : f)))} />
                <TextInput label="Value" value={row.value} onChange={(e) => setFields(fields.map((f, j) => (j === i ? { ...f, value: e.currentTarget.value } : f)))} />
                <Button variant="subtle" color="red" onClick={() => setFields(fields.filter((_, j) => j !== i))} aria-label={`Remove field ${row.key}`}>
                  Remove
                </Button>
              </Group>
            ))}
            <Group>
              <Button variant="light" size="xs" onClick={() => setFields([...fields, { key: '', value: '' }])}>
                Add field
              </Button>
            </Group>
          </Stack>
        </Paper>
        <PersonalData contact={contact} email={email} />
        <ErrorText error={action.error} />
        {saved && (
          <Text c="green" role="status">
            Saved.
          </Text>
        )}
        <Group justify="space-between">
          <Can need="contacts.delete">
            <ConfirmButton
              variant="light"
              color="red"
              label="Delete contact"
              title="Delete this contact?"
              message="The contact leaves every list. Statistics of campaigns already sent do not change."
              confirmLabel="Delete"
              onConfirm={async () => {
                await contacts.remove(email);
                navigate('/contacts');
              }}
            />
          </Can>
          <Can need="contacts.write">
            <Button type="submit" loading={action.busy}>
              Save contact
            </Button>
          </Can>
        </Group>
      </Stack>
    </form>
  );
}

/** D20: every list membership with its status (the Lists field above edits the subscribed ones). */
function Memberships({ memberships, listName }: { memberships: Contact['memberships']; listName: (id: number) => string }) {
  return (
    <Paper withBorder p="md">
      <Title order={3} size="h4" mb="xs">
        List memberships
      </Title>
      {memberships.length === 0 ? (
        <Text size="sm" c="dimmed">
          Not a member of any list.
        </Text>
      ) : (
        <DataTable label="List memberships" columns={['List', 'Status']}>
          {memberships.map((m) => (
            <Table.Tr key={m.list_id}>
              <Table.Td>{listName(m.list_id)}</Table.Td>
              <Table.Td>
                <Badge color={MEMBERSHIP[m.status].color} variant="light">
                  {MEMBERSHIP[m.status].label}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Paper>
  );
}

/** The form a consent came through: its name and a link while it exists. */
function FormName({ id, names }: { id: number | null; names: Map<number, string> }) {
  if (id === null) return <>—</>;
  const name = names.get(id);
  return name === undefined ? (
    <Text size="sm" c="dimmed">
      Deleted form {id}
    </Text>
  ) : (
    <Anchor component={Link} to={`/forms/${id}`} size="sm">
      {name}
    </Anchor>
  );
}

/** D20: where each subscription came from, oldest first, as the API keeps it. */
function Consents({ consents, listName, formNames }: { consents: ConsentRecord[]; listName: (id: number) => string; formNames: Map<number, string> }) {
  return (
    <Paper withBorder p="md">
      <Title order={3} size="h4" mb="xs">
        Consent
      </Title>
      {consents.length === 0 ? (
        <Text size="sm" c="dimmed">
          No consent recorded: the contact was not subscribed to a list by a form, the API, an import or a confirmation.
        </Text>
      ) : (
        <DataTable label="Consent records" columns={['When', 'Source', 'Form', 'Lists', 'IP address', 'User agent']}>
          {consents.map((c, i) => (
            <Table.Tr key={i}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(c.at)}</Table.Td>
              <Table.Td>{CONSENT_SOURCE[c.source]}</Table.Td>
              <Table.Td>
                <FormName id={c.form_id} names={formNames} />
              </Table.Td>
              <Table.Td>{c.list_ids.map(listName).join(', ') || '—'}</Table.Td>
              <Table.Td>{c.ip ?? '—'}</Table.Td>
              <Table.Td>
                <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
                  {c.user_agent ?? '—'}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Paper>
  );
}

/** D21: the person's own data, downloaded as one JSON document, or erased for good. */
function PersonalData({ contact, email }: { contact: Contact; email: string }) {
  const navigate = useNavigate();
  const download = useAction();
  return (
    <Paper withBorder p="md">
      <Text fw={500}>Personal data</Text>
      <Text size="sm" c="dimmed" mb="sm">
        Everything held about this person: the contact, list memberships, consent records, events, automation runs and campaigns sent to them.
      </Text>
      <Group wrap="wrap">
        <Button
          variant="light"
          loading={download.busy}
          onClick={() =>
            download.run(async () => {
              downloadJson(`personal-data-${contact.email}.json`, await contacts.personalData(email));
              return true;
            })
          }
        >
          Download data
        </Button>
        <Can need="contacts.delete">
          <ConfirmButton
            variant="light"
            color="red"
            label="Erase personal data"
            title="Erase this person's data?"
            message={
              <>
                This deletes {contact.email} and everything tied to it: list memberships, consent records, events and automation runs. Campaigns already sent keep their
                statistics, but no longer show the address, and messages not yet sent to it are not sent. The address is kept only as a fingerprint on the suppression
                list, so it is never mailed again unless the person subscribes again through a form with double opt-in. This cannot be undone.
              </>
            }
            confirmLabel="Erase for good"
            onConfirm={async () => {
              await contacts.erase(email);
              navigate('/contacts');
            }}
          />
        </Can>
      </Group>
      <ErrorText error={download.error} />
    </Paper>
  );
}

/**
 * D26.6 and D19: a contact that will not be mailed whatever its status says so on its page: the
 * suppression list's entries for its address (an erased address that came back, a bounce, a
 * complaint, an entry added by hand).
 */
function SuppressionNotice({ email }: { email: string }) {
  const found = useLoad(() => suppressions.page({ search: email, size: 100 }), [email]);
  const entries = (found.data?.items ?? []).filter((s) => s.value === email);
  if (entries.length === 0) return null;
  const erased = entries.some((s) => s.source === 'ERASURE');
  return (
    <Alert color="red" title="Not mailed" role="status">
      <Group gap="xs" mb={4}>
        {entries.map((s) => (
          <Badge key={s.id} color="red" variant="light">
            {s.source === 'ERASURE' ? 'Erased on request' : `Suppressed: ${s.source.toLowerCase().replace(/_/g, ' ')}`}
          </Badge>
        ))}
      </Group>
      {erased
        ? 'This address was erased on request. It is not mailed, whatever its status, until the person signs up again by a form with double opt-in and confirms.'
        : 'This address is on the suppression list: no campaign or workflow mails it, whatever its status.'}
    </Alert>
  );
}
