import { parentPort } from 'node:worker_threads';
import { WARM, type BounceParseTask } from './bounce-parse-thread.ts';
import { parseBounceMessage, type BounceMessage } from './bounce-report.ts';

/** A small delivery status notification, parsed once as the thread starts. */
const SAMPLE = [
  'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
  '',
  '--b',
  'Content-Type: message/delivery-status',
  '',
  'Reporting-MTA: dns; mx.example.org',
  '',
  'Final-Recipient: rfc822; someone@example.org',
  'Action: failed',
  'Status: 5.1.1',
  '',
  '--b--',
  '',
].join('\r\n');

// Done as the thread starts, before it takes a message: the time limit counts parsing the
// message, not loading mailparser or compiling its code on a first run.
await parseBounceMessage(Buffer.from(SAMPLE));
parentPort?.postMessage(WARM);

/** Issue 28: parses a received bounce message on a thread of its own, which is ended if it takes too long. */
export default async function parse(task: BounceParseTask): Promise<BounceMessage> {
  task.started.postMessage('started');
  task.started.close();
  return parseBounceMessage(Buffer.from(task.source.buffer, task.source.byteOffset, task.source.byteLength));
}
