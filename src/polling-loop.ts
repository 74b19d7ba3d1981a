/**
 * The loop of a background worker (the campaign dispatcher, the automation runner): runs `round`
 * again at once while it finds work, and after `pollMs` when it found none. `stop()` cuts the
 * pause short and resolves once the round in progress has finished.
 */
export class PollingLoop {
  private running = false;
  private stopRequested = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    /** one round of work; returns how much it handled (0: nothing to do, so pause) */
    private readonly round: () => Promise<number>,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * True from `stop()` until the next `start()`: a round in progress checks it to give back work
   * it has not started. (A round run directly, without `start()`, is not stopping.)
   */
  get stopping(): boolean {
    return this.stopRequested;
  }

  start(): void {
    this.stopRequested = false;
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.round();
      } catch (err) {
        this.onError(err);
      }
      if (handled === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }
}
