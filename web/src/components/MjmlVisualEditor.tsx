import { Button, Group, Modal, SegmentedControl, Select, Stack, Text, Textarea } from '@mantine/core';
import 'grapesjs/dist/css/grapes.min.css';
import { useEffect, useId, useRef, useState } from 'react';
import { mergeTags } from '../content-editor.ts';
import { segments } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { sameHtml } from '../html-equivalence.ts';
import { fromEditorDocument, toEditorDocument, type SourceShape } from '../mjml-document.ts';
import { BLOCK_CHOICES, insertBlock } from '../mjml-editor-blocks.ts';
import { COMMANDS, compileInBrowser, createMjmlEditor, exportMjml, nameButtons, type Editor } from '../mjml-editor-setup.ts';
import { MediaLibrary } from './MediaLibrary.tsx';
import { DesignNotice } from './DesignNotice.tsx';

type Mode = 'visual' | 'source';
type Panel = 'blocks' | 'styles' | 'traits' | 'layers';
const PANELS: Array<{ value: Panel; label: string }> = [
  { value: 'blocks', label: 'Blocks' },
  { value: 'styles', label: 'Style' },
  { value: 'traits', label: 'Settings' },
  { value: 'layers', label: 'Layers' },
];
type Device = 'Desktop' | 'Phone';

interface Props {
  source: string;
  title: string;
  onClose: () => void;
  /** The design as MJML, when it changed (Done, Close, Save, or a switch to source). */
  onChange: (source: string) => void;
  /** Saves the campaign or template with this source (the dialog stays open): the error's words, or null. */
  onSave?: (source: string) => Promise<string | null>;
  /** The source cannot be kept by the editor: it goes back to source mode with this notice. */
  onUnfit: (notice: string) => void;
}

/** Issue 33: the visual MJML editor, full screen. Loaded on its own (React.lazy) by ContentEditor. */
export default function MjmlVisualEditor({ source, title, onClose, onChange, onSave, onUnfit }: Props) {
  // The dialog mounts its content a frame after it opens: the editor starts once the canvas exists.
  const [canvas, setCanvas] = useState<HTMLDivElement | null>(null);
  // GrapesJS copies its configuration, which loses elements: its panels are found by id.
  const uid = useId().replace(/[^a-zA-Z0-9-]/g, '');
  const panels = { blocks: `mjml-blocks-${uid}`, styles: `mjml-styles-${uid}`, traits: `mjml-traits-${uid}`, layers: `mjml-layers-${uid}` };
  const selectors = { blocks: `#${panels.blocks}`, styles: `#${panels.styles}`, traits: `#${panels.traits}`, layers: `#${panels.layers}` };
  const editorRef = useRef<Editor | null>(null);
  const shape = useRef<SourceShape>({ fragment: false, slot: false });
  const [current, setCurrent] = useState(source);
  const [mode, setMode] = useState<Mode>('visual');
  const [device, setDevice] = useState<Device>(() => (window.innerWidth < 700 ? 'Phone' : 'Desktop'));
  const [block, setBlock] = useState<string | null>('mj-button');
  const [notice, setNotice] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [panel, setPanel] = useState<Panel>('blocks');
  // The account's custom fields, for the merge tags of the text toolbar (read when it opens).
  const customKeys = useRef<string[]>([]);
  useLoad(async () => {
    customKeys.current = (await segments.fields()).custom_fields.map((f) => f.key);
  }, []);
  const [pick, setPick] = useState<((src: string, alt: string) => void) | null>(null);

  /** Loads `mjml` into a new editor; the reason when it cannot be kept, else null. */
  const open = (mjml: string): string | null => {
    const opened = toEditorDocument(mjml);
    if (!opened) return 'This MJML places the layout slot inside a raw block, which the visual editor would change.';
    editorRef.current?.destroy();
    const editor = createMjmlEditor(canvas!, selectors, opened.document, {
      pickImage: (apply) => setPick(() => apply),
      mergeTags: () => mergeTags(customKeys.current),
    });
    editorRef.current = editor;
    shape.current = opened.shape;
    const before = compileInBrowser(editor, opened.document);
    if ('error' in before) {
      editor.destroy();
      editorRef.current = null;
      return `The MJML has an error on ${before.error}. Fix it in source mode first.`;
    }
    // No silent rewrite: what the editor would write back must compile to the same message.
    const after = compileInBrowser(editor, exportMjml(editor));
    if (!('html' in after) || !sameHtml(before.html, after.html)) {
      editor.destroy();
      editorRef.current = null;
      return 'This MJML has parts the visual editor cannot keep exactly (it would change how the message looks), so it stays in source mode, exactly as written.';
    }
    editor.setDevice(device);
    // Said aloud on each change: which block the keys will act on.
    editor.on('component:toggled', () => setSelected(editor.getSelected()?.getName() ?? null));
    editor.on('component:toggled rte:enable load', () => nameButtons(document));
    nameButtons(document);
    return null;
  };

  useEffect(() => {
    if (!canvas) return;
    const reason = open(source);
    if (reason) onUnfit(reason);
    return () => {
      editorRef.current?.destroy();
      editorRef.current = null;
    };
  }, [canvas]); // eslint-disable-line react-hooks/exhaustive-deps

  /** The design as source: the original text when nothing was changed, else the editor's MJML. */
  const sourceNow = (): string => {
    const editor = editorRef.current;
    if (!editor || mode === 'source') return current;
    (editor.getEditing()?.getView() as { disableEditing?: () => void } | undefined)?.disableEditing?.();
    if (!editor.UndoManager.hasUndo()) return current;
    return fromEditorDocument(exportMjml(editor), shape.current);
  };

  const apply = (): string => {
    const next = sourceNow();
    if (next !== source) onChange(next);
    return next;
  };

  const switchMode = (next: Mode) => {
    if (next === mode) return;
    if (next === 'source') {
      setCurrent(sourceNow());
      editorRef.current?.UndoManager.clear();
      setMode('source');
      return;
    }
    setNotice(null);
    setMode('visual');
    // the canvas is shown again before the editor reloads into it
    requestAnimationFrame(() => {
      const unfit = open(current);
      if (unfit) {
        setNotice(unfit);
        setMode('source');
      }
    });
  };

  const run = (command: string) => {
    editorRef.current?.runCommand(command);
    editorRef.current?.getSelected()?.getEl()?.scrollIntoView({ block: 'nearest' });
  };

  const save = async () => {
    if (!onSave) return;
    setSaving(true);
    const next = apply();
    const error = await onSave(next);
    setSaving(false);
    setNotice(error ? `Not saved: ${error}` : 'Saved.');
    if (!error) setCurrent(next);
  };

  return (
    <Modal
      opened
      fullScreen
      onClose={() => {
        // Escape while a text is being edited ends that editing, not the whole design
        const editing = editorRef.current?.getEditing();
        if (editing) return (editing.getView() as { disableEditing?: () => void } | undefined)?.disableEditing?.();
        apply();
        onClose();
      }}
      title={title}
      closeButtonProps={{ 'aria-label': 'Close the visual editor' }}
      classNames={{ body: 'mjml-editor-body' }}
    >
      <Stack gap="xs" h="100%">
        <Group gap={6} wrap="wrap" role="toolbar" aria-label="Design tools">
          <SegmentedControl size="xs" aria-label="Editing mode" value={mode} onChange={(v) => switchMode(v as Mode)} data={[{ value: 'visual', label: 'Visual' }, { value: 'source', label: 'MJML source' }]} />
          {mode === 'visual' && (
            <>
              <SegmentedControl
                size="xs"
                aria-label="Canvas width"
                value={device}
                onChange={(v) => {
                  setDevice(v as Device);
                  editorRef.current?.setDevice(v);
                }}
                data={['Desktop', 'Phone']}
              />
              <ToolButton label="Undo" keys="Ctrl+Z" onClick={() => run(COMMANDS.undo)} />
              <ToolButton label="Redo" keys="Ctrl+Shift+Z" onClick={() => run(COMMANDS.redo)} />
              <ToolButton label="Previous block" keys="Alt+←" onClick={() => run(COMMANDS.selectPrevious)} />
              <ToolButton label="Next block" keys="Alt+→" onClick={() => run(COMMANDS.selectNext)} />
              <ToolButton label="Outer block" keys="Alt+Page Up" onClick={() => run(COMMANDS.selectParent)} />
              <ToolButton label="Inner block" keys="Alt+Page Down" onClick={() => run(COMMANDS.selectChild)} />
              <ToolButton label="Move up" keys="Alt+↑" onClick={() => run(COMMANDS.moveUp)} />
              <ToolButton label="Move down" keys="Alt+↓" onClick={() => run(COMMANDS.moveDown)} />
              <ToolButton label="Duplicate" keys="Ctrl+D" onClick={() => run(COMMANDS.duplicate)} />
              <ToolButton label="Delete block" keys="Delete" onClick={() => run(COMMANDS.remove)} />
              <Group gap={4} wrap="nowrap">
                <Select size="xs" w={150} aria-label="Block to add" data={BLOCK_CHOICES} value={block} onChange={setBlock} allowDeselect={false} />
                <ToolButton label="Add block" onClick={() => editorRef.current && block && insertBlock(editorRef.current, block)} />
              </Group>
              <Text size="xs" c="dimmed" aria-live="polite" aria-label="Selected block">
                {selected ? `Selected: ${selected}` : 'No block selected'}
              </Text>
            </>
          )}
          <Group gap="xs" ml="auto">
            {onSave && (
              <Button size="xs" loading={saving} onClick={() => void save()}>
                Save
              </Button>
            )}
            <Button
              size="xs"
              variant="default"
              onClick={() => {
                apply();
                onClose();
              }}
            >
              Done
            </Button>
          </Group>
        </Group>
        <DesignNotice notice={notice} />
        {mode === 'source' && <Textarea aria-label="MJML source" className="mono" autosize minRows={20} value={current} onChange={(e) => setCurrent(e.currentTarget.value)} spellCheck={false} />}
        <div className="mjml-editor" hidden={mode === 'source'}>
          <div className="mjml-editor-canvas" ref={setCanvas} aria-label="Email canvas" />
          {/* Plain panels, always in the page: GrapesJS draws its managers into them once, by id. */}
          <div className="mjml-editor-panels">
            <SegmentedControl fullWidth size="xs" aria-label="Panel" value={panel} onChange={(v) => setPanel(v as Panel)} data={PANELS} />
            {PANELS.map(({ value }) => (
              <div key={value} id={panels[value]} hidden={panel !== value} />
            ))}
          </div>
        </div>
      </Stack>
      <MediaLibrary
        opened={pick !== null}
        onClose={() => setPick(null)}
        onPick={(image, alt) => {
          pick?.(image.url, alt);
          setPick(null);
        }}
      />
    </Modal>
  );
}

/** A tool with its name on it, and its key in the tooltip and in aria-keyshortcuts. */
function ToolButton({ label, keys, onClick }: { label: string; keys?: string; onClick: () => void }) {
  return (
    <Button size="compact-xs" variant="default" onClick={onClick} title={keys ? `${label} (${keys})` : label} aria-keyshortcuts={keys?.replace(/←/, 'ArrowLeft').replace(/→/, 'ArrowRight').replace(/↑/, 'ArrowUp').replace(/↓/, 'ArrowDown').replace(/ /g, '')}>
      {label}
    </Button>
  );
}
