import { Type } from '@sinclair/typebox';
import { PASSWORD_LIMITS } from '../../domain/users/passwords.ts';
import { Timestamp } from './common.ts';

export const Credentials = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: PASSWORD_LIMITS.max }),
});

export const SignUpBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: PASSWORD_LIMITS.min, maxLength: PASSWORD_LIMITS.max, description: `${PASSWORD_LIMITS.min}-${PASSWORD_LIMITS.max} characters` }),
  account_name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { description: 'defaults to the e-mail address' })),
});

export const SessionInfo = Type.Object(
  {
    user: Type.Object({ id: Type.Integer(), account_id: Type.Integer(), email: Type.String(), created_at: Timestamp }),
    account: Type.Object({ id: Type.Integer(), name: Type.String(), plan: Type.String() }),
    csrf_token: Type.String({ description: 'send it back in X-CSRF-Token on every request that changes something' }),
    expires_at: Timestamp,
  },
  { $id: 'SessionInfo' },
);
