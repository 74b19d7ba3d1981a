import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { templates } from '../api.ts';
import type { ContentFormat } from '../content-editor.ts';
import { useAction } from '../hooks.ts';
import { ErrorText } from './PageState.tsx';

const NAMES: Record<ContentFormat, string> = { html: 'HTML', mjml: 'MJML', markdown: 'Markdown' };

/**
 * Issue 34: what switching written content from one format to another does to it, in words; null
 * when nothing is lost (no content yet, or it is already written in the new format).
 */
export function formatSwitchWarning(source: string, from: ContentFormat, to: ContentFormat): string | null {
  if (from === to || !source.trim()) return null;
  if (to === 'mjml' && /^\s*<mjml[\s>]/i.test(source)) return null;
  if (from === 'mjml') return `This content is written in MJML. Read as ${NAMES[to]}, its <mj-…> tags mean nothing to mail apps: the design falls apart into loose text.`;
  if (to === 'mjml') return `This content is written in ${NAMES[from]}. MJML content must be one <mjml> document, so it will not compile, nor save, until it is rewritten in MJML.`;
  if (from === 'markdown') return 'This content is written in Markdown. Read as HTML, its headings, lists and links become plain text (# and * shown as typed) and its paragraphs run together.';
  return 'This content is written in HTML. Markdown keeps HTML tags as they are, but blank lines, indents and characters such as * and _ take on Markdown meanings.';
}

/** Only MJML has a conversion the server makes without loss: the HTML it compiles to. */
export const canConvert = (from: ContentFormat, to: ContentFormat) => from === 'mjml' && to === 'html';

/**
 * Issue 34: the question asked before the Format select changes written content's format: keep
 * the format, switch it (the text stays as written), or, from MJML to HTML, convert the content to
 * the HTML the server compiles it to (POST /templates/compile: CSS inlined, merge tags kept).
 */
export function FormatSwitchDialog({ source, from, to, onCancel, onSwitch }: { source: string; from: ContentFormat; to: ContentFormat | null; onCancel: () => void; onSwitch: (converted?: string) => void }) {
  const action = useAction();
  const warning = to ? formatSwitchWarning(source, from, to) : null;
  return (
    <Modal opened={to !== null} onClose={onCancel} title={to ? `Switch the content from ${NAMES[from]} to ${NAMES[to]}?` : ''} centered>
      {to && (
        <Stack>
          <Text size="sm">{warning}</Text>
          {canConvert(from, to) && <Text size="sm">Convert it instead to the HTML it compiles to: the same design as one HTML document, merge tags kept, which you can then edit as HTML.</Text>}
          <ErrorText error={action.error} />
          <Group justify="flex-end" wrap="wrap">
            <Button variant="default" onClick={onCancel}>
              Keep {NAMES[from]}
            </Button>
            <Button variant={canConvert(from, to) ? 'light' : 'filled'} color="orange" disabled={action.busy} onClick={() => onSwitch()}>
              Switch without converting
            </Button>
            {canConvert(from, to) && (
              <Button
                loading={action.busy}
                onClick={async () => {
                  const compiled = await action.run(() => templates.compile({ format: 'mjml', body: source }));
                  if (compiled) onSwitch(compiled.html);
                }}
              >
                Convert to HTML
              </Button>
            )}
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
