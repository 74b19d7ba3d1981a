/**
 * `npm run lint:api`: the served OpenAPI document (D17.8) through Redocly's `recommended` rules
 * (redocly.yaml) and Spectral's `spectral:oas` (.spectral.yaml). Fails when either reports an error;
 * warnings are printed. Both run offline: no telemetry, no update check.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedDocument } from './openapi-document.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

const dir = mkdtempSync(join(tmpdir(), 'sendwell-lint-api-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await servedDocument(), null, 2));
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' };
  const run = (label: string, command: string, args: string[]) => {
    console.log(`\n== ${label}`);
    const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
    return result.status === 0;
  };
  const redocly = run('Redocly (recommended, redocly.yaml)', bin('redocly'), ['lint', file, '--config', join(root, 'redocly.yaml'), '--format=stylish']);
  const spectral = run('Spectral (spectral:oas, .spectral.yaml)', bin('spectral'), ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--fail-severity=error']);
  if (!redocly || !spectral) {
    console.error(`\nlint:api failed:${redocly ? '' : ' Redocly'}${spectral ? '' : ' Spectral'} reported errors in the served OpenAPI document`);
    process.exitCode = 1;
  } else console.log('\nlint:api: Redocly and Spectral report no errors');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
