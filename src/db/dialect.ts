/**
 * The two databases Sendwell runs on. Its own module so that connect.ts and the SQL helpers it
 * registers on each connection can both name it without importing each other.
 */
export type Dialect = 'sqlite' | 'postgres';
