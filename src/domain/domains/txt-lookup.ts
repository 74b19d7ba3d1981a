import { Resolver } from 'node:dns/promises';

/** The TXT records at a name, each one's strings joined (a DKIM key is longer than one 255-byte string). */
export type TxtLookup = (name: string) => Promise<string[]>;

/**
 * D23: verification's resolver: the system's, or DNS_SERVERS when set. Nothing published (no such
 * name, no TXT there) and a server that does not answer alike read as no records: verification
 * says what it found, and finding nothing is an answer, not an error.
 */
export function txtLookup(servers: string[] | null): TxtLookup {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  if (servers) resolver.setServers(servers);
  return async (name) => {
    try {
      return (await resolver.resolveTxt(name)).map((strings) => strings.join(''));
    } catch {
      return [];
    }
  };
}
