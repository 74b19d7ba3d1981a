import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { createUDPServer, Packet } from 'dns2';

/**
 * A DNS server for tests (D23), UDP on 127.0.0.1: it answers TXT questions from records each test
 * sets, and NXDOMAIN for any other name. The API reaches it through DNS_SERVERS; an independent
 * checker (mailauth's DKIM verifier) through `resolver`.
 *
 *   const dns = await startDnsServer();
 *   const server = await startTestServer({ DNS_SERVERS: dns.address });
 *   dns.setTxt('sel._domainkey.example.test', 'v=DKIM1; k=rsa; p=...');
 */
export interface TestDnsServer {
  /** `127.0.0.1:port`, as DNS_SERVERS takes it */
  address: string;
  /** replaces the TXT records at `name` (none: removes them) */
  setTxt(name: string, ...values: string[]): void;
  /** forgets every record */
  clear(): void;
  /** node's resolver, asking this server only */
  resolver: Resolver;
  close(): Promise<void>;
}

/** RFC 1035 4.1.1: no such name (dns2 has Packet.RCODE, which its types leave out). */
const NXDOMAIN = 3;

/** A TXT value as DNS carries it: strings of at most 255 bytes (a DKIM key needs two). */
const characterStrings = (value: string) => value.match(/[\s\S]{1,255}/g) ?? [''];

export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const server = createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    const values = records.get(name);
    if (!values) response.header.rcode = NXDOMAIN;
    else if (question.type === Packet.TYPE.TXT) {
      for (const value of values) response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data: characterStrings(value) } as never);
    }
    send(response);
  });
  await server.listen(0, '127.0.0.1');
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resolver = new Resolver({ timeout: 1_000, tries: 2 });
  resolver.setServers([address]);
  return {
    address,
    setTxt(name, ...values) {
      if (values.length === 0) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), values);
    },
    clear: () => records.clear(),
    resolver,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
