import type { ActorType } from '../shared/actor.ts';

/**
 * D24.8: the audit log's entries, as the API shows them. Pure: the schemas and the dashboard
 * import it. An entry names its target by type and id only, so it never holds an address, a
 * secret or a token; the actor's label is a user's e-mail or a key's name.
 */
export const AUDIT_ACTIONS = [
  'auth.signed_in',
  'auth.sign_in_failed',
  'auth.signed_out',
  'auth.password_changed',
  'auth.password_reset',
  'auth.totp_enabled',
  'auth.totp_disabled',
  'auth.session_ended',
  'member.invited',
  'member.invitation_resent',
  'member.invitation_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'api_key.created',
  'api_key.updated',
  'api_key.regenerated',
  'api_key.deactivated',
  'api_key.activated',
  'api_key.revoked',
  'api_key.deleted',
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
  'contact.resubscribed',
  'contact.deleted',
  'contact.erased',
  'contacts.imported',
  'list.created',
  'list.updated',
  'list.deleted',
  'list.contacts_added',
  'list.contacts_removed',
  'segment.created',
  'segment.updated',
  'segment.deleted',
  'suppression.added',
  'suppression.removed',
  'suppressions.imported',
  'form.created',
  'form.updated',
  'form.deleted',
  // issue 34: custom field definitions made or changed (type, label, editable by the contact)
  'custom_fields.updated',
  'template.created',
  'template.updated',
  'template.deleted',
  'media.uploaded',
  'media.deleted',
  // an upload whose file could not be written: its reservation (and media.uploaded entry) is undone
  'media.upload_failed',
  'campaign.created',
  'campaign.updated',
  'campaign.scheduled',
  'campaign.unscheduled',
  'campaign.test_sent',
  'campaign.sent',
  'campaign.retried',
  // issue 34
  'campaign.paused',
  'campaign.resumed',
  'campaign.cancelled',
  'campaign.deleted',
  'message.canceled',
  'automation.created',
  'automation.updated',
  'automation.deleted',
  'automation.activated',
  'automation.deactivated',
  'automation.stopped',
  'domain.created',
  'domain.updated',
  'domain.verified',
  'domain.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'webhook.deleted',
  'account.created',
  'account.plan_changed',
  'account.updated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = [
  'user',
  'invitation',
  'session',
  'api_key',
  'contact',
  'import',
  'list',
  'segment',
  'suppression',
  'form',
  'template',
  'media',
  'campaign',
  'message',
  'automation',
  'domain',
  'webhook',
  'account',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export interface AuditTarget {
  type: AuditTargetType;
  id: string | number;
}

export const ACTOR_TYPES: readonly ActorType[] = ['user', 'api_key', 'system'];

export interface AuditEntry {
  id: number;
  at: string;
  actor: { type: ActorType; id: string | null; label: string | null };
  action: string;
  target: { type: string; id: string } | null;
  ip: string | null;
  user_agent: string | null;
}

/** D24.8: how long entries are kept when AUDIT_RETENTION_DAYS is not set. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** Browsers' User-Agent headers can be long; the log keeps the first 512 characters. */
export const USER_AGENT_MAX = 512;
