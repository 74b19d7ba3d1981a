/**
 * The suite's timing report, from Vitest's JSON reporter (`.ci/run` writes it):
 *   node --import tsx scripts/test-timings.ts <vitest-report.json> [timings.json]
 * prints the wall time and the 20 slowest file runs, and writes every file run's duration,
 * slowest first, to the second path. docs/TESTING.md keeps a recent list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

interface VitestFileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
  assertionResults: { status: string; fullName?: string }[];
}

interface VitestReport {
  startTime: number;
  success: boolean;
  numTotalTests: number;
  testResults: VitestFileResult[];
}

const [reportPath, outPath] = process.argv.slice(2);
if (!reportPath) {
  console.error('usage: test-timings.ts <vitest-report.json> [timings.json]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestReport;
const files = report.testResults
  .map((file) => ({ file: relative(process.cwd(), file.name), seconds: Math.round((file.endTime - file.startTime) / 100) / 10, tests: file.assertionResults.length, status: file.status }))
  .sort((a, b) => b.seconds - a.seconds);
const end = Math.max(...report.testResults.map((file) => file.endTime));
const timings = {
  wallSeconds: Math.round((end - report.startTime) / 1000),
  fileRuns: files.length,
  tests: report.numTotalTests,
  fileSecondsSum: Math.round(files.reduce((sum, file) => sum + file.seconds, 0)),
  files,
};
if (outPath) writeFileSync(outPath, `${JSON.stringify(timings, null, 2)}\n`);
console.log(`tests: ${timings.tests} in ${timings.fileRuns} file runs, ${timings.wallSeconds} s of wall time (${timings.fileSecondsSum} s summed over files)`);
console.log('the 20 slowest file runs:');
for (const file of files.slice(0, 20)) console.log(`${String(file.seconds).padStart(7)} s  ${file.file} (${file.tests} tests)`);
