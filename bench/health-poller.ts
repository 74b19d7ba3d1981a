/**
 * The /health prober of bench/runner-health.ts, run as its own process
 * (`node --import tsx bench/health-poller.ts <url> <connections> <pauseMs> <outFile>`) so it never
 * shares an event loop with the server it measures. Each connection sends GET <url>, waits for
 * the answer, pauses `pauseMs`, and again, until SIGTERM; then every sample is written to
 * `outFile` as JSON: [epoch ms when sent, latency ms, HTTP status, 0 for a failed request, or -1
 * for one still unanswered at the stop, with the time it had waited so far].
 *
 * Not autocannon (bench/load.ts): that runs for a fixed duration, and how long the runner takes
 * over its backlog is what is being measured; it also only reports percentiles, and the samples
 * are needed to keep only those sent while the backlog was under way. The pause keeps the prober
 * from taking a core of its own from the server on a 2-core machine.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';

const [url, connectionsArg, pauseArg, outFile] = process.argv.slice(2);
const connections = Number(connectionsArg);
const pauseMs = Number(pauseArg);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });

type Sample = [sentAt: number, latencyMs: number, status: number];
const samples: Sample[] = [];
const pending = new Set<{ sentAt: number; started: number }>();
let stopping = false;

function probe(): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
  });
}

async function loop(): Promise<void> {
  while (!stopping) {
    const entry = { sentAt: Date.now(), started: performance.now() };
    pending.add(entry);
    const status = await probe();
    pending.delete(entry);
    samples.push([entry.sentAt, performance.now() - entry.started, status]);
    if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
  }
}

process.once('SIGTERM', () => {
  stopping = true;
  const now = performance.now();
  for (const p of pending) samples.push([p.sentAt, now - p.started, -1]);
  writeFileSync(outFile, JSON.stringify(samples));
  process.exit(0);
});

for (let i = 0; i < connections; i++) void loop();
