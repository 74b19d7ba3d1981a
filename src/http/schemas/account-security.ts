import { Type } from '@sinclair/typebox';
import { PASSWORD_LIMITS } from '../../domain/users/passwords.ts';
import { NullableTimestamp, Timestamp } from './common.ts';

/** D24.4-D24.6: password reset, own password and sessions, two-factor sign-in. */

const NewPassword = Type.String({ minLength: PASSWORD_LIMITS.min, maxLength: PASSWORD_LIMITS.max, description: `${PASSWORD_LIMITS.min}-${PASSWORD_LIMITS.max} characters` });
const GivenPassword = Type.String({ minLength: 1, maxLength: PASSWORD_LIMITS.max });
const Token = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const PasswordResetBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) });

export const PasswordResetRequested = Type.Object(
  { email: Type.String({ description: 'the address as given: the answer is the same whether or not it is a user' }) },
  { $id: 'PasswordResetRequested' },
);

export const PasswordResetConfirmBody = Type.Object({
  token: Token("what follows /reset/ in the mailed link"),
  password: NewPassword,
});

export const ChangePasswordBody = Type.Object({ current_password: GivenPassword, new_password: NewPassword });

export const OwnSession = Type.Object(
  {
    id: Type.String({ description: 'not the cookie\'s value: DELETE /api/v1/auth/sessions/{session_id} takes it' }),
    created_at: Timestamp,
    last_seen_at: NullableTimestamp,
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'the session making this request' }),
  },
  { $id: 'OwnSession' },
);

/** Not `id`: path ids are integers (D2); a session's is a random string. */
export const SessionIdParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64, description: 'the `id` GET /api/v1/auth/sessions shows' }) });

export const SessionEnded = Type.Object({ id: Type.String() }, { $id: 'SessionEnded' });

export const PasswordChanged = Type.Object({ password_changed: Type.Literal(true) }, { $id: 'PasswordChanged' });

export const TotpSetup = Type.Object(
  {
    secret: Type.String({ description: 'base32; two-factor is on only once POST /api/v1/auth/totp/enable takes a code of it' }),
    otpauth_url: Type.String({ description: 'otpauth://totp/Sendwell:<email>?secret=...&issuer=Sendwell (for a QR code)' }),
  },
  { $id: 'TotpSetup' },
);

const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'the 6 digits the authenticator app shows' });

export const TotpCodeBody = Type.Object({ code: TotpCode });

export const RecoveryCodes = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: '10 codes, each usable once instead of a code; shown only now' }) },
  { $id: 'RecoveryCodes' },
);

export const TotpDisableBody = Type.Object({ password: GivenPassword });

export const TwoFactorState = Type.Object({ two_factor: Type.Boolean() }, { $id: 'TwoFactorState' });

export const TotpSignInBody = Type.Object({
  challenge: Token('the challenge POST /api/v1/auth/login answered'),
  code: Type.Optional(TotpCode),
  recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'one of the recovery codes, instead of code' })),
});

/** D24.6: the answer of a right password for a user with two-factor: no session yet. */
export const TwoFactorRequired = Type.Object(
  {
    two_factor_required: Type.Literal(true),
    challenge: Type.String({ description: 'give it with a code to POST /api/v1/auth/login/totp within 5 minutes' }),
  },
  { $id: 'TwoFactorRequired' },
);
