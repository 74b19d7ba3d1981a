/** What bench/run.ts hands every benchmark. */
export interface BenchContext {
  repoDir: string;
  /** a fresh temporary directory for this benchmark; removed after the run */
  workDir: string;
  /** measured seconds per scenario */
  durationSec: number;
  /** the measured seconds are cut into this many rounds, the scenarios taking turns (default 1) */
  rounds?: number;
  warmupSec: number;
  connections: number;
  /** run the server under `node --cpu-prof` and print its hot spots (figures are then not recorded) */
  profile: boolean;
  log(message: string): void;
}

/** What a benchmark hands back: its RESULTS.md section, and whether its target was met. */
export interface BenchReport {
  id: string;
  markdown: string;
  targetMet: boolean;
}

export type Benchmark = (ctx: BenchContext) => Promise<BenchReport>;
