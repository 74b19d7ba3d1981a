/** The reference success and error forms of /api/v1 (D4, D7), checked whole. */
import { expect } from 'vitest';
import type { ApiResponse } from './server.ts';

/** D4: writes are 200 with a message. */
export function expectWritten(res: ApiResponse, data: unknown) {
  expect(res.status, res.text).toBe(200);
  expect(res.body).toStrictEqual({ success: true, data, message: expect.any(String) });
  expect(res.body.message.length).toBeGreaterThan(0);
}

/** D4: reads are 200 without a message. */
export function expectRead(res: ApiResponse, data: unknown) {
  expect(res.status, res.text).toBe(200);
  expect(res.body).toStrictEqual({ success: true, data });
  expect('message' in res.body).toBe(false);
}

/** D7: the reference error form; `names` must appear in the message when given. */
export function expectError(res: ApiResponse, status: number, code: string, names?: string | RegExp) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toStrictEqual({ success: false, error: { code, message: expect.any(String) } });
  if (names !== undefined) expect(res.body.error.message).toMatch(names);
}
