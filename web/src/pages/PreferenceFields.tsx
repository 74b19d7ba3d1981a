import { Button, Group, Paper, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { customFields, segments, type Schemas } from '../api.ts';
import { Can } from '../components/Can.tsx';
import { ErrorText, PageState } from '../components/PageState.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { CUSTOM_FIELD_DEFINITION_LIMITS, fieldLabel, type CustomFieldType } from '../../../src/domain/contacts/custom-field-definition.ts';

type Definition = Schemas['CustomFieldDefinition'];

/** One custom field as the card holds it: its definition, or what a new one would be. */
interface Row {
  key: string;
  type: CustomFieldType;
  label: string;
  editable: boolean;
  defined: boolean;
}

const TYPES: { value: CustomFieldType; label: string }[] = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Yes / no' },
];

/** The type a key's values have today (from the contacts), for a key with no definition yet. */
const typeOfValues = (types: string[]): CustomFieldType => (types.length === 1 && (types[0] === 'number' || types[0] === 'boolean') ? types[0] : 'text');

async function loadRows(): Promise<Row[]> {
  const [held, defined] = await Promise.all([segments.fields(), customFields.list()]);
  const byKey = new Map<string, Definition>(defined.map((d) => [d.key, d]));
  const keys = [...new Set([...held.custom_fields.map((f) => f.key), ...byKey.keys()])].sort();
  return keys.map((key) => {
    const d = byKey.get(key);
    const types = held.custom_fields.find((f) => f.key === key)?.types ?? [];
    return d ? { key, type: d.type, label: d.label ?? '', editable: d.editable_by_contact, defined: true } : { key, type: typeOfValues(types), label: '', editable: false, defined: false };
  });
}

/**
 * Issue 34 item 13: what a contact may change of themselves in the preference centre (their name
 * always, and the custom fields switched on here), with each field's type and label.
 */
export function PreferenceFields() {
  const rows = useLoad(loadRows, []);
  // Kept here: saving reloads the rows, which starts the rows' own state afresh.
  const [saved, setSaved] = useState(false);
  return (
    <Paper withBorder p="md" aria-label="Preference centre fields">
      <Stack gap="sm">
        <Title order={3}>What contacts can edit</Title>
        <Text size="sm" c="dimmed">
          The preference centre, linked from every campaign, lets a contact choose among your public lists and change their own first and last name. Switch on the custom fields they may change too; the
          type decides what they can enter.
        </Text>
        <PageState loading={rows.loading} error={rows.error} onRetry={rows.reload} empty={rows.data?.length === 0} emptyText="No custom fields yet: your contacts' custom fields appear here once they hold some.">
          {rows.data && <FieldRows key={rows.data.map((r) => `${r.key}:${r.type}:${r.label}:${r.editable}`).join()} initial={rows.data} onSaved={rows.reload} saved={saved} setSaved={setSaved} />}
        </PageState>
      </Stack>
    </Paper>
  );
}

function FieldRows({ initial, onSaved, saved, setSaved }: { initial: Row[]; onSaved: () => Promise<void>; saved: boolean; setSaved: (saved: boolean) => void }) {
  const [rows, setRows] = useState(initial);
  const action = useAction();
  const change = (i: number, patch: Partial<Row>) => {
    setSaved(false);
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  };
  // Only keys with a definition, or given one here, are sent: the rest stay without.
  const changed = rows.filter((r, i) => r.defined || r.editable || r.label.trim() !== '' || r.type !== initial[i].type);
  async function save() {
    const body = { custom_fields: changed.map((r) => ({ key: r.key, type: r.type, label: r.label.trim() || null, editable_by_contact: r.editable })) };
    if (body.custom_fields.length === 0) return;
    if (await action.run(() => customFields.put(body))) {
      setSaved(true);
      await onSaved();
    }
  }
  return (
    <Stack gap="xs">
      {rows.map((r, i) => (
        <Group key={r.key} gap="sm" wrap="wrap" align="flex-end" className="preference-field">
          <Switch label={<Text fw={500} className="key-value">{r.key}</Text>} aria-label={`Contacts can edit ${r.key}`} checked={r.editable} onChange={(e) => change(i, { editable: e.currentTarget.checked })} w={200} mb={8} />
          <Select label="Type" aria-label={`Type of ${r.key}`} data={TYPES} value={r.type} onChange={(v) => v && change(i, { type: v as CustomFieldType })} allowDeselect={false} w={130} />
          <TextInput
            label="Label"
            aria-label={`Label of ${r.key}`}
            placeholder={fieldLabel({ key: r.key, label: null })}
            maxLength={CUSTOM_FIELD_DEFINITION_LIMITS.labelMax}
            value={r.label}
            onChange={(e) => change(i, { label: e.currentTarget.value })}
            className="grow"
            miw={160}
          />
        </Group>
      ))}
      <ErrorText error={action.error} />
      <Group>
        <Can need="contacts.write">
          <Button onClick={() => void save()} loading={action.busy} disabled={changed.length === 0}>
            Save fields
          </Button>
        </Can>
        {saved && !action.error && (
          <Text size="sm" c="teal" role="status">
            Fields saved.
          </Text>
        )}
      </Group>
    </Stack>
  );
}
