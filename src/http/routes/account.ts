import { actingOf } from '../acting.ts';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, read, written } from '../route.ts';
import { errorResponses, Read, Written } from '../schemas/common.ts';
import { AccountSettings, UpdateAccountBody } from '../schemas/account.ts';
import { getAccount, updateAccount } from '../../domain/accounts/accounts.service.ts';

const tags = ['Account'];

/**
 * Issue 34 item 3: the caller's own account (never another's: the account is the caller's, so
 * there is no id to guess). Its settings are an admin's, like members (D24.2): a session of an
 * owner or admin, or a key with `*`; any member may read them, as the dashboard shows dates in
 * the account's time zone to everyone.
 */
export function accountRoutes({ handle }: Pick<HttpParts, 'handle'>) {
  return {
    get: defineRoute({
      permissions: ['*'],
      anySession: true,
      schema: {
        summary: 'The account: its name, plan, archive slug and time zone',
        description: 'Any member may read it, whatever its role; a key needs `*`.',
        tags,
        response: { 200: Read(AccountSettings), ...errorResponses(false) },
      },
      handler: async (req) => read(await getAccount(handle.db, req.auth.accountId)),
    }),

    update: defineRoute({
      permissions: ['*'],
      schema: {
        summary: "Change the account's settings (its time zone)",
        description:
          "An owner or admin (a key: `*`). `time_zone` is an IANA name (Europe/Paris, America/New_York, UTC), kept as given (D26.9); an unknown one is 400 INVALID_REQUEST naming the field. Absent fields stay as they are. The dashboard shows every date in this zone and offers it first when scheduling; the API's timestamps stay UTC (D1).",
        tags,
        body: UpdateAccountBody,
        response: { 200: Written(AccountSettings), ...errorResponses(false) },
      },
      handler: async (req) => written(await updateAccount(handle.db, actingOf(req), req.auth.accountId, req.body), 'account updated'),
    }),
  };
}
