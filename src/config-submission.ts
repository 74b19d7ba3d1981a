import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { ConfigError, flagFrom, intFrom, listenHostFrom } from './config-values.ts';

/** D25.7: the SMTP submission endpoint (RFC 6409) for apps that can only speak SMTP. */
export interface SubmissionConfig {
  /** SMTP_SUBMISSION_PORT (0 = any free port) */
  port: number;
  /** SMTP_SUBMISSION_HOST, default 0.0.0.0: apps on other machines connect to it */
  host: string;
  /** STARTTLS's certificate and key, read from SMTP_SUBMISSION_TLS_CERT and SMTP_SUBMISSION_TLS_KEY (PEM files); null: no STARTTLS */
  tls: { cert: Buffer; key: Buffer } | null;
  /** AUTH over a plain connection from any client, not only loopback ones (SMTP_SUBMISSION_ALLOW_INSECURE=true) */
  allowInsecure: boolean;
}

/** One PEM file of the TLS pair, read now: a missing or unreadable file stops the start with its setting named. */
function pemFrom(env: NodeJS.ProcessEnv, name: string): Buffer {
  const path = env[name]!.trim();
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${name}: cannot read the file it names (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/**
 * D25.7's settings; null without SMTP_SUBMISSION_PORT. The TLS files are both given or neither,
 * and must hold a PEM certificate and a PEM private key: checked here, so a wrong file stops the
 * start rather than the first STARTTLS.
 */
export function submissionFrom(env: NodeJS.ProcessEnv): SubmissionConfig | null {
  const hasCert = !!env.SMTP_SUBMISSION_TLS_CERT?.trim();
  const hasKey = !!env.SMTP_SUBMISSION_TLS_KEY?.trim();
  if (hasCert !== hasKey) throw new ConfigError('SMTP_SUBMISSION_TLS_CERT and SMTP_SUBMISSION_TLS_KEY are given together or not at all');
  if (env.SMTP_SUBMISSION_PORT === undefined || env.SMTP_SUBMISSION_PORT === '') {
    if (hasCert) throw new ConfigError('SMTP_SUBMISSION_TLS_CERT and SMTP_SUBMISSION_TLS_KEY need SMTP_SUBMISSION_PORT');
    return null;
  }
  const port = intFrom(env, 'SMTP_SUBMISSION_PORT', 0, 0, 65535);
  let tls: SubmissionConfig['tls'] = null;
  if (hasCert) {
    const cert = pemFrom(env, 'SMTP_SUBMISSION_TLS_CERT');
    const key = pemFrom(env, 'SMTP_SUBMISSION_TLS_KEY');
    try {
      new X509Certificate(cert);
    } catch {
      throw new ConfigError('SMTP_SUBMISSION_TLS_CERT: the file holds no PEM certificate');
    }
    try {
      createPrivateKey(key);
    } catch {
      throw new ConfigError('SMTP_SUBMISSION_TLS_KEY: the file holds no PEM private key');
    }
    tls = { cert, key };
  }
  return {
    port,
    host: listenHostFrom(env, 'SMTP_SUBMISSION_HOST', '0.0.0.0'),
    tls,
    allowInsecure: flagFrom(env, 'SMTP_SUBMISSION_ALLOW_INSECURE'),
  };
}
