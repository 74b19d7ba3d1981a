import { Alert, Button, Group, Modal, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { RichTextEditor } from '@mantine/tiptap';
import '@mantine/tiptap/styles.css';
import { generateHTML, generateJSON } from '@tiptap/core';
import { useEditor } from '@tiptap/react';
import { useMemo, useRef, useState } from 'react';
import { IMAGE_STYLE, isLossless, liquid, type ContentFormat, type MergeTag } from '../content-editor.ts';
import { editorExtensions } from './editor-extensions.ts';
import { MediaLibrary } from './MediaLibrary.tsx';
import { MergeTagPicker } from './MergeTagPicker.tsx';
import { MjmlDesignButton } from './MjmlDesignButton.tsx';

const FORMAT_NAMES: Record<ContentFormat, string> = { html: 'HTML', mjml: 'MJML', markdown: 'Markdown' };

/** What the editor makes of `html`: read into its schema (from an inert parsed document) and written back. */
function throughEditor(html: string): string {
  return generateHTML(generateJSON(html, editorExtensions), editorExtensions);
}

/** True when the visual editor can hold the HTML without changing it (D22: else it opens as source). */
function fitsEditor(html: string): boolean {
  try {
    return isLossless(html, throughEditor(html));
  } catch {
    return false;
  }
}

/** How a merge tag goes into source text: links as links in HTML and Markdown, the rest as the tag alone. */
function sourceSnippet(tag: MergeTag, format: ContentFormat): string {
  if (!tag.link) return liquid(tag.expression);
  if (format === 'markdown') return `[${tag.label}](${liquid(tag.expression)})`;
  return `<a href="${liquid(tag.expression)}">${tag.label}</a>`;
}

/**
 * D22: the campaign's content. HTML opens in the visual editor (Tiptap, through @mantine/tiptap)
 * when the editor can hold it unchanged, else in source mode with a notice; MJML is source with
 * "Edit visually", the block editor (issue 33), and Markdown is source only. Scripts never run here: the visual editor's schema has no place for script, event
 * attributes or javascript: links, and source mode is a plain textarea.
 */
export function ContentEditor({
  value,
  onChange,
  format,
  title = 'Design',
  onSave,
  eventKeys,
}: {
  value: string;
  onChange: (html: string) => void;
  format: ContentFormat;
  title?: string;
  onSave?: (source: string) => Promise<string | null>;
  /** a workflow step's: the keys of its triggering event's data, offered as merge tags (issue 34) */
  eventKeys?: string[];
}) {
  const opensVisual = useMemo(() => format === 'html' && fitsEditor(value), []); // eslint-disable-line react-hooks/exhaustive-deps
  const [mode, setMode] = useState<'visual' | 'source'>(opensVisual ? 'visual' : 'source');
  const [notice, setNotice] = useState<string | null>(format === 'html' && !opensVisual ? 'This HTML has parts the visual editor cannot keep (tables, styles, a full document or unknown attributes), so it opens as source and stays exactly as written.' : null);
  const [library, setLibrary] = useState(false);
  const [buttonForm, setButtonForm] = useState<{ label: string; href: string } | null>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const visual = format === 'html' && mode === 'visual';

  const editor = useEditor({
    extensions: editorExtensions,
    content: opensVisual ? value : '',
    immediatelyRender: true,
    editorProps: { attributes: { 'aria-label': 'Visual editor' } },
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? '' : e.getHTML()),
  });

  const switchMode = (next: string) => {
    if (next === 'visual') {
      if (!fitsEditor(value)) {
        setNotice('The visual editor cannot keep everything in this HTML (tables, styles, a full document or unknown attributes): it stays in source mode so nothing is lost.');
        return;
      }
      editor?.commands.setContent(value, { emitUpdate: false });
    }
    setNotice(null);
    setMode(next as 'visual' | 'source');
  };

  /** Inserts a merge tag where the cursor is: in the editor (a link for URLs), or in the source text. */
  const insertTag = (tag: MergeTag) => {
    if (visual && editor) {
      const chain = editor.chain().focus();
      if (!tag.link) chain.insertContent(liquid(tag.expression)).run();
      else if (editor.state.selection.empty) chain.insertContent({ type: 'text', text: tag.label, marks: [{ type: 'link', attrs: { href: liquid(tag.expression) } }] }).run();
      else chain.setLink({ href: liquid(tag.expression) }).run();
      return;
    }
    const el = textarea.current;
    const snippet = sourceSnippet(tag, format);
    const at = el ? el.selectionStart : value.length;
    const end = el ? el.selectionEnd : value.length;
    onChange(value.slice(0, at) + snippet + value.slice(end));
  };

  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {FORMAT_NAMES[format]} content
        </Text>
        <Group gap="xs">
          <MergeTagPicker onPick={insertTag} eventKeys={eventKeys} />
          {format === 'html' && <SegmentedControl size="xs" value={mode} onChange={switchMode} data={[{ value: 'visual', label: 'Visual' }, { value: 'source', label: 'Source' }]} />}
        </Group>
      </Group>
      {format === 'mjml' && <MjmlDesignButton source={value} title={title} onChange={onChange} onSave={onSave} />}
      {notice && (
        <Alert color="yellow" variant="light" p="xs">
          <Text size="sm">{notice}</Text>
        </Alert>
      )}
      {visual ? (
        <RichTextEditor editor={editor} className="content-editor">
          <RichTextEditor.Toolbar>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.H1 />
              <RichTextEditor.H2 />
              <RichTextEditor.H3 />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Bold />
              <RichTextEditor.Italic />
              <RichTextEditor.Underline />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.BulletList />
              <RichTextEditor.OrderedList />
              <RichTextEditor.Hr />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Link />
              <RichTextEditor.Unlink />
            </RichTextEditor.ControlsGroup>
            <Button size="compact-sm" variant="default" onClick={() => setLibrary(true)}>
              Image
            </Button>
            <Button size="compact-sm" variant="default" onClick={() => setButtonForm({ label: '', href: 'https://' })}>
              Button
            </Button>
          </RichTextEditor.Toolbar>
          <RichTextEditor.Content />
        </RichTextEditor>
      ) : (
        <Textarea ref={textarea} aria-label={`${FORMAT_NAMES[format]} content`} className="mono" autosize minRows={10} maxRows={24} value={value} onChange={(e) => onChange(e.currentTarget.value)} />
      )}
      {format === 'html' && (
        <Group>
          <Button size="compact-xs" variant="subtle" onClick={() => setLibrary(true)}>
            Media library
          </Button>
        </Group>
      )}
      <MediaLibrary
        opened={library}
        onClose={() => setLibrary(false)}
        onPick={
          visual
            ? (image, alt) => {
                editor?.chain().focus().setImage({ src: image.url, alt }).updateAttributes('image', { style: IMAGE_STYLE, width: image.width, height: image.height }).run();
              }
            : undefined
        }
      />
      <Modal opened={buttonForm !== null} onClose={() => setButtonForm(null)} title="Insert a button">
        {buttonForm && (
          <Stack>
            <TextInput label="Button text" value={buttonForm.label} onChange={(e) => setButtonForm({ ...buttonForm, label: e.currentTarget.value })} data-autofocus />
            <TextInput label="Link" description="A web address, or a merge tag such as {{ webview_url }}" value={buttonForm.href} onChange={(e) => setButtonForm({ ...buttonForm, href: e.currentTarget.value })} />
            <Group justify="flex-end">
              <Button
                disabled={!buttonForm.label.trim() || !buttonForm.href.trim()}
                onClick={() => {
                  editor?.chain().focus().insertButton({ label: buttonForm.label.trim(), href: buttonForm.href.trim() }).run();
                  setButtonForm(null);
                }}
              >
                Insert button
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
