import { grants } from '../domain/api-keys/permissions.ts';
import type { RequestAuth } from './route.ts';

/**
 * Whether the caller may make the service mail people (`campaigns.send`): issue 14 L3's workflows
 * with a SEND_EMAIL step, issue 28 M2's own confirmation words of a list. A key and a session
 * (its role's permissions, D24.1) are asked alike.
 */
export const maySendMail = (auth: RequestAuth): boolean => grants(auth.permissions, ['campaigns.send']);
