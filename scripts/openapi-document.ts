/**
 * The served OpenAPI document (GET /api/v1/openapi.json), made by building the app over a scratch
 * SQLite database, exactly as a running server serves it. Fixed settings keep it the same on every
 * machine (its `servers` entry is PUBLIC_URL's default), so the committed client can be compared.
 *   node --import tsx scripts/openapi-document.ts [out.json]   (stdout without a file)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core.ts';

export async function servedDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sendwell-openapi-'));
  const config = loadConfig({ DATA_DIR: dataDir, SECRET: 'openapi-document', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '3000' });
  const core = await createCore(config, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(core);
  try {
    const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await app.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = `${JSON.stringify(await servedDocument(), null, 2)}\n`;
  if (process.argv[2]) writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
}
