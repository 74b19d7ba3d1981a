import { analyzeSync, Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { mergeFieldsUsed, unknownMergeFields, unknownMergeFieldWarning, type MergeFieldPlace } from './merge-fields.ts';
import { LIQUID_OPTIONS } from './template-syntax.ts';

const parser = new Liquid(LIQUID_OPTIONS);
const used = (source: string) => mergeFieldsUsed(parser.parse(source));
const inUse = new Set(['company', 'plan']);
const unknown = (source: string, place: MergeFieldPlace = 'campaign') => unknownMergeFields(used(source), place, inUse);

describe('D26.7: the merge fields content uses', () => {
  it.each([
    ['a contact field, with a filter', '{{ first_name | default: "there" }}', ['first_name']],
    ['a custom field, by its key or under custom_fields', '{{ company }} {{ custom_fields.plan }}', ['company', 'custom_fields.plan']],
    ["an event's key, and the event whole", '{{ event.amount }} {{ event }}', ['event.amount', 'event']],
    ['a name in a tag', '{% if vip %}VIP{% endif %}', ['vip']],
    ["the template's own variables are not merge fields", '{% assign x = 1 %}{{ x }}{% capture y %}a{% endcapture %}{{ y }}{% for i in items %}{{ i.name }}{{ forloop.index }}{% endfor %}', ['items']],
    ['each once', '{{ email }}{{ email }}', ['email']],
    ['a key looked up by a variable: the root, and the variable', '{{ custom_fields[key] }}', ['custom_fields', 'key']],
    ['a range bound, a filter argument and a keyword argument', '{% for i in (1..n) %}{% endfor %}{{ a | default: b }}{{ c | default: 1, allow_false: d }}', ['n', 'a', 'b', 'c', 'd']],
    ["a loop's variable after the loop is a merge field again", '{% for item in items %}{% endfor %}{{ item }}', ['items', 'item']],
    ['an assign reading the name it makes reads the merge field first', '{% assign x = x | plus: 1 %}{{ x }}', ['x']],
    ['event.* in a condition', '{% if event.amount > 10 %}big{% endif %}', ['event.amount']],
    ['none in plain text', 'Hello', []],
  ])('%s', (_case, source, names) => {
    expect(used(source).sort()).toEqual([...names].sort());
  });

  // The walk is liquidjs's static analysis without its positions (see mergeFieldsUsed): on what it
  // reads, it agrees with analyzeSync's globals.
  it.each([
    '{{ a.b[c].d }} {% for x in list %}{{ x.y }}{% tablerow r in rows %}{{ r }}{{ tablerowloop.index }}{% endtablerow %}{% endfor %}',
    '{% capture c %}{{ inner }}{% endcapture %}{% increment n %}{{ n }}{% case kind %}{% when "a", other %}{{ z }}{% else %}{{ w }}{% endcase %}',
    '{% unless u %}{% cycle p, q %}{% endunless %}{% liquid\n assign k = v\n echo k | append: tail\n%}{{ "lit" | append: s }}',
  ])('agrees with liquidjs analyzeSync on %s', (source) => {
    const roots = Object.keys(analyzeSync(parser.parse(source), { partials: false }).globals).sort();
    expect(used(source).sort()).toEqual(roots);
  });
});

describe('D26.7: which merge fields nothing fills', () => {
  it.each<[string, string, MergeFieldPlace, string[]]>([
    ['a typo of a contact field', '{{ frist_name }} {{ first_name }}', 'campaign', ['frist_name']],
    ['every contact field is known', '{{ email }}{{ first_name }}{{ last_name }}{{ phone }}{{ custom_fields }}', 'campaign', []],
    ['every link is known', '{{ unsubscribe_url }}{{ preferences_url }}{{ webview_url }}', 'campaign', []],
    ['a custom field in use, either way', '{{ company }}{{ custom_fields.plan }}', 'template', []],
    ['a custom field no contact has, either way', '{{ nickname }}{{ custom_fields.nickname }}', 'campaign', ['nickname', 'custom_fields.nickname']],
    ['event.* in a campaign', '{{ event.amount }}', 'campaign', ['event.amount']],
    ['event.* in a starter template', '{{ event }}', 'template', ['event']],
    ['event.* in a workflow', '{{ event.amount }}{{ event }}', 'workflow', []],
    ["a layout's slot in a layout", '{{ content }}', 'layout', []],
    ['the slot anywhere else', '{{ content }}', 'campaign', ['content']],
  ])('%s (%s, %s)', (_case, source, place, names) => {
    expect(unknown(source, place)).toEqual(names);
  });

  it('the warning names the field, and says why an event field is empty', () => {
    expect(unknownMergeFieldWarning('frist_name')).toMatch(/\{\{ frist_name \}\} is unknown/);
    expect(unknownMergeFieldWarning('event.x')).toMatch(/\{\{ event\.x \}\}.*workflow/);
  });
});
