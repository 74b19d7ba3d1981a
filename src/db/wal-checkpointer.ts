import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * How often the checkpoint thread copies the WAL's committed pages into the database file. Half a
 * second keeps the WAL to what half a second of writes makes (a bulk import's few megabytes), and
 * a checkpoint with nothing to copy costs the thread a few microseconds.
 */
export const CHECKPOINT_EVERY_MS = 500;

/**
 * The thread's code. It is small, and plain JavaScript on purpose: it runs the same from the
 * TypeScript sources (tests) and from the bundle (bin/sendwell), with no loader to set up.
 * PASSIVE never waits: it copies what no reader still needs and leaves the rest for next time, so
 * neither the server's writes nor a read process's long read ever wait for it, nor it for them.
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage({ error: String(err && err.message || err) }); }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage({ closed: true });
});
`;

/**
 * Checkpoints an SQLite database's write-ahead log on a thread of its own (issue 28, noisy
 * neighbour). SQLite's automatic checkpoint runs inside whichever COMMIT pushes the WAL past 1,000
 * pages: on the server's one HTTP thread, as a synchronous copy of 4 MB or more of pages. Under
 * one account's write load it stalled a commit for 436 ms (bench/RESULTS.md), and every request of
 * every account with it. The owner turns automatic checkpoints off on its connection
 * (`wal_autocheckpoint = 0`) and lets this thread do them.
 */
export class WalCheckpointer {
  private constructor(private readonly worker: Worker) {}

  static start(file: string, onError: (message: string) => void, everyMs = CHECKPOINT_EVERY_MS): WalCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(THREAD_CODE, { eval: true, workerData: { file, driver, everyMs }, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    worker.unref(); // never what keeps a process alive
    worker.on('message', (m: { error?: string }) => {
      if (m.error) onError(m.error);
    });
    worker.on('error', (err) => onError(err.message));
    return new WalCheckpointer(worker);
  }

  /** A last checkpoint, then the thread's connection closes; resolves when it has (or the thread is gone). */
  async close(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      this.worker.on('message', (m: { closed?: boolean }) => m.closed && resolve());
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage('close');
    await done;
    await this.worker.terminate();
  }
}
