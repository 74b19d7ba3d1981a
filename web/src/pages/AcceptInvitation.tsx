import { Text } from '@mantine/core';
import { useNavigate, useParams } from 'react-router';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { NewPasswordForm } from '../components/NewPasswordForm.tsx';
import { useSession } from '../session.tsx';

/** D24.3: where an invitation's link leads, `/invite/{token}`: the new member picks a password and is signed in. */
export function AcceptInvitationPage() {
  const { token = '' } = useParams();
  const { acceptInvitation } = useSession();
  const navigate = useNavigate();
  return (
    <AuthPanel title="Join your team on Sendwell">
      <NewPasswordForm
        submitLabel="Join"
        onSubmit={async (password) => {
          await acceptInvitation(token, password);
          navigate('/overview', { replace: true });
        }}
      >
        <Text mb="md">You were invited to an account. Choose the password you will sign in with; your e-mail address is the one the invitation went to.</Text>
      </NewPasswordForm>
    </AuthPanel>
  );
}
