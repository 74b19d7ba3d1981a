import { Button, Menu } from '@mantine/core';
import { segments } from '../api.ts';
import { mergeTags, type MergeTag } from '../content-editor.ts';
import { useLoad } from '../hooks.ts';

/** The account's custom field keys, as the segment builder and forms know them. */
const customFieldKeys = async () => (await segments.fields()).custom_fields.map((f) => f.key);

/** D22: a menu of Liquid merge tags: contact fields, the account's custom fields, a workflow's event data (`eventKeys`) and the message's links. */
export function MergeTagPicker({ onPick, eventKeys }: { onPick: (tag: MergeTag) => void; eventKeys?: string[] }) {
  const keys = useLoad(customFieldKeys, []);
  const tags = mergeTags(keys.data ?? [], eventKeys);
  const groups = [...new Set(tags.map((t) => t.group))];
  return (
    <Menu shadow="md" position="bottom-start" withinPortal>
      <Menu.Target>
        <Button size="compact-sm" variant="default">
          Merge tag
        </Button>
      </Menu.Target>
      <Menu.Dropdown mah={360} style={{ overflowY: 'auto' }}>
        {groups.map((group) => (
          <div key={group}>
            <Menu.Label>{group}</Menu.Label>
            {tags
              .filter((t) => t.group === group)
              .map((t) => (
                <Menu.Item key={t.expression} onClick={() => onPick(t)}>
                  {t.label}
                </Menu.Item>
              ))}
          </div>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
