import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { archiveFeed, archiveListPage, messagePage, xmlText } from './archive-pages.ts';

const account = { name: 'Tom & Jerry <News>', slug: 'tom-jerry-news' };
const entry = (id: number, subject: string) => ({ id, subject, sent_at: '2026-11-27T09:05:00', summary: `Summary ${id} & more` });

describe('D22 archive pages', () => {
  it('xmlText escapes markup and drops what XML 1.0 cannot hold', () => {
    expect(xmlText(`a<b>&"c'\u0000\u0007\u000b\ud800z\u{1F600}`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;z\u{1F600}');
  });

  it('the feed is RSS 2.0 with channel fields and items in order, whatever the subjects hold', () => {
    const xml = archiveFeed(account, [entry(2, 'Second <b>bold</b> & "quoted"\u0001'), entry(1, 'First')], 'https://mail.example');
    const feed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(xml);
    expect(feed.rss['@_version']).toBe('2.0');
    expect(feed.rss.channel).toMatchObject({ title: 'Tom & Jerry <News>', link: 'https://mail.example/archive/tom-jerry-news', description: 'Past e-mails from Tom & Jerry <News>' });
    const [second, first] = feed.rss.channel.item;
    expect(second).toMatchObject({ title: 'Second <b>bold</b> & "quoted"', link: 'https://mail.example/archive/tom-jerry-news/2', pubDate: 'Fri, 27 Nov 2026 09:05:00 GMT', description: 'Summary 2 & more' });
    expect(second.guid).toEqual({ '#text': 'https://mail.example/archive/tom-jerry-news/2', '@_isPermaLink': 'true' });
    expect(first.title).toBe('First');
  });

  it('the list page escapes subjects and names, links each entry and pages both ways', () => {
    const html = archiveListPage(account, [entry(5, '<script>alert(1)</script>')], 1, 3);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;');
    expect(html).toContain('Tom &#38; Jerry &#60;News&#62;');
    expect(html).toContain('href="/archive/tom-jerry-news/5"');
    expect(html).toContain('href="/archive/tom-jerry-news?page=0" rel="prev"');
    expect(html).toContain('href="/archive/tom-jerry-news?page=2" rel="next"');
    expect(archiveListPage(account, [], 0, 0)).not.toMatch(/rel="(prev|next)"/);
    expect(html).toContain('27 November 2026');
  });

  it('a text-only message is shown escaped in a page of its own', () => {
    const html = messagePage({ subject: 'S <x>', html: null, text: 'Hi <b>you</b>' });
    expect(html).toContain('Hi &#60;b&#62;you&#60;/b&#62;');
    expect(html).toContain('<title>S &#60;x&#62;</title>');
    expect(messagePage({ subject: 's', html: '<p>as is</p>', text: 't' })).toBe('<p>as is</p>');
  });
});
