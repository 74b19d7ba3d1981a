import { describe, expect, it } from 'vitest';
import { LiquidShield, replaceLiquid } from './liquid-shield.ts';

/** What replaceLiquid replaces: the pattern it stands for, which backtracks (issue 28 C1). */
const PATTERN = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;
const TAGS_ONLY = /\{%[\s\S]*?%\}/g;

describe('replaceLiquid (issue 28 C1)', () => {
  it('replaces what the lazy pattern matched, on hand-picked and on random text', () => {
    const picked = ['', 'plain', '{{ a }}', '{% if a %}x{% endif %}', '{{ a', 'a }}{{', '{%}%}', '{{}}', '{{%}}', '{%{{%}}}', '}}{{ x', '{{ {% }} %}', '{{ a }} {% b', '{% b {{ a }}', 'x{{y{{z}}w}}v'];
    const alphabet = ['{', '}', '%', 'a', ' '];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const generated = Array.from({ length: 3000 }, () => Array.from({ length: Math.floor(random() * 14) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
    for (const text of [...picked, ...generated]) {
      expect(replaceLiquid(text, (tag) => `<${tag}>`), text).toBe(text.replace(PATTERN, (tag) => `<${tag}>`));
      expect(replaceLiquid(text, (tag) => `<${tag}>`, true), text).toBe(text.replace(TAGS_ONLY, (tag) => `<${tag}>`));
    }
  });

  it('reads 250 KB of unclosed openers in one pass', () => {
    const text = '}}%}' + '{{{%'.repeat(64_000);
    expect(replaceLiquid(text, () => 'x')).toBe(text);
  });
});

describe('LiquidShield', () => {
  it('hides and restores; an output a converter upper-cased is upper-cased when rendered, its closing dash and spaces dropped', () => {
    const shield = new LiquidShield();
    const source = '<p>{{ name -}} and {{ b }} and {{ c  -  }} {% if x %}y{% endif %}</p>';
    const hidden = shield.hide(source);
    expect(hidden).not.toMatch(/\{\{|\{%/);
    expect(shield.restore(hidden)).toBe(source);
    expect(shield.restoreInOrder(hidden.toUpperCase())).toBe('<P>{{ name | upcase }} AND {{ b | upcase }} AND {{ c  - | upcase }} {% if x %}Y{% endif %}</P>');
  });
});
