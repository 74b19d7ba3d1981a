import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { DKIM_KEYS_WAITING_PER_ACCOUNT } from '../../domain/domains/dkim-key-generator.ts';
import { SENDING_DOMAINS_MAX, warmupWarnings, type SendingDomain } from '../../domain/domains/sending-domain.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { CreateSendingDomainBody, SendingDomainObject, UpdateSendingDomainBody } from '../schemas/domains.ts';

const tags = ['Sending domains'];
const notFound = { 404: 'DOMAIN_NOT_FOUND' };

/** D23: the domains an account sends from, their DKIM keys and warm-up plans. */
export function domainRoutes({ domains }: Pick<HttpParts, 'domains'>) {
  return {
    create: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Add a sending domain: makes its DKIM key and answers the DNS records to publish',
        description: `At most ${SENDING_DOMAINS_MAX} per account (403 KEY_LIMIT_REACHED). Keys are made one at a time for the whole service, accounts taking turns; an account with ${DKIM_KEYS_WAITING_PER_ACCOUNT} domains already waiting for theirs gets 429 with Retry-After.`,
        tags,
        body: CreateSendingDomainBody,
        response: {
          200: Written(SendingDomainObject),
          ...errorResponses(false, {
            400: 'Invalid request, a domain that is not a hostname, or a warm-up value out of range (INVALID_REQUEST)',
            403: `The key lacks the permission (PERMISSION_DENIED), or the account has ${SENDING_DOMAINS_MAX} sending domains already (KEY_LIMIT_REACHED)`,
            409: 'DOMAIN_ALREADY_EXISTS',
            429: `Rate limit exceeded, or ${DKIM_KEYS_WAITING_PER_ACCOUNT} domains of the account are already waiting for their DKIM key (RATE_LIMIT_EXCEEDED), with Retry-After`,
          }),
        },
      },
      handler: async (req) => {
        // A full key queue (KeyQueueFullError) is the error handler's 429 with Retry-After.
        return withWarmupWarnings(req, await domains.create(actingOf(req), req.auth.accountId, req.body), 'Sending domain added');
      },
    }),

    page: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Page through sending domains, by name',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('domains', SendingDomainObject)), ...errorResponses(false) },
      },
      handler: async (req) => read(await domains.page(req.auth.accountId, req.query)),
    }),

    get: defineRoute({
      permissions: ['campaigns.read'],
      schema: { summary: 'Read a sending domain', tags, params: IdParams, response: { 200: Read(SendingDomainObject), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await domains.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: "Change a sending domain's warm-up plan",
        tags,
        params: IdParams,
        body: UpdateSendingDomainBody,
        response: { 200: Written(SendingDomainObject), ...errorResponses(false, { ...notFound, 400: 'Invalid request, or a warm-up value out of range; the message names the field (INVALID_REQUEST)' }) },
      },
      handler: async (req) => withWarmupWarnings(req, await domains.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body), 'Sending domain updated'),
    }),

    verify: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: "Look the domain's DNS records up and record what was found",
        description: 'Answers 200 with what was found (found.*: the TXT values seen, or null) whether the records are published or not.',
        tags,
        params: IdParams,
        response: { 200: Written(SendingDomainObject), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await domains.verify(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'Sending domain checked'),
    }),

    delete: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Delete a sending domain',
        description: 'Its key goes with it: mail from the domain is no longer signed, nor capped by its warm-up.',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await domains.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Sending domain deleted');
      },
    }),
  };
}

/** D26.2: a plan that cannot build a reputation yet says so in the answer's `warnings` (D17). */
function withWarmupWarnings(req: { warnings?: string[] }, domain: SendingDomain, message: string) {
  const warnings = warmupWarnings(domain);
  if (warnings.length > 0) req.warnings = [...(req.warnings ?? []), ...warnings];
  return written(domain, message);
}
