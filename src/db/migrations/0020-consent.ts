import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 28, rule 4 (consent is not optional plumbing).
 * - `contacts.awaiting_confirmation` (0/1), M3: 1 while the contact exists only because someone
 *   asked for a double opt-in subscription on its address and the person has not confirmed. D11
 *   and D20 keep such a contact's `status` SUBSCRIBED, so this flag is what keeps it out of every
 *   audience, automation message and segment's SUBSCRIBED. Every existing contact was made by the
 *   API, an import or an event, or has confirmed: 0.
 * - `lists.confirmation_from_email`, M2: the address at one of the account's verified sending
 *   domains (D23) that a list's own confirmation subject and text are sent from; without it (or
 *   with the domain no longer verified) the fixed confirmation mail goes, from MAIL_FROM.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('contacts').addColumn('awaiting_confirmation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('lists').addColumn('confirmation_from_email', 'text').execute();
}
