import { mergeAttributes, Node, type Extensions } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import StarterKit from '@tiptap/starter-kit';
import { BUTTON_STYLE, BUTTON_WRAPPER_STYLE, safeHref } from '../content-editor.ts';

declare module '@tiptap/core' {
  interface Commands<ReturnType> {
    button: { insertButton: (attrs: { href: string; label: string }) => ReturnType };
  }
}

/**
 * D22: the button block: a link styled inline as a button, in a centred paragraph marked
 * data-button, so the editor reads back exactly what it wrote.
 */
export const EmailButton = Node.create({
  name: 'button',
  group: 'block',
  atom: true,
  addAttributes() {
    return { href: { default: '' }, label: { default: 'Button' } };
  },
  parseHTML() {
    return [
      {
        tag: 'p[data-button]',
        // before the paragraph's own rule, which would read it as a paragraph holding a link
        priority: 1000,
        getAttrs: (el) => {
          const link = (el as HTMLElement).querySelector('a');
          return link ? { href: safeHref(link.getAttribute('href') ?? ''), label: link.textContent ?? '' } : false;
        },
      },
    ];
  },
  renderHTML({ node }) {
    return ['p', { 'data-button': '', style: BUTTON_WRAPPER_STYLE }, ['a', { href: safeHref(node.attrs.href), style: BUTTON_STYLE }, node.attrs.label]];
  },
  addCommands() {
    // A paragraph follows, so typing (or the next block) goes after the button instead of replacing it.
    return { insertButton: (attrs) => ({ commands }) => commands.insertContent([{ type: this.name, attrs }, { type: 'paragraph' }]) };
  },
});

/** Images keep an inline style (the editor's own scales with the screen) and their alt text. */
const EmailImage = Image.extend({
  addAttributes() {
    return { ...this.parent?.(), style: { default: null } };
  },
  renderHTML({ HTMLAttributes }) {
    return ['img', mergeAttributes(HTMLAttributes)];
  },
});

/**
 * The editor's schema: simple tags every mail client shows. Links keep no target/rel of the
 * editor's own (so content reads back the same) and take Liquid hrefs such as
 * `{{ unsubscribe_url }}`; Link refuses javascript: URLs. No trailing empty paragraph is added,
 * which would change content on every open.
 */
export const editorExtensions: Extensions = [
  StarterKit.configure({
    trailingNode: false,
    link: { openOnClick: false, autolink: false, HTMLAttributes: { target: null, rel: null, class: null } },
  }),
  EmailImage,
  EmailButton,
];
