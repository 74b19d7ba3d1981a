import { Type } from '@sinclair/typebox';
import { documentedAs, ErrorBody } from './common.ts';

/**
 * D17.8: the links inside mails answer a GIF, a redirect, an HTML page or nothing, not JSON. The
 * validator and serializer see `Any` (each handler sends its own bytes); the document shows the real
 * media type.
 */
export const GifResponse = documentedAs(Type.Any(), {
  description: 'The 1x1 transparent GIF (Cache-Control: no-store)',
  content: { 'image/gif': { schema: { type: 'string', contentMediaType: 'image/gif' } } },
});

export const RedirectResponse = documentedAs(Type.Any(), {
  description: "A 302 redirect to the campaign's own link",
  type: 'null',
  headers: { Location: { type: 'string', format: 'uri', description: 'the link as written in the campaign' } },
});

export const HtmlResponse = (description: string) =>
  documentedAs(Type.Any(), { description, content: { 'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } } } });


/** What every link answers besides its own page: a link no longer (or never) valid, and the per-address budget. */
export const trackingErrors = {
  404: Type.Ref(ErrorBody, { description: 'The link is not valid (NOT_FOUND)' }),
  429: Type.Ref(ErrorBody, { description: 'Too many requests from this client address (RATE_LIMIT_EXCEEDED), with Retry-After' }),
};
