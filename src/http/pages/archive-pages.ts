import type { ArchiveAccount, ArchiveEntry, ViewedMessage } from '../../engagement/message-views.ts';
import { escapeHtml, heading, publicPage } from './unsubscribe-pages.ts';

/**
 * D22's public pages of messages: the web view and the archive's message page show the message's
 * own HTML (served with sendMessagePage's CSP: no script, a sandboxed origin); a text-only message
 * is shown as its text. The archive's list is the public pages' shell; its feed is RSS 2.0.
 */
export function messagePage(message: ViewedMessage): string {
  if (message.html !== null) return message.html;
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(message.subject)}</title></head>
<body style="margin:0 auto;max-width:40rem;padding:1rem;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"><pre style="white-space:pre-wrap;font-family:inherit">${escapeHtml(message.text ?? '')}</pre></body></html>`;
}

export const TEST_WEBVIEW_PAGE = publicPage('Test message', `${heading('This was a test message')}<p>Its web view link shows the message in real sends, as each recipient got it.</p>`);

/**
 * Issue 28 H2: the account whose message this is has as many waiting to be rendered as it may
 * (web views and archive pages included, whoever asks for them); the answer is 503 with Retry-After.
 */
export function busyPage(retryAfterSeconds: number): string {
  return publicPage('Busy', `${heading('Too busy to show this now')}<p>Many people are opening this sender's messages at the moment. Please try again in ${retryAfterSeconds} seconds.</p>`);
}

/** A date as the archive shows it: 27 November 2026 (UTC). */
function dateText(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** `/archive/{slug}?page=N` (D6: from 0, of `pages`): the account's archived campaigns, newest first, with links to older and newer pages. */
export function archiveListPage(account: ArchiveAccount, entries: ArchiveEntry[], page: number, pages: number): string {
  const base = `/archive/${encodeURIComponent(account.slug)}`;
  const items = entries
    .map(
      (e) =>
        `<li style="margin:0 0 .9rem"><a href="${base}/${e.id}" style="color:#1c7ed6;font-weight:600;text-decoration:none">${escapeHtml(e.subject || '(no subject)')}</a><br><time datetime="${escapeHtml(e.sent_at)}" style="font-size:13px;color:#868e96">${escapeHtml(dateText(e.sent_at))}</time></li>`,
    )
    .join('');
  const nav = [page > 0 ? `<a href="${base}?page=${page - 1}" rel="prev">Newer</a>` : '', page + 1 < pages ? `<a href="${base}?page=${page + 1}" rel="next">Older</a>` : ''].filter(Boolean).join(' · ');
  const body =
    `${heading(`${account.name}: past e-mails`)}` +
    (items ? `<ul style="list-style:none;padding:0;margin:1rem 0">${items}</ul>` : '<p>Nothing here yet.</p>') +
    (nav ? `<p style="font-size:14px">${nav}</p>` : '') +
    `<p style="font-size:13px;color:#868e96"><a href="${base}/feed.xml" style="color:#868e96">RSS feed</a></p>`;
  return publicPage(`${account.name}: archive`, body, { head: `<link rel="alternate" type="application/rss+xml" title="${escapeHtml(account.name)}" href="${base}/feed.xml">` });
}

/** XML's own five entities: every feed reader knows them. */
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text as XML 1.0 may hold it: escaped, and without the characters it cannot hold at all (controls, lone surrogates). */
export function xmlText(value: string): string {
  return value.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

/** `/archive/{slug}/feed.xml`: RSS 2.0, its items the latest archived campaigns, pubDate in RFC 822's form. */
export function archiveFeed(account: ArchiveAccount, entries: ArchiveEntry[], publicUrl: string): string {
  const link = `${publicUrl}/archive/${encodeURIComponent(account.slug)}`;
  const items = entries
    .map((e) => {
      const url = `${link}/${e.id}`;
      return `<item><title>${xmlText(e.subject)}</title><link>${xmlText(url)}</link><guid isPermaLink="true">${xmlText(url)}</guid><pubDate>${new Date(e.sent_at).toUTCString()}</pubDate><description>${xmlText(e.summary)}</description></item>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel>
<title>${xmlText(account.name)}</title>
<link>${xmlText(link)}</link>
<description>${xmlText(`Past e-mails from ${account.name}`)}</description>
${items}
</channel></rss>
`;
}
