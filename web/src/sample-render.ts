import { SAMPLE_PERSON } from '../../src/domain/content/content.ts';

/**
 * Issue 34 (17): a gallery thumbnail shows a template as a reader sees it, its merge fields filled
 * with the sample person the campaign preview uses, not `{{ first_name }}`. Rendered here, in the
 * viewer's own browser, by the Liquid library the server renders with (loaded with the gallery
 * only), within a time and memory budget; a template that does not render is shown as written.
 */
const SAMPLE_DATA = {
  ...SAMPLE_PERSON,
  // A layout's slot, and the links a preview makes inert (as the campaign preview does).
  content: '<p>Your message goes here.</p>',
  unsubscribe_url: '#',
  preferences_url: '#',
  webview_url: '#',
};

const LIMITS = { parseLimit: 1_000_000, renderLimit: 200, memoryLimit: 10_000_000 };

let engine: Promise<{ parseAndRender(html: string, data: object): Promise<string> }> | null = null;

export async function renderWithSampleData(html: string): Promise<string> {
  engine ??= import('liquidjs').then(({ Liquid }) => new Liquid({ ...LIMITS, strictFilters: false, strictVariables: false }));
  try {
    return await (await engine).parseAndRender(html, SAMPLE_DATA);
  } catch {
    return html;
  }
}
