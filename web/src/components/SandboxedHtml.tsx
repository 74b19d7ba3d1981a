/**
 * User-supplied HTML (campaign content, captured mail) is shown only here: an iframe with an empty
 * `sandbox` (no scripts, no forms, no same-origin access, no top navigation), filled by `srcdoc`.
 * It also inherits the page's Content-Security-Policy, which allows no inline script.
 *
 * Issue 34 (15): with `openLinks` (the dev inbox, to confirm a double opt-in from it), a link
 * opens in a new tab: every `<a href>` gets `target="_blank"` and `rel="noopener noreferrer"`, and
 * the sandbox allows popups, which leave the sandbox to be ordinary pages. Scripts stay off.
 */
export function SandboxedHtml({ html, title, className, openLinks = false }: { html: string; title: string; className?: string; openLinks?: boolean }) {
  return (
    <iframe
      sandbox={openLinks ? 'allow-popups allow-popups-to-escape-sandbox' : ''}
      srcDoc={openLinks ? linksInNewTabs(html) : html}
      title={title}
      className={className ?? 'html-frame'}
      referrerPolicy="no-referrer"
    />
  );
}

/**
 * The mail with each link opening a new tab. Parsed inertly (DOMParser runs no script and loads
 * nothing); a `<base target>` would be simpler but the page's policy (base-uri 'none') refuses it.
 */
export function linksInNewTabs(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const a of doc.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
  }
  // The mail's own doctype (or none: quirks mode) is kept, so it lays out as before.
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html)?.[0] ?? '';
  return doctype + doc.documentElement.outerHTML;
}
