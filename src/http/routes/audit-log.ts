import type { HttpParts } from '../http-parts.ts';
import { defineRoute, read } from '../route.ts';
import { errorResponses, PageOf, Read } from '../schemas/common.ts';
import { AuditEntryObject, AuditLogQuery } from '../schemas/audit-log.ts';

const tags = ['Audit log'];

/** D24.8: who changed what, read-only: there is no route to change or delete an entry. */
export function auditLogRoutes({ auditLog }: Pick<HttpParts, 'auditLog'>) {
  return {
    page: defineRoute({
      // Admin reach: an owner's or admin's session, or a key with `*` (D24.1).
      permissions: ['*'],
      schema: {
        summary: "Page through the account's audit log, newest first",
        description: 'Every change made through the API, the dashboard or the CLI (actor `system`). Entries are kept `AUDIT_RETENTION_DAYS` (400 by default).',
        tags,
        querystring: AuditLogQuery,
        response: { 200: Read(PageOf('entries', AuditEntryObject)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { page, size, ...filter } = req.query;
        return read(await auditLog.page(req.auth.accountId, filter, { page, size }));
      },
    }),
  };
}
