import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useAction } from '../hooks.ts';
import { ErrorText } from './PageState.tsx';
import type { Permission } from '../permissions.ts';
import { Can } from './Can.tsx';

/** A button that asks first: for actions that cannot be undone (revoke, delete, send). */
export function ConfirmButton(props: ButtonProps & { label: string; title: string; message: ReactNode; confirmLabel: string; onConfirm: () => Promise<unknown>; dismissLabel?: string }) {
  const { label, title, message, confirmLabel, onConfirm, dismissLabel = 'Cancel', ...buttonProps } = props;
  const [open, setOpen] = useState(false);
  const action = useAction();
  return (
    <>
      <Button {...buttonProps} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={title} centered>
        {/* a div: a message may hold blocks (an alert), which a paragraph may not */}
        <Text size="sm" mb="md" component="div">
          {message}
        </Text>
        <ErrorText error={action.error} />
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setOpen(false)}>
            {dismissLabel}
          </Button>
          <Button
            color={buttonProps.color ?? 'red'}
            loading={action.busy}
            onClick={async () => {
              const ok = await action.run(async () => {
                await onConfirm();
                return true;
              });
              if (ok) setOpen(false);
            }}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Modal>
    </>
  );
}

/**
 * The row's "Delete" of a library page (lists, segments, forms): a confirm step naming the item,
 * offered only to a role holding `need` (D24.9).
 */
export function DeleteButton({ need, noun, name, message, onConfirm }: { need: Permission; noun: string; name: string; message: ReactNode; onConfirm: () => Promise<unknown> }) {
  return (
    <Can need={need}>
      <ConfirmButton
        size="xs"
        variant="light"
        color="red"
        label="Delete"
        aria-label={`Delete ${name}`}
        title={`Delete the ${noun} “${name}”?`}
        message={message}
        confirmLabel={`Delete ${noun}`}
        onConfirm={onConfirm}
      />
    </Can>
  );
}
