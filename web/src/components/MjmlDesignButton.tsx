import { Button, Group, Loader, Text } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { DesignNotice } from './DesignNotice.tsx';

// Issue 33: the block editor (GrapesJS, grapesjs-mjml, mjml-browser) is a chunk of its own, fetched
// when a design is first opened, so no other page of the dashboard grows by it.
const MjmlVisualEditor = lazy(() => import('./MjmlVisualEditor.tsx'));

/**
 * "Edit visually" for MJML source: opens the full-screen block editor, and shows why when the
 * source must stay in source mode (an MJML error with its line, or parts the editor cannot keep).
 */
export function MjmlDesignButton({ source, title, onChange, onSave }: { source: string; title: string; onChange: (source: string) => void; onSave?: (source: string) => Promise<string | null> }) {
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <Group gap="xs">
        <Button
          size="compact-sm"
          onClick={() => {
            setNotice(null);
            setOpen(true);
          }}
        >
          Edit visually
        </Button>
        <Text size="xs" c="dimmed">
          Drag blocks and edit text in place; the MJML below follows.
        </Text>
      </Group>
      <DesignNotice notice={notice} />
      {open && (
        <Suspense fallback={<Loader size="sm" aria-label="Loading the visual editor" />}>
          <MjmlVisualEditor
            source={source}
            title={title}
            onChange={onChange}
            onSave={onSave}
            onClose={() => setOpen(false)}
            onUnfit={(reason) => {
              setOpen(false);
              setNotice(reason);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
