/**
 * A retention sweep run now and then every `everyMs` (D24.8's audit log): one run at a time, a
 * failure logged and tried again at the next turn, and `stop` waits for a run under way.
 */
export class PeriodicSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly sweep: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.runOnce();
    this.timer = setInterval(() => this.runOnce(), this.everyMs);
    this.timer.unref();
  }

  /** Runs a sweep now unless one is under way; resolves when it is done (errors go to onError). */
  runOnce(): Promise<void> {
    this.running ??= this.sweep()
      .then(() => undefined, this.onError)
      .finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
