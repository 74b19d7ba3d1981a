import { spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../webhooks-out/receiver.ts';

/**
 * A real IMAP server for tests: Debian's dovecot (`dovecot-imapd`), started from a config of its
 * own in a temporary folder: plain IMAP on 127.0.0.1, one user from a passwd-file, Maildir in the
 * folder, its sockets, state and log there too (nothing of the system's dovecot is touched).
 *
 *   const imap = await startDovecot();   // null when dovecot is not installed (and CI is not true)
 *   imap.url                              // imap://bounces:...@127.0.0.1:<port>/INBOX
 *   await imap.stop(); await imap.start(); // down and up again on the same port
 *   await imap.close();
 */

const DOVECOT = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((p) => existsSync(p)) ?? null;

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  url: string;
  /** (re)starts the server on its port */
  start(): Promise<void>;
  /** stops the server, keeping its mail */
  stop(): Promise<void>;
  /** stops it and removes its folder */
  close(): Promise<void>;
  /** its log, for a failing test's message */
  log(): string;
}

/** Why the IMAP tests cannot run here, or null when they can. Under CI=true they must: a missing dovecot fails instead. */
export function dovecotMissing(): string | null {
  if (DOVECOT) return null;
  const reason = 'dovecot is not installed (Debian: apt-get install dovecot-imapd)';
  if (process.env.CI === 'true') throw new Error(`CI: the IMAP tests must run, but ${reason}`);
  return reason;
}

/**
 * Runs the dovecot command, its output into `outputFile`: the master daemonizes and keeps the
 * descriptors it was given, so a pipe would stay open as long as it runs. Done when the command exits.
 */
function run(args: string[], outputFile: string): Promise<void> {
  const out = openSync(outputFile, 'a');
  return new Promise<void>((resolve, reject) => {
    const child = spawn(DOVECOT!, args, { stdio: ['ignore', out, out] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`dovecot ${args.join(' ')} exited with ${code}: ${readFileSync(outputFile, 'utf8').slice(-1000)}`))));
  }).finally(() => closeSync(out));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createServer().listen(port, '127.0.0.1');
    socket.once('listening', () => socket.close(() => resolve(false)));
    socket.once('error', () => resolve(true));
  });

/**
 * Dovecot's login processes refuse to run as root, and it gives no mail access to uid 0. As root
 * (as in CI containers), its own package's users do those parts: dovenull logs in, dovecot is
 * the internal user and owns the mail. As anyone else, that user does everything.
 */
function runAs(): { internal: string; login: string; mailUid: number; mailGid: number } {
  const me = userInfo();
  if (me.uid !== 0) return { internal: me.username, login: me.username, mailUid: me.uid, mailGid: me.gid };
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':'));
  const dovecot = passwd.find((f) => f[0] === 'dovecot');
  if (!dovecot || !passwd.some((f) => f[0] === 'dovenull')) throw new Error('dovecot: running as root needs the users dovecot and dovenull (made by the dovecot-core package)');
  return { internal: 'dovecot', login: 'dovenull', mailUid: Number(dovecot[2]), mailGid: Number(dovecot[3]) };
}

export async function startDovecot(): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'sendwell-dovecot-'));
  // The login and mail processes run as other users: they must reach the folder.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const user = 'bounces';
  const password = 'imap-test-password';
  const who = runAs();
  const mail = join(dir, 'mail');
  mkdirSync(mail);
  chownSync(mail, who.mailUid, who.mailGid);
  writeFileSync(join(dir, 'users'), `${user}:{PLAIN}${password}\n`);
  const config = join(dir, 'dovecot.conf');
  writeFileSync(
    config,
    `protocols = imap
listen = 127.0.0.1
base_dir = ${join(dir, 'run')}
state_dir = ${join(dir, 'state')}
log_path = ${join(dir, 'dovecot.log')}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_internal_user = ${who.internal}
default_login_user = ${who.login}
first_valid_uid = ${who.mailUid}
first_valid_gid = ${who.mailGid}
mail_location = maildir:${mail}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(dir, 'users')}
}
userdb {
  driver = static
  args = uid=${who.mailUid} gid=${who.mailGid} home=${mail}/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`,
  );
  const pidFile = join(dir, 'run', 'master.pid');
  const output = join(dir, 'output.log');
  const instance: Dovecot = {
    port,
    user,
    password,
    url: `imap://${user}:${password}@127.0.0.1:${port}/INBOX`,
    async start() {
      await run(['-c', config], output);
      await eventually(() => listening(port), `dovecot to listen on ${port}`);
    },
    async stop() {
      if (!existsSync(pidFile)) return;
      await run(['-c', config, 'stop'], output);
      await eventually(() => !existsSync(pidFile), 'dovecot to stop');
      await eventually(async () => !(await listening(port)), `dovecot to stop listening on ${port}`);
    },
    async close() {
      await instance.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => (existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : ''),
  };
  await instance.start();
  return instance;
}
