import { createPrivateKey } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import type { DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { fromDomainOf, type DkimSigningKey } from '../domain/domains/sending-domain.ts';
import { findSigningKey } from '../domain/domains/sending-domains.repo.ts';

/**
 * D23: mail whose From domain (any case) is a sending domain of its account with a verified DKIM
 * record is signed with that domain's key. Looked up once per render request (a chunk of a
 * campaign's batch, a test send, an automation message), not per message.
 */
export class DkimKeys {
  constructor(private readonly handle: DbHandle) {}

  async forCampaign(campaign: Pick<CampaignRow, 'account_id' | 'from_email'>): Promise<DkimSigningKey | undefined> {
    const domain = fromDomainOf(campaign.from_email);
    if (domain === null) return undefined;
    const key = await findSigningKey(this.handle.db, campaign.account_id, domain);
    return key && { domainName: key.domain, keySelector: key.selector, privateKey: key.dkim_private_key };
  }
}

/**
 * nodemailer's own signer (relaxed/relaxed, sha256) for one key; the PEM is parsed here once, so a
 * batch's messages each pay for the RSA signature alone.
 */
export function dkimSigner(key: DkimSigningKey): DKIM {
  return new DKIM({ domainName: key.domainName, keySelector: key.keySelector, privateKey: createPrivateKey(key.privateKey) });
}
