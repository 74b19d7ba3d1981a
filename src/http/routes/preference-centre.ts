import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { HttpParts } from '../http-parts.ts';
import type { ContactGone, PreferenceCentrePage } from '../../engagement/preference-centre.service.ts';
import { ApiError } from '../errors.ts';
import { DATA_ACTIONS_ELSEWHERE_PAGE, erasedPage, eraseQuestionPage, nothingHeldPage, preferencesPage, TEST_PREFERENCES_PAGE } from '../pages/preference-pages.ts';
import { clientOf, defineRoute } from '../route.ts';
import { documentedAs } from '../schemas/common.ts';
import { HtmlResponse, PreferenceFormBody, trackingErrors } from '../schemas/tracking.ts';
import { sendPage } from '../pages/send-page.ts';
import { invalidLink, perClientLimit } from './tracking.ts';

const tags = ['Tracking'];
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });

/** What the page's forms post (D20, D21): `action` names the form, so a POST without one changes nothing. */
export const PREFERENCE_ACTIONS = ['update', 'details', 'unsubscribe_all', 'export', 'erase'] as const;
type PreferenceAction = (typeof PREFERENCE_ACTIONS)[number];
/** More list ids than any account's public lists: past this a POST is not the page's form. */
const MAX_LIST_IDS = 1000;

/** The page's form, read: its action, the lists chosen (`list_ids`, repeated) and the erasure's `confirm`; 400 for anything else. */
export function preferenceForm(body: unknown): { action: PreferenceAction; listIds: number[]; confirmed: boolean; values: [string, string][] } {
  const fields = new URLSearchParams(typeof body === 'string' ? body : '');
  const action = fields.get('action');
  if (!(PREFERENCE_ACTIONS as readonly (string | null)[]).includes(action)) {
    throw new ApiError(400, 'INVALID_REQUEST', `action must be one of ${PREFERENCE_ACTIONS.join(', ')}`);
  }
  const raw = fields.getAll('list_ids');
  if (raw.length > MAX_LIST_IDS || !raw.every((id) => /^[1-9][0-9]{0,15}$/.test(id) && Number.isSafeInteger(Number(id)))) {
    throw new ApiError(400, 'INVALID_REQUEST', `list_ids must hold at most ${MAX_LIST_IDS} list ids (positive integers)`);
  }
  return { action: action as PreferenceAction, listIds: [...new Set(raw.map(Number))], confirmed: fields.get('confirm') === 'yes', values: [...fields] };
}

const PageOrDocument = documentedAs(Type.Any(), {
  description: "The preference centre's page (text/html); for `action=export`, D21's document as a JSON download (Content-Disposition: attachment)",
  content: {
    'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } },
    'application/json': { schema: { type: 'object', description: 'the `data` of GET /api/v1/contacts/{email}/export' } },
  },
});

/**
 * D20's preference centre at `/p/{token}`, in every campaign message's footer. Public (mail
 * clients carry no key): each client IP has a budget, as the other links in mails do, then the
 * token is HMAC-checked; a tampered one is 404, never a redirect. A test send's link shows a page
 * saying so and changes nothing.
 */
export function preferenceCentreRoutes({ signer, engagement, preferenceCentre, trackingLimiter }: Pick<HttpParts, 'signer' | 'engagement' | 'preferenceCentre' | 'trackingLimiter'>) {
  const limit = perClientLimit(trackingLimiter);
  /**
   * The recipient row the token names, and whether it may export and erase (only the mailed
   * message's own link may: issue 28 L1, a web view's link may not); null for a live test send's
   * token (answered with the test page); 404 otherwise.
   */
  async function holderOf(token: string): Promise<{ recipientId: number; dataActions: boolean } | null> {
    const payload = signer.verify(token, 'preferences');
    if (payload) return { recipientId: payload.recipientId, dataActions: true };
    const fromWebview = signer.verify(token, 'webview-preferences');
    if (fromWebview) return { recipientId: fromWebview.recipientId, dataActions: false };
    const test = signer.verify(token, 'test-preferences');
    if (test && (await engagement.isLiveTestSend(test.testSendId))) return null;
    throw invalidLink();
  }
  const answer = (reply: FastifyReply, found: PreferenceCentrePage | ContactGone | null, formAction: string, said?: string, dataActions = true) => {
    if (!found) throw invalidLink();
    return sendPage(reply, 'gone' in found ? nothingHeldPage(found.sender) : preferencesPage(found, formAction, said, dataActions));
  };

  return {
    page: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'The preference centre (D20)',
        description: "The account's public lists, with the contact's memberships checked, and the person's other choices: unsubscribe from everything, download or erase their data (D21; not through the preference link of a web view page, issue 28 L1). Changes nothing.",
        tags,
        params: TokenParams,
        response: { 200: HtmlResponse('The preference centre page'), ...trackingErrors },
      },
      handler: async (req, reply) => {
        await limit('preferences', req, reply);
        const holder = await holderOf(req.params.token);
        if (holder === null) return sendPage(reply, TEST_PREFERENCES_PAGE);
        return answer(reply, await preferenceCentre.page(holder.recipientId), `/p/${encodeURIComponent(req.params.token)}`, undefined, holder.dataActions);
      },
    }),

    post: defineRoute({
      permissions: 'public',
      acceptAnyBody: true,
      bodyLimit: 64 * 1024,
      schema: {
        summary: "The preference centre's forms (D20, D21)",
        description:
          'Form-encoded. `action=update` with the chosen `list_ids` (repeated): public lists chosen become SUBSCRIBED, public lists left out UNSUBSCRIBED; private lists and the contact\'s status are untouched. ' +
          '`action=details` (issue 34) with `first_name`, `last_name` and `custom_fields.<key>` for the custom fields whose definition is editable_by_contact, each as its type requires (blank clears; a boolean posts `false` then `true` when ticked, the last wins): saved as an API update would; any other field (the address, a field not editable) or a bad value answers the page again with 400 and saves nothing. ' +
          '`action=unsubscribe_all` unsubscribes the contact as the unsubscribe link does. `action=export` answers D21\'s document as a JSON download. `action=erase` answers a page asking to confirm; `action=erase&confirm=yes` erases (D21). Another or no `action`, or malformed `list_ids`: 400.',
        tags,
        params: TokenParams,
        body: PreferenceFormBody,
        response: {
          200: PageOrDocument,
          400: documentedAs(Type.Any(), {
            description: "Not the page's form (INVALID_REQUEST, JSON); or (issue 34) `action=details` naming a field the person may not change or a value its type refuses: the page again, saying so (HTML)",
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } }, 'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } } },
          }),
          403: HtmlResponse("Issue 28 L1: `action=export` or `action=erase` through the preference link of a web view page (`/w/{token}`), whose address may have been shared: a page pointing to the mailed message's own link; nothing is done"),
          ...trackingErrors,
        },
      },
      handler: async (req, reply) => {
        await limit('preferences', req, reply);
        const holder = await holderOf(req.params.token);
        const form = preferenceForm(req.body);
        if (holder === null) return sendPage(reply, TEST_PREFERENCES_PAGE);
        const { recipientId, dataActions } = holder;
        const formAction = `/p/${encodeURIComponent(req.params.token)}`;
        if (!dataActions && (form.action === 'export' || form.action === 'erase')) return sendPage(reply, DATA_ACTIONS_ELSEWHERE_PAGE, { status: 403 });
        switch (form.action) {
          case 'update':
            return answer(reply, await preferenceCentre.update(recipientId, form.listIds, clientOf(req)), formAction, 'Your choices are saved.', dataActions);
          case 'details': {
            const result = await preferenceCentre.updateDetails(recipientId, form.values);
            if (result && 'refused' in result) {
              const found = await preferenceCentre.page(recipientId);
              if (!found || 'gone' in found) return answer(reply, found, formAction);
              return sendPage(reply, preferencesPage(found, formAction, undefined, dataActions, result.refused), { status: 400 });
            }
            return answer(reply, result, formAction, 'Your details are saved.', dataActions);
          }
          case 'unsubscribe_all':
            return answer(reply, await preferenceCentre.unsubscribeAll(recipientId), formAction, 'You are unsubscribed from all e-mails.', dataActions);
          case 'export': {
            const document = await preferenceCentre.exportData(recipientId);
            if (!document || 'gone' in document) return answer(reply, document, formAction);
            return reply
              .header('Cache-Control', 'no-store')
              .header('Content-Disposition', 'attachment; filename="personal-data.json"')
              .type('application/json; charset=utf-8')
              .serializer((b: unknown) => b as string)
              .send(JSON.stringify(document, null, 2) + '\n');
          }
          case 'erase': {
            if (!form.confirmed) {
              const found = await preferenceCentre.page(recipientId);
              if (!found || 'gone' in found) return answer(reply, found, formAction);
              return sendPage(reply, eraseQuestionPage(found, formAction));
            }
            const erased = await preferenceCentre.erase(recipientId);
            if (!erased) throw invalidLink();
            return sendPage(reply, erasedPage(erased.sender));
          }
        }
      },
    }),
  };
}
