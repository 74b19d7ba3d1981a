import { describe, expect, it } from 'vitest';
import { isDashboardRequest, isServicePath } from './dashboard-paths.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('D17.10: which requests get the dashboard page', () => {
  it.each(['/login', '/settings', '/campaigns/12/report', '/anything/else', '/apiary', '/tags'])('a browser GET of %s gets the dashboard', (path) => {
    expect(isDashboardRequest('GET', path, BROWSER)).toBe(true);
  });

  it.each(['/api', '/api/v1/nothing', '/v1/contacts', '/t/o/x', '/u/token', '/f/uid', '/c/x', '/p/x', '/w/x', '/m/x', '/archive/acme', '/health', '/ready', '/docs/json', '/metrics', '/webhooks/ses', '/assets/missing.js'])(
    "%s stays the service's, even asked for as HTML",
    (path) => {
      expect(isServicePath(path)).toBe(true);
      expect(isDashboardRequest('GET', path, BROWSER)).toBe(false);
    },
  );

  it('needs text/html in Accept: a JSON client or none gets the API answer', () => {
    expect(isDashboardRequest('GET', '/login', 'application/json')).toBe(false);
    expect(isDashboardRequest('GET', '/login', undefined)).toBe(false);
    expect(isDashboardRequest('GET', '/login', '*/*')).toBe(false);
    expect(isDashboardRequest('GET', '/login', 'application/json, text/html;q=0.5')).toBe(true);
    expect(isDashboardRequest('GET', '/login', 'text/htmlx')).toBe(false);
  });

  it('only GET', () => {
    expect(isDashboardRequest('POST', '/login', BROWSER)).toBe(false);
    expect(isDashboardRequest('HEAD', '/login', BROWSER)).toBe(false);
  });

  it('judges the path without its query', () => {
    expect(isDashboardRequest('GET', '/settings?tab=keys', BROWSER)).toBe(true);
    expect(isDashboardRequest('GET', '/api?x=/settings', BROWSER)).toBe(false);
  });
});
