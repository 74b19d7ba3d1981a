import type { RemoteInfo } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { createUDPServer, Packet } from 'dns2';

/**
 * A DNS server (for DNS_SERVERS) that answers every question "no such name", or, while held,
 * keeps its answers back until released: a request that looks names up (a domain's verification)
 * then runs for as long as a test needs it to, with no timing involved.
 */
export interface GatedDnsServer {
  address: string;
  /** keep answers back from now on */
  hold(): void;
  /** resolves once a question has come in while held */
  asked(): Promise<void>;
  /** whether questions from at least `clients` source ports are held */
  askedBy(clients: number): Promise<boolean>;
  /** answer what was kept back, and every question from now on */
  release(): void;
  close(): Promise<void>;
}

const NXDOMAIN = 3;

export async function startGatedDnsServer(): Promise<GatedDnsServer> {
  let held: (() => void)[] | null = null;
  const askers = new Set<string>();
  let onAsked: (() => void) | null = null;
  const server = createUDPServer((request, send, rinfo) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.rcode = NXDOMAIN;
    const answer = () => void send(response);
    if (held === null) return answer();
    held.push(answer);
    // A process's resolver asks from one socket: its port tells the processes apart.
    const from = rinfo as RemoteInfo;
    askers.add(`${from.address}:${from.port}`);
    onAsked?.();
  });
  await server.listen(0, '127.0.0.1');
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold: () => void (held ??= []),
    askedBy: async (clients) => askers.size >= clients,
    asked: () => new Promise<void>((resolve) => (held && held.length > 0 ? resolve() : (onAsked = resolve))),
    release() {
      const waiting = held ?? [];
      held = null;
      onAsked = null;
      askers.clear();
      for (const answer of waiting) answer();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
