/**
 * Issue 33: the block editor for MJML, GrapesJS with grapesjs-mjml (what Mautic ships), set up
 * for Sendwell. GrapesJS draws none of its own chrome here: its blocks, styles, settings and
 * layers are rendered into the dashboard's panels, and each action also has a named button and a
 * key (MjmlVisualEditor), so the editor can be used without a mouse.
 */
import grapesjs, { type Component, type Editor } from 'grapesjs';
import grapesjsMjmlModule from 'grapesjs-mjml';
import type { MergeTag } from './content-editor.ts';
import { addCommands } from './mjml-editor-commands.ts';
import { nameButtons, nameToolbar } from './mjml-editor-names.ts';
import { addListActions, addMergeTagAction } from './mjml-editor-text.ts';
import { forXmlParser } from './mjml-document.ts';

/** The plugin is a UMD bundle: depending on the bundler, its export may sit under `default`. */
const grapesjsMjml = ((grapesjsMjmlModule as unknown as { default?: typeof grapesjsMjmlModule }).default ?? grapesjsMjmlModule) as typeof grapesjsMjmlModule;

/** Where GrapesJS draws its managers: CSS selectors (it copies its configuration, which loses elements). */
export interface EditorPanels {
  blocks: string;
  styles: string;
  traits: string;
  layers: string;
}

export interface EditorHooks {
  /** An image block asks for its picture: the dashboard's media library answers with src and alt. */
  pickImage: (apply: (src: string, alt: string) => void) => void;
  /** The merge tags the text toolbar offers: the HTML editor's list, with the account's custom fields. */
  mergeTags: () => MergeTag[];
}

/** The blocks offered, in order: grapesjs-mjml's own and the two it lacks (four columns, a heading). */
const PLUGIN_BLOCKS = ['mj-1-column', 'mj-2-columns', 'mj-3-columns', 'mj-text', 'mj-image', 'mj-button', 'mj-divider', 'mj-spacer', 'mj-social-group', 'mj-raw'];

/** A grey box until an image is picked: inline, so an unpicked image never loads from elsewhere. */
const IMAGE_PLACEHOLDER = `data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300" fill="#e5e7eb"/><text x="300" y="160" font-family="Arial" font-size="24" text-anchor="middle" fill="#6b7280">Image</text></svg>')}`;

/**
 * Each block is drawn by compiling a one-element document, which knows nothing of the source's
 * `<mj-head>`: its mj-attributes (the fonts, colours and button style a starter sets once) would
 * be missing from the canvas. The styling part of the head goes into every such document, so the
 * canvas shows the message as it will look.
 */
function headInCanvas(editor: Editor): void {
  for (const type of editor.Components.getTypes()) {
    const proto = type.view?.prototype as { getMjmlTemplate?: () => { start: string; end: string }; headInCanvas?: boolean } | undefined;
    if (!proto?.getMjmlTemplate || Object.prototype.hasOwnProperty.call(proto, 'headInCanvas')) continue;
    const template = proto.getMjmlTemplate;
    proto.headInCanvas = true;
    proto.getMjmlTemplate = function (this: unknown) {
      const { start, end } = template.call(this);
      return { start: /<mj-head[\s>]/.test(start) ? start : start.replace(/^\s*<mjml([^>]*)>/, (open) => `${open}${stylingHead(editor)}`), end };
    };
  }
}

/**
 * The parts of the head that style the body (default attributes, classes, fonts), without the
 * title and the preview text: the preview is a hidden element at the top of the body, where
 * grapesjs-mjml looks for the block it compiled.
 */
function stylingHead(editor: Editor): string {
  const head = editor.getWrapper()?.findType('mj-head')[0];
  if (!head) return '';
  const parts = head.components().filter((part: Component) => ['mj-attributes', 'mj-style', 'mj-font', 'mj-breakpoint'].includes(String(part.get('tagName'))));
  return `<mj-head>${parts.map((part: Component) => part.toHTML()).join('')}</mj-head>`;
}

/**
 * grapesjs-mjml leaves out of its export every attribute equal to the element's MJML default, which
 * is right until `<mj-attributes>` sets another default: then an attribute written to restore the
 * MJML default (announcement's `font-size="13px"`) would vanish and the text would change size.
 * Attributes the source wrote are kept in the export whatever their value.
 */
function keepExplicitAttributes(editor: Editor): void {
  for (const type of editor.Components.getTypes()) {
    if (!type.id.startsWith('mj')) continue;
    const proto = type.model.prototype as {
      initialize: (...args: unknown[]) => void;
      getAttrToHTML?: () => Record<string, unknown>;
      get: (key: string) => unknown;
    };
    if (!proto.getAttrToHTML) continue;
    const initialize = proto.initialize;
    const toHtml = proto.getAttrToHTML;
    const forCanvas = (proto as { getMjmlAttributes?: () => Record<string, unknown> }).getMjmlAttributes;
    // The canvas draws each block from the same attributes the export writes, so the head's
    // mj-attributes apply there as in the message (not the plugin's own defaults, e.g. grey buttons).
    if (forCanvas)
      (proto as { getMjmlAttributes?: () => Record<string, unknown> }).getMjmlAttributes = function (this: typeof proto) {
        const all = forCanvas.call(this);
        const written = (this as unknown as { getAttrToHTML: () => Record<string, unknown> }).getAttrToHTML();
        return 'src' in all ? { ...written, src: all.src } : written;
      };
    proto.initialize = function (this: typeof proto & { explicitAttributes?: string[] }, props: unknown, ...rest: unknown[]) {
      const attributes = (props as { attributes?: Record<string, unknown> } | undefined)?.attributes;
      this.explicitAttributes = Object.keys(attributes ?? {});
      initialize.call(this, props, ...rest);
    };
    proto.getAttrToHTML = function (this: typeof proto & { explicitAttributes?: string[] }) {
      const kept = toHtml.call(this);
      const attributes = (this.get('attributes') ?? {}) as Record<string, unknown>;
      for (const key of this.explicitAttributes ?? []) if (!(key in kept) && key in attributes && key !== 'id' && key !== 'style') kept[key] = attributes[key];
      return kept;
    };
  }
}

/** A layout's slot (the raw block holding `{{ content }}`) can move but not be deleted or copied. */
function lockSlot(editor: Editor): void {
  for (const raw of editor.getWrapper()?.findType('mj-raw') ?? []) {
    if (/^\s*\{\{ content \}\}\s*$/.test(raw.getInnerHTML())) raw.set({ removable: false, copyable: false, editable: false });
  }
}

/** The head and what it holds can be neither selected nor moved: it has no place on the canvas. */
function lockHead(editor: Editor): void {
  const head = editor.getWrapper()?.findType('mj-head')[0];
  if (!head) return;
  for (const part of [head, ...head.find('*')]) part.set({ selectable: false, hoverable: false, layerable: false, draggable: false, droppable: false, removable: false, copyable: false, editable: false });
}

function addBlocks(editor: Editor): void {
  const category = editor.I18n.t('grapesjs-mjml.category');
  // the plugin's tiles named as the "Block to add" list names them
  editor.Blocks.get('mj-social-group')?.set('label', 'Social links');
  editor.Blocks.get('mj-raw')?.set('label', 'Raw HTML');
  editor.Blocks.add('sw-heading', {
    label: 'Heading',
    category,
    select: true,
    media: '<svg viewBox="0 0 24 24"><path fill="currentColor" d="M5 4v3h5.5v12h3V7H19V4z"/></svg>',
    content: '<mj-text font-size="24px" font-weight="bold" line-height="1.3">Your heading</mj-text>',
  });
  editor.Blocks.add('sw-4-columns', {
    label: '4 Columns',
    category,
    select: true,
    media: '<svg viewBox="0 0 24 24"><path fill="currentColor" d="M1 4h4v16H1zm6 0h4v16H7zm6 0h4v16h-4zm6 0h4v16h-4z"/></svg>',
    content: `<mj-section>${[1, 2, 3, 4].map((n) => `<mj-column><mj-text>Content ${n}</mj-text></mj-column>`).join('')}</mj-section>`,
  });
}

export function createMjmlEditor(container: HTMLElement, panels: EditorPanels, mjml: string, hooks: EditorHooks): Editor {
  const editor: Editor = grapesjs.init({
    container,
    height: '100%',
    width: 'auto',
    fromElement: false,
    storageManager: false,
    // Loaded with the editor, so opening is not a step that undo could take back.
    components: forXmlParser(mjml),
    // GrapesJS's icon font comes from a CDN and it reports usage to its makers by default: the
    // dashboard loads nothing from elsewhere and tells no one what a marketer edits.
    cssIcons: '',
    telemetry: false,
    // Selecting is no change: undo steps back through edits only, and an untouched design is
    // known by an empty undo history (it is then kept byte for byte).
    undoManager: { trackSelection: false },
    // The head (title, preview text, default attributes) is no part of the message's picture.
    protectedCss: '* { box-sizing: border-box; } body { margin: 0; } mj-head { display: none !important; }',
    panels: { defaults: [] },
    blockManager: { appendTo: panels.blocks },
    styleManager: { appendTo: panels.styles },
    traitManager: { appendTo: panels.traits },
    layerManager: { appendTo: panels.layers },
    deviceManager: {
      devices: [
        { id: 'desktop', name: 'Desktop', width: '' },
        { id: 'phone', name: 'Phone', width: '320px', widthMedia: '480px' },
      ],
    },
    // Scripts and on* attributes in content are dropped when parsed, and the page's policy forbids
    // inline script anyway: nothing in a campaign runs inside the editor.
    parser: { optionsHtml: { allowScripts: false, allowUnsafeAttr: false } },
    plugins: [
      (ed: Editor) =>
        grapesjsMjml(ed, {
          blocks: PLUGIN_BLOCKS,
          imagePlaceholderSrc: IMAGE_PLACEHOLDER,
          resetDevices: false,
          useCustomTheme: false,
          useXmlParser: true,
          // MJML links Google Fonts for its default font (Ubuntu) unless told which web fonts
          // exist: naming one no design uses means the canvas asks no other host for a font.
          fonts: { 'sendwell-no-web-font': 'data:text/css,' },
        }),
      keepExplicitAttributes,
      headInCanvas,
    ],
  });
  lockHead(editor);
  lockSlot(editor);
  editor.UndoManager.clear();
  addCommands(editor, hooks);
  addBlocks(editor);
  addListActions(editor);
  addMergeTagAction(editor, hooks.mergeTags);
  // The floating toolbar is drawn anew for each selection, after it: titled first, then named.
  editor.on('component:toggled', () => nameToolbar(editor.getSelected()));
  editor.on('canvas:tools:update', () => nameButtons(container));
  return editor;
}

/** The editor's document as MJML, as grapesjs-mjml writes it (one line). */
export function exportMjml(editor: Editor): string {
  return editor.getHtml();
}

/**
 * The HTML grapesjs-mjml's own compiler (mjml-browser, bundled in the plugin) makes of a document,
 * or its first error with the line. Only for the editor's own checks: what is stored and previewed
 * is compiled by the server (D22).
 */
export function compileInBrowser(editor: Editor, mjml: string): { html: string } | { error: string } {
  try {
    const result = editor.runCommand('mjml-code-to-html', { mjml, validationLevel: 'strict' }) as { html: string; errors?: Array<{ line: number; message: string }> };
    const first = result.errors?.[0];
    return first ? { error: `line ${first.line}: ${first.message}` } : { html: result.html };
  } catch (err) {
    const first = (err as { errors?: Array<{ line: number; message: string }> }).errors?.[0];
    return { error: first ? `line ${first.line}: ${first.message}` : String((err as Error).message ?? err) };
  }
}

export type { Editor };
export { COMMANDS } from './mjml-editor-commands.ts';
export { nameButtons } from './mjml-editor-names.ts';
