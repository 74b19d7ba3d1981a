import { Select } from '@mantine/core';
import type { ReactNode } from 'react';
import { zoneChoices } from '../format.ts';

/** Issue 34: the one time zone picker (Settings, the schedule picker, D23's send window): IANA names, searchable. */
export function TimeZoneSelect({ label = 'Time zone', description, value, onChange }: { label?: string; description?: ReactNode; value: string; onChange: (zone: string) => void }) {
  return (
    <Select
      label={label}
      description={description}
      searchable
      data={zoneChoices(value)}
      value={value}
      allowDeselect={false}
      maxDropdownHeight={280}
      comboboxProps={{ withinPortal: true }}
      onChange={(zone) => zone && onChange(zone)}
    />
  );
}
