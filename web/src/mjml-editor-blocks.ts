/**
 * Issue 33: adding a block without dragging it (the keyboard's way, and the phone's). A section
 * block goes after the selected block's section; a content block after the selected content
 * block, at the end of the selected column, or into the first column of the selected section.
 */
import type { Component, Editor } from 'grapesjs';

export const BLOCK_CHOICES = [
  { value: 'mj-1-column', label: 'Section, 1 column' },
  { value: 'mj-2-columns', label: 'Section, 2 columns' },
  { value: 'mj-3-columns', label: 'Section, 3 columns' },
  { value: 'sw-4-columns', label: 'Section, 4 columns' },
  { value: 'sw-heading', label: 'Heading' },
  { value: 'mj-text', label: 'Text' },
  { value: 'mj-image', label: 'Image' },
  { value: 'mj-button', label: 'Button' },
  { value: 'mj-divider', label: 'Divider' },
  { value: 'mj-spacer', label: 'Spacer' },
  { value: 'mj-social-group', label: 'Social links' },
  { value: 'mj-raw', label: 'Raw HTML' },
];

const closest = (c: Component | undefined, type: string): Component | undefined => {
  let at = c;
  while (at && !at.is(type)) at = at.parent();
  return at;
};

/** Where a content block goes: [parent, index]; undefined when the design has no column yet. */
function contentPlace(editor: Editor, selected: Component | undefined): [Component, number] | undefined {
  const column = closest(selected, 'mj-column');
  if (column && selected && selected !== column) {
    let child = selected;
    while (child.parent() !== column) child = child.parent()!;
    return [column, child.index() + 1];
  }
  if (column) return [column, column.components().length];
  const section = closest(selected, 'mj-section');
  const first = (section ?? editor.getWrapper()!.findType('mj-section').at(-1))?.findType('mj-column')[0];
  return first ? [first, first.components().length] : undefined;
}

export function insertBlock(editor: Editor, id: string): Component | undefined {
  const content = editor.Blocks.get(id)?.get('content');
  if (typeof content !== 'string') return undefined;
  const selected = editor.getSelected();
  let added: Component[];
  if (content.trimStart().startsWith('<mj-section')) {
    const body = editor.getWrapper()!.findType('mj-body')[0]!;
    const section = closest(selected, 'mj-section');
    let at = body.components().length;
    if (section) {
      let child = section;
      while (child.parent() && child.parent() !== body) child = child.parent()!;
      at = child.index() + 1;
    }
    added = body.components().add(content, { at }) as unknown as Component[];
  } else {
    const place = contentPlace(editor, selected);
    if (!place) return insertBlock(editor, 'mj-1-column');
    added = place[0].components().add(content, { at: place[1] }) as unknown as Component[];
  }
  const first = Array.isArray(added) ? added[0] : (added as unknown as Component);
  if (first) {
    editor.select(first);
    if (first.is('mj-image')) editor.runCommand('open-assets', { target: first });
  }
  return first;
}
