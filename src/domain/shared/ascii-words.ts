/**
 * Text as lowercase ASCII words joined by `separator`: accents folded ("Café Olé" → `cafe`, `ole`),
 * anything else between letters and digits one separator, none at the ends. The one folding of an
 * account's slug (D22) and a CSV header's custom-field key (D26.3). Pure: the dashboard's bundle
 * reaches it through csv-columns.ts.
 */
export function asciiWords(text: string, separator: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join(separator);
}
