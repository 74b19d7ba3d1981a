import { Anchor, Stack, Text, Title } from '@mantine/core';
import { Link, Navigate, useParams } from 'react-router';

/** Issue 34 (17): an address the dashboard has no page for says so, with the way home. */
export function NotFoundPage() {
  return (
    <Stack gap="sm" align="flex-start">
      <Title order={2}>Page not found</Title>
      <Text>This page does not exist. It may have moved, or the address was mistyped.</Text>
      <Anchor component={Link} to="/overview">
        Go to the overview
      </Anchor>
    </Stack>
  );
}

/** `/lists/{id}`, the address a user would guess for a list: its contacts. */
export function ListContactsRedirect() {
  const { id = '' } = useParams();
  return <Navigate to={/^\d+$/.test(id) ? `/contacts?list_id=${id}` : '/lists'} replace />;
}
