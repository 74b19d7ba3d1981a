import { Paper, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A signed-out page's one panel under its title: the sign-up's "check your mail" and its confirmation. */
export function AuthPanel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth-page">
      <Title order={1} ta="center" mb="lg">
        {title}
      </Title>
      <Paper withBorder p="lg" radius="md">
        <Stack>{children}</Stack>
      </Paper>
    </main>
  );
}
