import { Autocomplete, Button, Checkbox, FileInput, Group, Modal, Paper, Progress, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { lists as listsApi, segments as segmentsApi } from '../api.ts';
import { importContacts, readCsv, type ImportTotals } from '../csv-import.ts';
import { rowToItem, type IgnoredColumn } from '../../../src/domain/contacts/csv-columns.ts';
import { columnsOf, guessMapping, ignoredColumns, sampleValues, TARGETS, TARGET_LABELS, type ColumnChoice, type Target } from '../import-mapping.ts';
import { useAction, useLoad } from '../hooks.ts';
import { ErrorText } from './PageState.tsx';
import type { BulkContact } from '../api.ts';

/** What the importer confirms, kept in each imported contact's consent record (D20, issue 34). */
export const CONSENT_STATEMENT = 'These people agreed to hear from us';
const NEW_LIST = 'new';
const TARGET_OPTIONS = TARGETS.map((t) => ({ value: t, label: TARGET_LABELS[t] }));

interface CsvFile {
  header: string[];
  rows: string[][];
}

/**
 * Issue 34 item 8: the import dialog. A file is read in the browser, each column mapped to a
 * field, a custom field (new or existing) or nothing, with its first values shown; a list can be
 * chosen or made here; and the importer confirms these people agreed to hear from them, which each
 * contact's IMPORT consent record keeps. The rows go through POST /v1/contacts/bulk as the CLI's do.
 */
export function ImportContactsModal({ listOptions, onClose }: { listOptions: { value: string; label: string }[]; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [csv, setCsv] = useState<CsvFile | null>(null);
  const [choices, setChoices] = useState<ColumnChoice[]>([]);
  const [listId, setListId] = useState<string | null>(null);
  const [newList, setNewList] = useState('');
  const [updateExisting, setUpdateExisting] = useState(false);
  const [consent, setConsent] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number; totals: ImportTotals } | null>(null);
  const reading = useAction();
  const action = useAction();
  const fields = useLoad(segmentsApi.fields, []);
  const customKeys = useMemo(() => (fields.data?.custom_fields ?? []).map((f) => f.key), [fields.data]);
  const { columns, problems } = useMemo(() => (csv ? columnsOf(csv.header, choices) : { columns: [], problems: [] }), [csv, choices]);

  async function choose(chosen: File | null) {
    setFile(chosen);
    setCsv(null);
    if (!chosen) return;
    await reading.run(async () => {
      const [header, ...rows] = await readCsv(chosen);
      if (!header || rows.length === 0) throw new Error('The file has no rows under its header line.');
      setCsv({ header, rows });
      setChoices(guessMapping(header));
    });
  }

  // A target chosen by the person drops the first guess's reason for not importing.
  const setChoice = (i: number, change: Partial<ColumnChoice>) => setChoices((all) => all.map((c, j) => (j === i ? { ...c, ...change, ...(change.target ? { reason: undefined } : {}) } : c)));

  async function start(e: FormEvent) {
    e.preventDefault();
    if (!csv) return;
    await action.run(async () => {
      const contacts = csv.rows.map((cells) => rowToItem(columns, cells) as BulkContact);
      const list = listId === NEW_LIST ? String((await listsApi.create({ name: newList.trim() })).id) : listId;
      setProgress({ done: 0, total: contacts.length, totals: { created: 0, updated: 0, skipped: 0, failed: 0, errors: [] } });
      await importContacts(contacts, { listId: list, updateExisting, consentStatement: CONSENT_STATEMENT }, (done, totals) => setProgress({ done, total: contacts.length, totals }));
    });
  }

  const finished = progress !== null && progress.done === progress.total;
  const ready = csv !== null && problems.length === 0 && consent && (listId !== NEW_LIST || newList.trim() !== '');
  const ignored = csv ? ignoredColumns(csv.header, columns) : [];
  return (
    <Modal opened onClose={onClose} title="Import contacts from CSV" centered size="lg">
      <form onSubmit={start}>
        <Stack>
          {!progress && (
            <>
              <Text size="sm" c="dimmed">
                Choose a CSV file whose first line names the columns, as Mailchimp, Brevo or listmonk export them. You then choose what each column holds.
              </Text>
              <FileInput label="CSV file" accept=".csv,text/csv" required value={file} onChange={(f) => void choose(f)} disabled={action.busy} />
              <ErrorText error={reading.error} />
            </>
          )}
          {csv && !progress && (
            <>
              <Text size="sm">
                {csv.rows.length} {csv.rows.length === 1 ? 'row' : 'rows'}. What does each column hold? Its first values are shown under its name.
              </Text>
              <Stack gap="xs" aria-label="Column mapping">
                {csv.header.map((header, i) => (
                  <ColumnRow key={i} index={i} header={header} samples={sampleValues(csv.rows, i)} choice={choices[i]} customKeys={customKeys} onChange={(change) => setChoice(i, change)} />
                ))}
              </Stack>
              {problems.map((p) => (
                <Text size="sm" c="red" key={p}>
                  {p}
                </Text>
              ))}
              <Select
                label="Add everyone to list"
                placeholder="No list"
                clearable
                data={[...listOptions, { value: NEW_LIST, label: 'A new list…' }]}
                value={listId}
                onChange={setListId}
                disabled={action.busy}
              />
              {listId === NEW_LIST && <TextInput label="New list name" required maxLength={255} value={newList} onChange={(e) => setNewList(e.currentTarget.value)} disabled={action.busy} />}
              <Checkbox label="Update contacts that already exist" checked={updateExisting} onChange={(e) => setUpdateExisting(e.currentTarget.checked)} disabled={action.busy} />
              <Checkbox
                label={CONSENT_STATEMENT}
                description="Import only people who asked for your mail. Each contact's consent record keeps this confirmation, dated by the file's opt-in time or else now."
                checked={consent}
                onChange={(e) => setConsent(e.currentTarget.checked)}
                disabled={action.busy}
              />
            </>
          )}
          {progress && <ImportProgress progress={progress} finished={finished} ignored={ignored} />}
          <ErrorText error={action.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {finished ? 'Close' : 'Cancel'}
            </Button>
            {!finished && (
              <Button type="submit" loading={action.busy} disabled={!ready}>
                Import
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** One column of the file: its name, its first values, and where it goes. */
function ColumnRow({ index, header, samples, choice, customKeys, onChange }: { index: number; header: string; samples: string[]; choice: ColumnChoice; customKeys: string[]; onChange: (change: Partial<ColumnChoice>) => void }) {
  const name = header.trim() || `Column ${index + 1}`;
  return (
    <Paper withBorder p="xs" className="import-column">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
        <Stack gap={0} style={{ minWidth: 0, flex: '1 1 10rem' }}>
          <Text size="sm" fw={600}>
            {name}
          </Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {samples.length > 0 ? samples.join(' · ') : 'empty in the first rows'}
          </Text>
          {choice.reason && (
            <Text size="xs" c="orange">
              Not imported: {choice.reason}
            </Text>
          )}
        </Stack>
        <Stack gap={4} style={{ flex: '1 1 14rem' }}>
          <Select aria-label={`Import “${name}” as`} data={TARGET_OPTIONS} value={choice.target} allowDeselect={false} onChange={(v) => v && onChange({ target: v as Target })} />
          {choice.target === 'custom' && (
            <Autocomplete
              aria-label={`Custom field for “${name}”`}
              description={customKeys.includes(choice.key.trim()) ? 'An existing custom field' : 'A new custom field'}
              data={customKeys}
              value={choice.key}
              onChange={(key) => onChange({ key })}
              maxLength={64}
            />
          )}
        </Stack>
      </Group>
    </Paper>
  );
}

function ImportProgress({ progress, finished, ignored }: { progress: { done: number; total: number; totals: ImportTotals }; finished: boolean; ignored: IgnoredColumn[] }) {
  return (
    <Stack gap={4}>
      <Progress value={(100 * progress.done) / progress.total} aria-label="Import progress" animated={!finished} />
      <Text size="sm" role="status">
        {progress.done} of {progress.total} rows · {progress.totals.created} created · {progress.totals.updated} updated · {progress.totals.skipped} skipped · {progress.totals.failed} failed
      </Text>
      {ignored.length > 0 && (
        <Stack gap={2} aria-label="Columns not imported">
          <Text size="sm">Columns not imported:</Text>
          {ignored.map((c, i) => (
            <Text size="xs" c="orange" key={i}>
              {c.column.trim() ? `“${c.column}”: ` : ''}
              {c.reason}
            </Text>
          ))}
        </Stack>
      )}
      {progress.totals.errors.slice(0, 20).map((e) => (
        <Text size="xs" c="red" key={e.row}>
          Row {e.row} ({e.email || 'no e-mail'}): {e.message}
        </Text>
      ))}
    </Stack>
  );
}
