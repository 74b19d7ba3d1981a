import { describe, expect, it } from 'vitest';
import { csrfProblem, isSameOrigin, type CsrfInput } from './csrf.ts';

const base: CsrfInput = {
  method: 'POST',
  origin: undefined,
  host: 'localhost:3000',
  publicUrl: 'https://mail.example.com',
  token: 'tok',
  expected: 'tok',
};

describe('CSRF check for session requests', () => {
  it('lets reads through without a token', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(csrfProblem({ ...base, method, token: undefined })).toBeNull();
  });

  it('needs the session token on every state-changing method', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(csrfProblem({ ...base, method })).toBeNull();
      expect(csrfProblem({ ...base, method, token: undefined })).toMatch(/X-CSRF-Token/);
      expect(csrfProblem({ ...base, method, token: 'other' })).toMatch(/X-CSRF-Token/);
      expect(csrfProblem({ ...base, method, token: ['tok', 'tok'] })).toMatch(/X-CSRF-Token/);
    }
  });

  it('refuses another site even with the right token', () => {
    expect(csrfProblem({ ...base, origin: 'https://evil.example' })).toMatch(/Origin/);
    expect(csrfProblem({ ...base, origin: 'null' })).toMatch(/Origin/);
  });

  it('accepts the Origin of the host reached or of PUBLIC_URL', () => {
    expect(isSameOrigin('http://localhost:3000', 'localhost:3000', base.publicUrl)).toBe(true);
    expect(isSameOrigin('https://mail.example.com', 'internal:8080', base.publicUrl)).toBe(true);
    expect(isSameOrigin('https://mail.example.com.evil.example', 'localhost:3000', base.publicUrl)).toBe(false);
    expect(isSameOrigin(undefined, 'localhost:3000', base.publicUrl)).toBe(true);
  });
});
