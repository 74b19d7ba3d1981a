import { Alert, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** Loading, error and empty states, shown the same way on every page. */
export function PageState(props: { loading: boolean; error: string | null; empty?: boolean; emptyText?: ReactNode; onRetry?: () => void; children?: ReactNode }) {
  if (props.error) {
    return (
      <Alert color="red" title="Could not load this" role="alert">
        <Stack gap="xs">
          <Text size="sm">{props.error}</Text>
          {props.onRetry && (
            <Group>
              <Button size="xs" variant="light" color="red" onClick={props.onRetry}>
                Try again
              </Button>
            </Group>
          )}
        </Stack>
      </Alert>
    );
  }
  if (props.loading && props.empty !== false) {
    return (
      <Center py="xl" aria-busy="true">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (props.empty) {
    return (
      <Center py="xl">
        <Text c="dimmed">{props.emptyText ?? 'Nothing here yet.'}</Text>
      </Center>
    );
  }
  return <>{props.children}</>;
}

export function ErrorText({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" variant="light" py="xs">
      {error}
    </Alert>
  );
}
