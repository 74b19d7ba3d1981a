import type { FastifyReply } from 'fastify';
import { heading, publicPage } from './unsubscribe-pages.ts';
import { sendPage } from './send-page.ts';
import { acceptsHtml } from '../dashboard-paths.ts';

/**
 * D26.5: the addresses a recipient opens from a message or a shared link: unsubscribe (`/u/`),
 * the preference centre (`/p/`), the web view (`/w/`), confirmation (`/c/`), tracked links and
 * the pixel (`/t/`), the archive (`/archive/`) and sign-up forms (`/f/`). A person, not a program,
 * is at the other end, so their errors are pages for a browser.
 */
const RECIPIENT_PREFIXES = ['/u/', '/p/', '/w/', '/c/', '/t/', '/archive/', '/f/'];

const isRecipientPath = (url: string) => {
  const path = url.split('?')[0];
  return RECIPIENT_PREFIXES.some((prefix) => path.startsWith(prefix) || path === prefix.slice(0, -1));
};


/** True when an error on this request is answered with a page rather than D7's JSON body. */
export function answersWithPage(url: string, accept: string | undefined): boolean {
  return isRecipientPath(url) && acceptsHtml(accept);
}

/**
 * The one page for every failure on those addresses. A damaged, cut-off or unknown link (400 or
 * 404 underneath: a token that does not verify, an id that is not one, an archive that does not
 * exist) is a 404 page that says what probably happened; being refused for too many requests says
 * when to come back; anything else says it failed on our side. The API's own message is not shown:
 * it is written for integrators, and a recipient gains nothing from it. Other refusals keep their
 * status with a page that says so.
 */
export function sendPublicErrorPage(reply: FastifyReply, status: number, retryAfterSeconds?: number) {
  if (status === 429) {
    const wait = retryAfterSeconds ? `in ${retryAfterSeconds} seconds` : 'in a minute';
    return sendPage(reply, publicPage('Too many requests', `${heading('Too many requests')}<p>This address has been asked for too often just now. Please try again ${wait}.</p>`), { status });
  }
  if (status >= 500) {
    return sendPage(reply, publicPage('Something went wrong', `${heading('Something went wrong on our side')}<p>The page could not be shown. Please try again later; nothing you did caused this.</p>`), { status });
  }
  if (status !== 400 && status !== 404 && status !== 410) {
    return sendPage(reply, publicPage('Not possible', `${heading('This could not be done')}<p>The request was refused. Open the link again from the e-mail it came in; if that does not work, reply to the sender.</p>`), { status });
  }
  return sendPage(
    reply,
    publicPage(
      'Link not valid',
      `${heading('This link is not valid')}<p>It may have been cut off or changed when it was copied, or it no longer leads anywhere. Open it again from the e-mail it came in; if that does not work, reply to the sender.</p>`,
    ),
    { status: 404 },
  );
}
