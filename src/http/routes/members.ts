import { actingOf } from '../acting.ts';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read, written, type RequestAuth } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { ChangeRoleBody, Invitation, InviteBody, Member } from '../schemas/members.ts';
import { Type } from '@sinclair/typebox';
import { reachOf } from '../../domain/users/roles.ts';
import type { MemberCaller } from '../../domain/users/members.service.ts';

const tags = ['Members and invitations'];
// D24.2, D24.3: managing members and invitations is an admin's (a key: `*`); reach (roles.ts) decides over owners.
const permissions = ['*'] as const;
const reach = 'An admin (or a key with `*`) reaches members and invitations that are not owners, and only with roles that are not owner; an owner reaches anyone.';
const beyondReach = 'Beyond the caller\'s reach (PERMISSION_DENIED)';

/** D24.1: a session acts with its user's role, read on this request; a key (no role) with `*` has an admin's reach. */
export function callerOf(auth: RequestAuth): MemberCaller {
  const role = auth.keyId === null ? auth.session.user.role : null;
  return { reach: reachOf(role, auth.permissions), userId: auth.keyId === null ? auth.session.user.id : null };
}

export function memberRoutes({ members, invitations }: Pick<HttpParts, 'members' | 'invitations'>) {
  const memberNotFound = { 404: 'MEMBER_NOT_FOUND (unknown, or of another account)' };
  const invitationNotFound = { 404: 'INVITATION_NOT_FOUND (unknown, of another account, accepted or revoked)' };
  return {
    page: defineRoute({
      permissions,
      anySession: true,
      schema: {
        summary: "Page through the account's members (its dashboard users)",
        description: 'D24.2: any member may list them, whatever its role; a key needs `*`.',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('members', Member)), ...errorResponses(false) },
      },
      handler: async (req) => read(await members.page(req.auth.accountId, req.query)),
    }),

    changeRole: defineRoute({
      permissions,
      schema: {
        summary: "Change a member's role",
        description: `D24.2. ${reach} Applies to the member's live sessions from their next request.`,
        tags,
        params: IdParams,
        body: ChangeRoleBody,
        response: { 200: Written(Member), ...errorResponses(false, { 403: beyondReach, ...memberNotFound, 409: "LAST_OWNER: the account's last owner cannot be demoted" }) },
      },
      handler: async (req) => written(await members.changeRole(actingOf(req), req.auth.accountId, callerOf(req.auth), pathId(req.params.id), req.body.role), 'role changed'),
    }),

    remove: defineRoute({
      permissions,
      schema: {
        summary: 'Remove a member; its sessions end at once',
        description: `D24.2. ${reach}`,
        tags,
        params: IdParams,
        response: { 200: Written(Member), ...errorResponses(false, { 403: beyondReach, ...memberNotFound, 409: "LAST_OWNER: the account's last owner cannot be removed" }) },
      },
      handler: async (req) => written(await members.remove(actingOf(req), req.auth.accountId, callerOf(req.auth), pathId(req.params.id)), 'member removed'),
    }),

    invite: defineRoute({
      permissions,
      schema: {
        summary: 'Invite someone to join the account with a role',
        description: `D24.3. ${reach} Mails the address a link {PUBLIC_URL}/invite/{token} naming the account, valid 7 days and once; POST /api/v1/auth/invitations/accept follows it.`,
        tags,
        body: InviteBody,
        response: {
          200: Written(Invitation),
          ...errorResponses(false, { 403: `${beyondReach}: an admin cannot invite an owner`, 409: 'USER_ALREADY_EXISTS (the address is a user, of any account) or INVITATION_EXISTS (a pending invitation has it)' }),
        },
      },
      handler: async (req) => written(await invitations.invite(actingOf(req), req.auth.accountId, callerOf(req.auth), req.body), 'invitation sent'),
    }),

    invitations: defineRoute({
      permissions,
      schema: {
        summary: "Page through the account's pending invitations",
        description: 'D24.3: pending ones only (not accepted nor revoked), expired ones included: `expires_at` shows them, and resending one gives it 7 days again.',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('invitations', Invitation)), ...errorResponses(false) },
      },
      handler: async (req) => read(await invitations.page(req.auth.accountId, req.query)),
    }),

    revoke: defineRoute({
      permissions,
      schema: {
        summary: 'Revoke a pending invitation: its link stops working',
        description: `D24.3. ${reach}`,
        tags,
        params: IdParams,
        response: { 200: Written(Invitation), ...errorResponses(false, { 403: beyondReach, ...invitationNotFound }) },
      },
      handler: async (req) => written(await invitations.revoke(actingOf(req), req.auth.accountId, callerOf(req.auth), pathId(req.params.id)), 'invitation revoked'),
    }),

    resend: defineRoute({
      permissions,
      schema: {
        summary: 'Mail a pending invitation again with a new link, valid 7 days from now; the old link stops working',
        description: `D24.3. ${reach}`,
        tags,
        params: IdParams,
        response: { 200: Written(Invitation), ...errorResponses(false, { 403: beyondReach, ...invitationNotFound }) },
      },
      handler: async (req) => written(await invitations.resend(actingOf(req), req.auth.accountId, callerOf(req.auth), pathId(req.params.id)), 'invitation sent again'),
    }),
  };
}
