// A sender stand-in for claim.test.ts: claims batches until none are left and prints the ids it got.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/db/connect.ts';
import { claimRecipients } from '../../src/domain/campaigns/recipients.repo.ts';

const handle = connect({ databaseUrl: process.env.DATABASE_URL || null, dataDir: process.env.DATA_DIR! });
const claimed: number[] = [];
// Both workers start claiming together, so they really contend for the same rows: each says it is
// ready in BARRIER_DIR and waits for the other. (A start time fixed in advance was missed by a
// worker slow to start on a busy machine, and the other claimed every row alone.)
const barrier = process.env.BARRIER_DIR!;
writeFileSync(join(barrier, String(process.pid)), '');
while (readdirSync(barrier).length < Number(process.env.WORKERS)) await new Promise((resolve) => setTimeout(resolve, 5));
const leaseUntil = new Date(Date.now() + 3_600_000).toISOString();
for (;;) {
  const rows = await claimRecipients(handle.db, handle.dialect, { limit: 7, now: new Date().toISOString(), leaseUntil });
  if (rows.length === 0) break;
  claimed.push(...rows.map((r) => r.id));
}
await handle.close();
process.stdout.write(JSON.stringify(claimed) + '\n');
