/**
 * The domain of an address, lower-cased: the part after its last `@` (D23). What a From domain is
 * matched by (signing, warm-up, routes) and what a recipient domain's pace is keyed by.
 */
export function addressDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
