/**
 * An account (or one more key on it) with a client that calls the API under its key, for suites
 * where every test uses an account of its own.
 */
import type { ApiResponse, TestServer } from './server.ts';

export interface Client {
  accountId: number;
  key: string;
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
}

/** `server` is read on each call, so a suite may start its server in beforeAll. */
export function accountClients(server: () => TestServer) {
  const clientFor = (accountId: number, key: string): Client => ({ accountId, key, call: (method, path, body) => server().request(method, path, { key, body }) });

  /** A new account with a key holding `permissions`. */
  async function newAccount(permissions: string[] = ['*']): Promise<Client> {
    const { accountId, key } = await server().createAccountWithKey(permissions);
    return clientFor(accountId, key);
  }

  /** A key with other permissions on an existing account. */
  async function keyFor(client: Client, permissions: string[]): Promise<Client> {
    const { key } = await server().createKey(client.accountId, permissions);
    return clientFor(client.accountId, key);
  }

  return { newAccount, keyFor };
}
