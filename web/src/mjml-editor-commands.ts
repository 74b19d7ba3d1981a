/**
 * Issue 33: what the visual MJML editor's named buttons and keys do: the selection moves through the design
 * as a tree, and the selected block moves, is duplicated or deleted; images come from the
 * account's media library.
 */
import type { Component, Editor } from 'grapesjs';

/** Whether keys may land on a component: a block of the body (text nodes and the head are not). */
const isBlock = (c: Component | undefined): c is Component => !!c && c.get('selectable') !== false && c.get('type') !== 'textnode' && !c.is('mjml') && !c.is('wrapper');

/**
 * Moves the selection through the design as a tree: to the previous or next block beside it, out
 * to the block holding it, or into its first block. With nothing selected, the first step lands
 * on the first section (a keyboard's way in).
 */
function stepSelection(editor: Editor, step: 'previous' | 'next' | 'outer' | 'inner'): void {
  const selected = editor.getSelected();
  if (!selected) {
    const first = editor.getWrapper()?.findType('mj-body')[0]?.components().filter(isBlock)[0];
    if (first) editor.select(first);
    return;
  }
  const parent = selected.parent();
  const siblings = parent ? parent.components().filter(isBlock) : [];
  const at = siblings.indexOf(selected);
  const target =
    step === 'previous' ? siblings[at - 1] : step === 'next' ? siblings[at + 1] : step === 'outer' ? (parent && !parent.is('mj-body') ? parent : undefined) : selected.components().filter(isBlock)[0];
  if (isBlock(target)) editor.select(target);
}

/** Moves the selected block one place up or down among its siblings. */
function moveSelected(editor: Editor, by: -1 | 1): void {
  const selected = editor.getSelected();
  const parent = selected?.parent();
  if (!selected || !parent || !selected.get('draggable')) return;
  const at = selected.index() + by;
  if (at < 0 || at >= parent.components().length) return;
  selected.move(parent, { at: by > 0 ? at + 1 : at });
  editor.select(selected);
}

function duplicateSelected(editor: Editor): void {
  const selected = editor.getSelected();
  const parent = selected?.parent();
  if (!selected || !parent || !selected.get('copyable')) return;
  const [copy] = parent.components().add(selected.clone(), { at: selected.index() + 1 }) as unknown as Component[];
  if (copy) editor.select(copy);
}

function deleteSelected(editor: Editor): void {
  const selected = editor.getSelected();
  const parent = selected?.parent();
  if (!selected || !parent || !selected.get('removable')) return;
  const siblings = parent.components();
  const index = selected.index();
  selected.remove();
  editor.select(siblings.at(Math.min(index, siblings.length - 1)) ?? parent);
}

/** The commands the dashboard's buttons and keys run; GrapesJS's own keys (undo, redo) stay. */
export const COMMANDS = {
  moveUp: 'sendwell:move-up',
  moveDown: 'sendwell:move-down',
  duplicate: 'sendwell:duplicate',
  remove: 'sendwell:delete',
  selectPrevious: 'sendwell:select-previous',
  selectNext: 'sendwell:select-next',
  selectParent: 'sendwell:select-outer',
  selectChild: 'sendwell:select-inner',
  undo: 'core:undo',
  redo: 'core:redo',
} as const;

export function addCommands(editor: Editor, hooks: { pickImage: (apply: (src: string, alt: string) => void) => void }): void {
  editor.Commands.add(COMMANDS.moveUp, (ed) => moveSelected(ed, -1));
  editor.Commands.add(COMMANDS.moveDown, (ed) => moveSelected(ed, 1));
  editor.Commands.add(COMMANDS.selectPrevious, (ed) => stepSelection(ed, 'previous'));
  editor.Commands.add(COMMANDS.selectNext, (ed) => stepSelection(ed, 'next'));
  editor.Commands.add(COMMANDS.selectParent, (ed) => stepSelection(ed, 'outer'));
  editor.Commands.add(COMMANDS.selectChild, (ed) => stepSelection(ed, 'inner'));
  editor.Commands.add(COMMANDS.duplicate, (ed) => duplicateSelected(ed));
  editor.Commands.add(COMMANDS.remove, (ed) => deleteSelected(ed));
  // A dropped or double-clicked image asks the account's media library, never GrapesJS's own.
  editor.Commands.add('open-assets', {
    run: (_ed: Editor, _sender: unknown, options: { target?: Component }) => {
      const target = options?.target;
      if (target) hooks.pickImage((src, alt) => {
        // an image's picture is its `src` property (drawn and exported from it), kept in step with the attribute
        target.set('src', src);
        target.addAttributes({ src, alt });
      });
    },
  } as never);
  editor.Keymaps.add('sendwell:move-up', 'alt+up', COMMANDS.moveUp, { prevent: true });
  editor.Keymaps.add('sendwell:move-down', 'alt+down', COMMANDS.moveDown, { prevent: true });
  editor.Keymaps.add('sendwell:duplicate', '⌘+d, ctrl+d', COMMANDS.duplicate, { prevent: true });
  editor.Keymaps.add('sendwell:select-previous', 'alt+left', COMMANDS.selectPrevious, { prevent: true });
  editor.Keymaps.add('sendwell:select-next', 'alt+right', COMMANDS.selectNext, { prevent: true });
  editor.Keymaps.add('sendwell:select-outer', 'alt+pageup', COMMANDS.selectParent, { prevent: true });
  editor.Keymaps.add('sendwell:select-inner', 'alt+pagedown', COMMANDS.selectChild, { prevent: true });
}
