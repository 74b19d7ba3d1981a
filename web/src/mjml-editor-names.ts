/**
 * Issue 33: names for what GrapesJS draws without one (its block tiles, floating toolbar, text toolbar and
 * canvas frame), so a screen reader announces them and the keyboard reaches them.
 */
import type { Component, Editor } from 'grapesjs';

/** GrapesJS's floating toolbar draws bare icons: each action is named by the command it runs. */
const TOOLBAR_NAMES: Record<string, string> = {
  'core:component-exit': 'Select outer block',
  'select-parent': 'Select outer block',
  'tlb-move': 'Drag to move',
  'tlb-clone': 'Duplicate',
  'tlb-delete': 'Delete',
};

/**
 * Titles the selected block's floating toolbar actions, for nameButtons to take as their names.
 * GrapesJS draws that toolbar a moment after the selection, from these items, and gives its one
 * action written as a function (not a command's name) to its "select the parent" arrow.
 */
export function nameToolbar(component: Component | undefined): void {
  for (const item of (component?.get('toolbar') ?? []) as Array<{ command?: unknown; attributes?: Record<string, unknown> }>) {
    const name = typeof item.command === 'string' ? TOOLBAR_NAMES[item.command] : typeof item.command === 'function' ? TOOLBAR_NAMES['core:component-exit'] : undefined;
    // changed in place: setting the property would be an undo step, and selecting is no change
    if (name && !item.attributes?.title) item.attributes = { ...item.attributes, title: name };
  }
}

/**
 * GrapesJS draws its toolbars' actions as spans with a title: a screen reader announces nothing
 * and the keyboard cannot reach them. Each gets the button role, its title as its name, and a
 * tab stop; Enter and Space press it. The canvas frame gets a title, its name when announced.
 */
export function nameButtons(root: ParentNode): void {
  root.querySelectorAll<HTMLIFrameElement>('iframe.gjs-frame:not([title])').forEach((frame) => frame.setAttribute('title', 'Email canvas'));
  root.querySelectorAll<HTMLElement>('.gjs-rte-action, .gjs-toolbar-item, .gjs-block').forEach((el) => {
    // an action holding a control (the merge tag list) is that control, already named
    if (el.getAttribute('role') === 'button' || el.querySelector('select, input')) return;
    const name = el.getAttribute('title') || el.getAttribute('data-tooltip') || el.textContent?.trim() || '';
    el.setAttribute('role', 'button');
    el.setAttribute('tabindex', '0');
    if (name) el.setAttribute('aria-label', name);
    el.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        el.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
        el.click();
      }
    });
  });
}
