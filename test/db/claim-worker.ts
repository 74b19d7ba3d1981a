// A sender stand-in for claim.test.ts: claims batches until none are left and prints the ids it got.
import { connect } from '../../src/db/connect.ts';
import { claimRecipients } from '../../src/domain/campaigns/recipients.repo.ts';

const handle = connect({ databaseUrl: process.env.DATABASE_URL || null, dataDir: process.env.DATA_DIR! });
const claimed: number[] = [];
// Both workers start claiming at the same instant, so they really contend for the same rows.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(process.env.START_AT) - Date.now())));
const leaseUntil = new Date(Date.now() + 3_600_000).toISOString();
for (;;) {
  const rows = await claimRecipients(handle.db, handle.dialect, { limit: 7, now: new Date().toISOString(), leaseUntil });
  if (rows.length === 0) break;
  claimed.push(...rows.map((r) => r.id));
}
await handle.close();
process.stdout.write(JSON.stringify(claimed) + '\n');
