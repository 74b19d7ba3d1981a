import type { Db } from '../../db/connect.ts';
import { ValidationError } from '../shared/errors.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { insertAccount } from './accounts.repo.ts';
import { isPlan, PLANS, type Plan } from './plans.ts';

export interface Account {
  id: number;
  name: string;
  plan: Plan;
  created_at: string;
}

export async function createAccount(db: Db, input: { name: string; plan?: string }): Promise<Account> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 255) throw new ValidationError('name must be 1-255 characters');
  const plan = input.plan ?? 'free';
  if (!isPlan(plan)) throw new ValidationError(`plan must be one of ${PLANS.join(', ')}`);
  const row = await insertAccount(db, { name, plan, created_at: nowIso() });
  return { id: row.id, name: row.name, plan, created_at: toApiTimestamp(row.created_at) };
}
