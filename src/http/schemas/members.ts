import { Type } from '@sinclair/typebox';
import { PASSWORD_LIMITS } from '../../domain/users/passwords.ts';
import { ROLES } from '../../domain/users/roles.ts';
import { NullableTimestamp, StringEnum, Timestamp } from './common.ts';

/** D24.1 */
export const RoleSchema = StringEnum(ROLES, { description: 'D24.1: owner, admin, manager, author or viewer' });

/** D24.2: a member's id is its user's id. */
export const Member = Type.Object(
  {
    id: Type.Integer({ description: "the member's user id" }),
    email: Type.String(),
    role: RoleSchema,
    two_factor: Type.Boolean({ description: 'whether the member signs in with a second factor (D24.6)' }),
    last_sign_in_at: NullableTimestamp,
    created_at: Timestamp,
  },
  { $id: 'Member' },
);

export const ChangeRoleBody = Type.Object({ role: RoleSchema });

export const Invitation = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: RoleSchema,
    invited_by: Type.Union([Type.Integer(), Type.Null()], { description: 'the inviting user\'s id (a member id); null when an API key invited, or once that user was removed' }),
    expires_at: Timestamp,
    created_at: Timestamp,
  },
  { $id: 'Invitation' },
);

export const InviteBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  role: RoleSchema,
});

export const AcceptInvitationBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'what follows /invite/ in the mailed link' }),
  password: Type.String({ minLength: PASSWORD_LIMITS.min, maxLength: PASSWORD_LIMITS.max, description: `${PASSWORD_LIMITS.min}-${PASSWORD_LIMITS.max} characters` }),
});
