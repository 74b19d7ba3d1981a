import { Button, PasswordInput } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useAction } from '../hooks.ts';
import { ErrorText } from './PageState.tsx';

/** A new password (8-256 characters, as at sign-up; the eye shows what was typed): the reset and the invitation pages. */
export function NewPasswordForm({ submitLabel, onSubmit, children }: { submitLabel: string; onSubmit: (password: string) => Promise<void>; children?: ReactNode }) {
  const action = useAction();
  const [password, setPassword] = useState('');

  async function submit(e: FormEvent) {
    e.preventDefault();
    await action.run(() => onSubmit(password));
  }

  return (
    <form onSubmit={submit}>
      {children}
      <PasswordInput label="New password" description="At least 8 characters" required minLength={8} maxLength={256} autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} mb="md" />
      <ErrorText error={action.error} />
      <Button type="submit" loading={action.busy} fullWidth mt="md">
        {submitLabel}
      </Button>
    </form>
  );
}
