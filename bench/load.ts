/**
 * The load generator, run as its own process (`node --import tsx bench/load.ts <spec.json>`) so it
 * never shares an event loop with the server under test. It drives autocannon's programmatic API
 * (the same engine as its CLI) because the CLI cannot post a unique body per request.
 * Prints one JSON object: autocannon's result plus the CPU time this process used.
 */
import autocannon, { type Request } from 'autocannon';
import { readFileSync } from 'node:fs';
import type { LoadSpec } from './lib/load-client.ts';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadSpec;

function requestsFor(s: LoadSpec): Request[] | undefined {
  if (s.paths) {
    // Static requests: autocannon builds each buffer once and cycles through them.
    return s.paths.map((path) => ({ method: 'GET', path }));
  }
  if (s.post) {
    const { path, emailPrefix, extra, idempotencyKeyPrefix } = s.post;
    let n = 0;
    return [
      {
        method: 'POST',
        path,
        // Called for every request (the closure is shared by all connections), so every e-mail is new.
        setupRequest: (req) => {
          const i = n++;
          const body = JSON.stringify({ email: `${emailPrefix}-${i}@bench.example`, ...extra });
          if (idempotencyKeyPrefix === undefined) return { ...req, body };
          return { ...req, body, headers: { ...req.headers, 'idempotency-key': `${idempotencyKeyPrefix}-${i}` } };
        },
      },
    ];
  }
  return undefined;
}

const instance = autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationSec,
  headers: spec.headers,
  requests: requestsFor(spec),
});
// autocannon builds every request of the list for every connection before it sends the first one
// (0.5 s for 1000 paths x 50 connections), yet counts that in its `duration`. The window that
// matters starts at its 'start' event, and so does the CPU time counted here.
let startedAt = Date.now();
let cpuBefore = process.cpuUsage();
instance.on('start', () => {
  startedAt = Date.now();
  cpuBefore = process.cpuUsage();
});
const result = await instance;
const cpu = process.cpuUsage(cpuBefore);
const measuredSec = (new Date(result.finish).getTime() - startedAt) / 1000;
process.stdout.write(JSON.stringify({ ...result, measuredSec, loadCpuSeconds: (cpu.user + cpu.system) / 1e6 }) + '\n');
