/** The dashboard's segment builder model (web/src/segment-builder.ts): what it offers and what it sends (D18). */
import { describe, expect, it } from 'vitest';
import { parseSegmentFilter } from '../../src/domain/segments/segment-filter.ts';
import { fieldOptions, fromFilter, kindOf, newCondition, opsFor, toFilter, updateNode } from './segment-builder.ts';

const options = fieldOptions([
  { key: 'plan', types: ['string'] },
  { key: 'seats', types: ['number'] },
  { key: 'trial', types: ['boolean'] },
  { key: 'mixed', types: ['number', 'string'] },
]);

describe('segment builder model', () => {
  it("offers each custom field by the type of its values, and only the server's operators for it", () => {
    expect(kindOf('custom_fields.seats', options)).toBe('custom_number');
    expect(kindOf('custom_fields.mixed', options)).toBe('custom_any');
    expect(kindOf('custom_fields.unseen', options)).toBe('custom_any');
    expect(opsFor('custom_boolean')).toEqual(['eq', 'neq', 'exists', 'not_exists']);
    expect(opsFor(kindOf('campaign.opened', options))).toEqual(['eq']);
  });

  it('every new condition, whatever its field, makes a filter the server accepts', () => {
    for (const option of options) {
      const filter = toFilter({ kind: 'group', id: 0, mode: 'all', negate: false, children: [{ ...newCondition(option.value, options), ...(option.kind === 'event' ? { event: 'purchase' } : {}), ...(option.kind === 'lists' ? { value: 1 } : {}), ...(option.kind === 'tags' ? { value: 'vip' } : {}) }] }, options);
      expect(() => parseSegmentFilter(filter), option.value).not.toThrow();
    }
  });

  it('types what is typed: numbers stay numbers, list ids become ids, a custom field of any type reads true/false and numbers', () => {
    const seats = { ...newCondition('custom_fields.seats', options), op: 'gt', value: '5' };
    const mixed = { ...newCondition('custom_fields.mixed', options), op: 'in', value: ['7', 'true', 'x'] };
    const lists = { ...newCondition('lists', options), op: 'in', value: ['3', '4'] };
    expect(toFilter({ kind: 'group', id: 0, mode: 'any', negate: true, children: [seats, mixed, lists] }, options)).toEqual({
      not: {
        any: [
          { field: 'custom_fields.seats', op: 'gt', value: 5 },
          { field: 'custom_fields.mixed', op: 'in', value: [7, true, 'x'] },
          { field: 'lists', op: 'in', value: [3, 4] },
        ],
      },
    });
  });

  it('a saved filter opens as the same form and saves back unchanged', () => {
    const saved = {
      any: [
        { field: 'tags', op: 'contains', value: 'vip' },
        { not: { all: [{ field: 'custom_fields.plan', op: 'eq', value: 'pro' }, { field: 'campaign.clicked', op: 'eq', value: false, campaign_id: 4, within_days: 30 }] } },
        { field: 'event', op: 'eq', value: true, event: 'purchase' },
      ],
    };
    expect(toFilter(fromFilter(saved), options)).toEqual(saved);
    // A lone condition, or a negated one, opens inside a group.
    expect(toFilter(fromFilter({ field: 'email', op: 'exists' }), options)).toEqual({ all: [{ field: 'email', op: 'exists' }] });
    expect(toFilter(fromFilter({ not: { field: 'email', op: 'exists' } }), options)).toEqual({ not: { all: [{ field: 'email', op: 'exists' }] } });
  });

  it('edits and removes nodes anywhere in the tree', () => {
    const root = fromFilter({ all: [{ field: 'email', op: 'exists' }, { any: [{ field: 'phone', op: 'exists' }] }] });
    const inner = (root.children[1] as any).children[0];
    const removed = updateNode(root, inner.id, () => null);
    // The emptied group is left out of what is sent.
    expect(toFilter(removed, options)).toEqual({ all: [{ field: 'email', op: 'exists' }] });
  });
});
