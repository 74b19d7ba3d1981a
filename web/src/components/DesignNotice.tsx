import { Alert, Text } from '@mantine/core';

/** Why a design stays in source mode, or what just happened to it: read out when it changes. */
export function DesignNotice({ notice }: { notice: string | null }) {
  return notice ? (
    <Alert color="yellow" variant="light" p="xs" role="status">
      <Text size="sm">{notice}</Text>
    </Alert>
  ) : null;
}
