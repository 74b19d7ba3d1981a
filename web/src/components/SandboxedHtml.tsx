/**
 * User-supplied HTML (campaign content, captured mail) is shown only here: an iframe with an empty
 * `sandbox` (no scripts, no forms, no same-origin access, no top navigation), filled by `srcdoc`.
 * It also inherits the page's Content-Security-Policy, which allows no inline script.
 */
export function SandboxedHtml({ html, title, className }: { html: string; title: string; className?: string }) {
  return <iframe sandbox="" srcDoc={html} title={title} className={className ?? 'html-frame'} referrerPolicy="no-referrer" />;
}
