import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/time.ts';
import {
  CUSTOM_FIELD_DEFINITION_LIMITS,
  definitionKey,
  definitionLabel,
  toCustomFieldDefinition,
  type CustomFieldDefinition,
  type CustomFieldDefinitionInput,
} from './custom-field-definition.ts';
import * as repo from './custom-field-definitions.repo.ts';

/**
 * Issue 34 item 13: the account's custom field definitions (type, label, editable by the contact).
 * A key names a field the account's contacts may hold already, so a PUT makes or changes each
 * definition it gives: there is nothing to create first.
 */
export class CustomFieldDefinitionService {
  constructor(private readonly handle: DbHandle) {}

  async list(accountId: number): Promise<CustomFieldDefinition[]> {
    return (await repo.definitionsOf(this.handle.db, accountId)).map(toCustomFieldDefinition);
  }

  /** The definitions the preference centre offers the contact to edit. */
  async editable(accountId: number): Promise<CustomFieldDefinition[]> {
    return (await repo.definitionsOf(this.handle.db, accountId, { editableOnly: true })).map(toCustomFieldDefinition);
  }

  /** Each given made or changed (omitted `label` and `editable_by_contact` kept; new: none, not editable), in one transaction; answers all. */
  async put(acting: ActingContext, accountId: number, inputs: CustomFieldDefinitionInput[]): Promise<CustomFieldDefinition[]> {
    const seen = new Set<string>();
    const checked = inputs.map((input, i) => {
      const key = definitionKey(input.key, `custom_fields[${i}].key`);
      if (seen.has(key)) throw new ValidationError(`custom_fields[${i}].key: ${key} appears more than once`);
      seen.add(key);
      return { key, type: input.type, label: definitionLabel(input.label, `custom_fields[${i}].label`), editable: input.editable_by_contact === undefined ? undefined : input.editable_by_contact ? 1 : 0 };
    });
    const save = () =>
      this.handle.db.transaction().execute(async (trx) => {
        const now = nowIso();
        for (const d of checked) {
          if (await repo.findDefinition(trx, accountId, d.key)) {
            await repo.updateDefinition(trx, accountId, d.key, { type: d.type, label: d.label, editable_by_contact: d.editable, updated_at: now });
            continue;
          }
          if (Number((await repo.countDefinitions(trx, accountId)).n) >= CUSTOM_FIELD_DEFINITION_LIMITS.definitionsMax) {
            throw new ValidationError(`an account has at most ${CUSTOM_FIELD_DEFINITION_LIMITS.definitionsMax} custom field definitions`);
          }
          await repo.insertDefinition(trx, { account_id: accountId, key: d.key, type: d.type, label: d.label ?? null, editable_by_contact: d.editable ?? 0, created_at: now, updated_at: now });
        }
        // D24.8: one entry per request, as a list's member additions are recorded.
        await recordAudit(trx, acting, accountId, 'custom_fields.updated', null);
      });
    try {
      await save();
    } catch (err) {
      // Two first PUTs of one key at once: the second meets the first's row, and updates it.
      if (!isUniqueViolation(err)) throw err;
      await save();
    }
    return this.list(accountId);
  }
}
