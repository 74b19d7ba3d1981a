/**
 * Issue 33: the visual MJML editor's inline text toolbar: GrapesJS's bold, italic, underline, strike and
 * link, with lists and merge tags added.
 */
import type { Editor } from 'grapesjs';
import { liquid, type MergeTag } from './content-editor.ts';

/** Lists in the inline text toolbar, beside GrapesJS's bold, italic, underline, strike and link. */
export function addListActions(editor: Editor): void {
  editor.RichTextEditor.add('ul', { icon: '• List', attributes: { title: 'Bulleted list' }, result: (rte) => rte.exec('insertUnorderedList') });
  editor.RichTextEditor.add('ol', { icon: '1. List', attributes: { title: 'Numbered list' }, result: (rte) => rte.exec('insertOrderedList') });
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Merge tags in the inline text toolbar, where the cursor is: a control outside the canvas would
 * end the text editing (and lose the cursor) before a tag could go in. The list is the HTML
 * editor's (content-editor.ts): contact and custom fields as Liquid, links as links.
 */
export function addMergeTagAction(editor: Editor, tags: () => MergeTag[]): void {
  const fill = (select: HTMLSelectElement) => {
    const list = tags();
    if (select.options.length === list.length + 1) return;
    const groups = [...new Set(list.map((t) => t.group))];
    select.innerHTML =
      '<option value="">Merge tag…</option>' +
      groups.map((g) => `<optgroup label="${escapeHtml(g)}">${list.filter((t) => t.group === g).map((t) => `<option value="${escapeHtml(t.expression)}">${escapeHtml(t.label)}</option>`).join('')}</optgroup>`).join('');
  };
  editor.RichTextEditor.add('merge-tag', {
    icon: '<select aria-label="Insert a merge tag" class="mjml-merge-tag"><option value="">Merge tag…</option></select>',
    attributes: { title: 'Insert a merge tag' },
    event: 'change',
    result: (rte, action) => {
      const select = (action as unknown as { btn: HTMLElement }).btn.querySelector('select')!;
      const tag = tags().find((t) => t.expression === select.value);
      select.value = '';
      if (tag) rte.insertHTML(tag.link ? `<a href="${liquid(tag.expression)}">${escapeHtml(tag.label)}</a>` : liquid(tag.expression));
    },
    update: (_rte, action) => {
      const select = (action as unknown as { btn: HTMLElement }).btn.querySelector('select');
      if (select) fill(select);
      return 0; // a list, never shown as pressed
    },
  });
}
