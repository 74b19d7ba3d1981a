import { describe, expect, it } from 'vitest';
import { rateStopReason } from './rate-stop.ts';

// D23: the automatic stop's rule, spelled out.
describe('rateStopReason', () => {
  it.each([
    ['fewer than 100 sent: never', { sent: 99, bounced: 99, complained: 99 }, null],
    ['100 sent, 8 bounced: exactly 8% does not pass it', { sent: 100, bounced: 8, complained: 0 }, null],
    ['100 sent, 9 bounced', { sent: 100, bounced: 9, complained: 0 }, 'bounce rate 9.0% over the latest 100 messages (the limit is 8%)'],
    ['500 sent, 60 bounced', { sent: 500, bounced: 60, complained: 0 }, 'bounce rate 12.0% over the latest 500 messages (the limit is 8%)'],
    ['500 sent, 1 complaint: 0.2%', { sent: 500, bounced: 0, complained: 1 }, null],
    ['500 sent, 2 complaints: 0.4%', { sent: 500, bounced: 0, complained: 2 }, 'complaint rate 0.40% over the latest 500 messages (the limit is 0.3%)'],
    ['issue 28: 150 sent, 1 reporter: 0.67%, but one reporter never stops it alone', { sent: 150, bounced: 0, complained: 1 }, null],
    ['150 sent, 2 reporters: 1.33%', { sent: 150, bounced: 0, complained: 2 }, 'complaint rate 1.33% over the latest 150 messages (the limit is 0.3%)'],
    ['both: the bounce rate is named', { sent: 200, bounced: 40, complained: 5 }, 'bounce rate 20.0% over the latest 200 messages (the limit is 8%)'],
  ])('%s', (_name, outcomes, reason) => {
    expect(rateStopReason(outcomes)).toBe(reason);
  });
});
