import { Button, Group, Table, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A page's title with its main actions on the right. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Group justify="space-between" wrap="wrap">
      <Title order={2}>{title}</Title>
      {children && <Group>{children}</Group>}
    </Group>
  );
}

/** Cancel and submit, at the foot of every form in a modal. */
export function FormActions({ onCancel, busy, submitLabel }: { onCancel: () => void; busy: boolean; submitLabel: string }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" loading={busy}>
        {submitLabel}
      </Button>
    </Group>
  );
}

/**
 * A labelled table that scrolls sideways on narrow screens instead of squeezing its columns; or,
 * with `stack` (issue 34), lays each row out as a card on a phone, its cells under their
 * column's name (each cell's `data-label`), so nothing scrolls sideways.
 */
export function DataTable({ label, columns, children, stack = false }: { label: string; columns: string[]; children: ReactNode; stack?: boolean }) {
  return (
    <div className={stack ? 'table-scroll table-stack' : 'table-scroll'}>
      <Table striped highlightOnHover verticalSpacing="sm" aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c}>{c}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </div>
  );
}
