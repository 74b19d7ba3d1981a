import { SYSTEM_ACTING } from './domain/shared/actor.ts';
import { Command, CommanderError, Option } from 'commander';
import type { Readable, Writable } from 'node:stream';
import { loadConfig } from './config.ts';
import pino, { type Logger } from 'pino';
import { changePlan, createAccountRecorded, listAccounts } from './domain/accounts/accounts.service.ts';
import { createCore, type Core } from './core.ts';
import { startServer, type Role } from './server.ts';
import { ROLES, type Role as UserRole } from './domain/users/roles.ts';
import { CLI_DEFAULT_ROLE } from './domain/users/users.service.ts';
import { feedbackUrl } from './feedback/auth.ts';
import { FEEDBACK_PROVIDERS, type FeedbackProvider } from './feedback/events.ts';

/**
 * Where a command reads its settings and input and writes its output: the process's own when run
 * as `sendwell`, others when a test runs commands in its own process (a process per command cost
 * the suite about two seconds each).
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}

const processIo = (): CliIo => ({ env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });

/**
 * A command's log: warnings and errors only, as plain lines on stderr, so that stdout holds the
 * command's output alone (an erasure says there when the running server keeps the erased pages in
 * the WAL a while longer, issue 28 L2).
 */
function commandLogger(io: CliIo): Logger {
  const stderrLines = {
    write(line: string) {
      const { level, msg } = JSON.parse(line) as { level: number; msg: string };
      const label = pino.levels.labels[level] ?? 'log';
      io.stderr.write(`sendwell: ${label === 'warn' ? 'warning' : label}: ${msg}\n`);
    },
  };
  return pino({ level: 'warn' }, stderrLines);
}

/**
 * Builds the same core the server runs on (issue 29, item 3: one way to build each service), over
 * the configured database (migrated) for one command, and closes it afterwards.
 */
async function withCore<T>(io: CliIo, run: (core: Core) => Promise<T>): Promise<T> {
  const core = await createCore(loadConfig(io.env), { logger: commandLogger(io), oneShot: true });
  try {
    return await run(core);
  } finally {
    await core.close();
  }
}

function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(JSON.stringify(value) + '\n');
}

function positiveInt(flag: string) {
  return (raw: string): number => {
    if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`${flag} must be a positive integer`);
    return Number(raw);
  };
}

/** A password from stdin: its first line, piped or typed after a prompt on a terminal. */
async function readPassword(io: CliIo): Promise<string> {
  const { createInterface } = await import('node:readline');
  const tty = io.stdin.isTTY;
  if (tty) io.stderr.write('Password: ');
  const rl = createInterface({ input: io.stdin });
  try {
    for await (const line of rl) return line;
    throw new Error('no password given: pass --password or write it to stdin');
  } finally {
    rl.close();
  }
}

function buildProgram(io: CliIo): Command {
  const program = new Command('sendwell')
    .description('Sendwell: self-hosted email marketing. Configuration comes from the environment (PORT, HOST, DATA_DIR, DATABASE_URL, REDIS_URL, SMTP_URL, SMTP_ROUTES, PUBLIC_URL, SECRET, LOG_LEVEL).')
    .exitOverride()
    .configureOutput({
      writeOut: (str) => void io.stdout.write(str),
      writeErr: (str) => void io.stderr.write(str),
      outputError: (str, write) => write(str.split('\n')[0] + '\n'),
    });

  program
    .command('serve')
    .description('run the service: the API, the sender (campaign sending and scheduling), or both (migrations are applied first)')
    .addOption(new Option('--role <role>', 'api: HTTP only; sender: the background work only (sending, scheduling, automation runs, webhook deliveries); all: both').choices(['api', 'sender', 'all']).default('all'))
    .action(async (opts: { role: Role }) => {
      const server = await startServer(loadConfig(io.env), opts.role);
      if (server.url) server.core.logger.info({ url: server.url, role: opts.role }, 'sendwell listening');
      else server.core.logger.info({ role: opts.role }, 'sendwell sender running');
      const shutdown = (signal: string) => {
        server.core.logger.info({ signal }, 'shutting down');
        server.stop().then(
          () => process.exit(0),
          (err) => {
            server.core.logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .action(async () => {
      await withCore(io, async () => undefined);
      printJson(io, { migrated: true });
    });

  const accounts = program.command('accounts').description('manage accounts');
  accounts
    .command('create')
    .description('create an account; prints it as JSON')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', 'free, starter, business or enterprise', 'free')
    .action(async (opts: { name: string; plan: string }) => {
      printJson(io, await withCore(io, ({ handle }) => createAccountRecorded(handle.db, SYSTEM_ACTING, opts)));
    });
  accounts
    .command('list')
    .description('list every account as a JSON array (D17.7)')
    .action(async () => {
      printJson(io, await withCore(io, ({ handle }) => listAccounts(handle.db)));
    });
  accounts
    .command('update')
    .description("change an account's plan; prints the account as JSON (D17.7). Its key limit applies at once; running servers apply its rate limits within a minute, as their key cache expires")
    .argument('<id>', 'account id', positiveInt('id'))
    .requiredOption('--plan <plan>', 'free, starter, business or enterprise')
    .action(async (id: number, opts: { plan: string }) => {
      printJson(io, await withCore(io, ({ handle }) => changePlan(handle.db, SYSTEM_ACTING, id, opts.plan)));
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description("create an API key; prints it as JSON with the full value in 'key' (shown only once)")
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .requiredOption('--name <name>', 'where the key is used')
    .requiredOption('--permissions <list>', "comma-separated permissions, or '*' for all")
    .option('--description <text>', 'optional description')
    .option('--expires-at <iso>', 'optional expiry date-time (ISO 8601)')
    .action(async (opts: { account: number; name: string; permissions: string; description?: string; expiresAt?: string }) => {
      const key = await withCore(io, ({ apiKeys }) =>
        apiKeys.create(SYSTEM_ACTING, opts.account, {
          name: opts.name,
          description: opts.description ?? null,
          permissions: opts.permissions.split(',').map((p) => p.trim()).filter(Boolean),
          expires_at: opts.expiresAt ?? null,
        }),
      );
      printJson(io, { ...key, account_id: opts.account });
    });

  const users = program.command('users').description('manage dashboard users');
  users
    .command('create')
    .description('create a dashboard user in an account; the password comes from --password, else from stdin (prompted on a terminal); prints the user as JSON')
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .requiredOption('--email <email>', 'the e-mail address the user signs in with')
    .option('--password <password>', 'the password (prefer stdin: a flag is visible in the process list and shell history)')
    // D24.1: the account's first user is its owner, whatever is asked; later ones get --role.
    .addOption(new Option('--role <role>', `the user's role; the account's first user is always its owner, a later one is ${CLI_DEFAULT_ROLE} unless given`).choices([...ROLES]))
    .action(async (opts: { account: number; email: string; password?: string; role?: UserRole }) => {
      const password = opts.password ?? (await readPassword(io));
      printJson(io, await withCore(io, ({ users }) => users.create(SYSTEM_ACTING, opts.account, { email: opts.email, password, role: opts.role })));
    });
  users
    .command('list')
    .description("list an account's dashboard users as a JSON array, each with its role (D17.7, D24.1)")
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .action(async (opts: { account: number }) => {
      printJson(io, await withCore(io, ({ users }) => users.listOf(opts.account)));
    });
  users
    .command('reset-password')
    .description("set a user's new password (from --password, else stdin as for create) and end every session of theirs; prints the user as JSON (D17.7)")
    .requiredOption('--email <email>', 'the e-mail address the user signs in with')
    .option('--password <password>', 'the new password (prefer stdin: a flag is visible in the process list and shell history)')
    .action(async (opts: { email: string; password?: string }) => {
      const password = opts.password ?? (await readPassword(io));
      printJson(io, await withCore(io, ({ users }) => users.resetPassword({ email: opts.email, password })));
    });

  program
    .command('webhooks')
    .description('bounce and complaint webhooks')
    .command('url')
    .description("print the URL to give a mail provider for bounces and complaints (it carries this install's webhook token)")
    .addOption(new Option('--provider <provider>', 'ses, sendgrid or generic').choices([...FEEDBACK_PROVIDERS]).makeOptionMandatory())
    .action((opts: { provider: FeedbackProvider }) => {
      const config = loadConfig(io.env);
      printJson(io, { provider: opts.provider, url: feedbackUrl(config.publicUrl, config.secret, opts.provider) });
    });

  program
    .command('import')
    .description("import contacts from a CSV file (header: email, first_name, last_name, phone, status, tags and lists split on ; or ,, and other tools' names for them such as Email Address or FIRSTNAME; Mailchimp's OPTIN_TIME, CONFIRM_TIME, OPTIN_IP and CONFIRM_IP date the consent record; other columns are custom fields, their header in lower snake case unless it already is a key, as is any named custom_fields.<key>); prints a JSON summary, with failed lines by number and the columns not imported (an empty or duplicate header...) with why")
    .argument('<file>', 'the CSV file')
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .option('--list <id>', 'add every valid contact to this list', positiveInt('--list'))
    .option('--update', 'update existing contacts with the values in the file (default: leave them as they are)')
    .option('--map <pairs>', "name other columns: 'Header=field,...' with field one of email, first_name, last_name, name, phone, status, tags, lists, custom_fields.<key> or ignore")
    .action(async (file: string, opts: { account: number; list?: number; update?: boolean; map?: string }) => {
      const { parseColumnMap } = await import('./domain/contacts/csv-columns.ts');
      const map = opts.map === undefined ? undefined : parseColumnMap(opts.map);
      const { importContactsCsv } = await import('./csv/contacts-csv.ts');
      const { statSync } = await import('node:fs');
      const size = statSync(file).size;
      // A progress bar only on a terminal; stdout stays the summary alone.
      const progress = io.stderr.isTTY ? await import('cli-progress') : null;
      const bar = progress ? new progress.SingleBar({ stream: io.stderr as NodeJS.WritableStream, format: 'import [{bar}] {percentage}% | {rows} rows' }, progress.Presets.shades_classic) : null;
      bar?.start(size, 0, { rows: 0 });
      try {
        const summary = await withCore(io, (core) =>
          importContactsCsv(core, { accountId: opts.account, file, listId: opts.list, update: opts.update, map, onProgress: (bytes, rows) => bar?.update(bytes, { rows }) }),
        );
        bar?.update(size);
        bar?.stop();
        printJson(io, summary);
      } catch (err) {
        bar?.stop();
        throw err;
      }
    });

  program
    .command('export')
    .description('write contacts as CSV to stdout, in the columns import reads')
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .option('--list <id>', "only this list's members", positiveInt('--list'))
    .action(async (opts: { account: number; list?: number }) => {
      const { exportContactsCsv } = await import('./csv/contacts-csv.ts');
      await withCore(io, (core) => exportContactsCsv(core, { accountId: opts.account, listId: opts.list }, io.stdout));
    });

  const suppressions = program.command('suppressions').description('the suppression list: addresses and @domains never mailed (D19)');
  suppressions
    .command('import')
    .description("add the values of a CSV file (a value per line, or columns value, reason and source as export writes them); prints a JSON summary, with failed lines by number")
    .argument('<file>', 'the CSV file')
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .action(async (file: string, opts: { account: number }) => {
      const { importSuppressionsCsv } = await import('./csv/suppressions-csv.ts');
      printJson(io, await withCore(io, (core) => importSuppressionsCsv(core, { accountId: opts.account, file })));
    });
  suppressions
    .command('export')
    .description('write the suppression list as CSV to stdout (value, reason, source, created_at)')
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .action(async (opts: { account: number }) => {
      const { exportSuppressionsCsv } = await import('./csv/suppressions-csv.ts');
      await withCore(io, (core) => exportSuppressionsCsv(core, { accountId: opts.account }, io.stdout));
    });

  const contacts = program.command('contacts').description("a person's data (D21)");
  contacts
    .command('export-data')
    .description('print everything the account holds about the contact with this address as one JSON document (as GET /api/v1/contacts/{email}/export answers it)')
    .argument('<email>', "the contact's address")
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .action(async (email: string, opts: { account: number }) => {
      printJson(io, await withCore(io, ({ personalData }) => personalData.export(opts.account, email)));
    });
  contacts
    .command('erase')
    .description("delete the contact and every personal field tied to it; campaigns' statistics stay; the address is kept only as its SHA-256, an ERASURE suppression; prints the address and that value as JSON")
    .argument('<email>', "the contact's address")
    .requiredOption('--account <id>', 'account id', positiveInt('--account'))
    .action(async (email: string, opts: { account: number }) => {
      // Issue 28 L2: the command's logger says on stderr when the running server keeps the erased pages in the WAL a while longer.
      printJson(io, await withCore(io, ({ personalData }) => personalData.erase(SYSTEM_ACTING, opts.account, email)));
    });

  // The top-level help names every command with its options, so operators see the whole surface at once.
  const synopsis = (c: Command, name: string) =>
    [name, ...c.registeredArguments.map((a) => `<${a.name()}>`), ...c.options.map((o) => (o.mandatory ? o.flags : `[${o.flags}]`))].join(' ');
  const lines = program.commands.flatMap((c) =>
    c.commands.length === 0 ? [synopsis(c, c.name())] : c.commands.map((sub) => synopsis(sub, `${c.name()} ${sub.name()}`)),
  );
  program.addHelpText('after', `\nAll commands:\n${lines.map((l) => `  sendwell ${l}`).join('\n')}\n`);
  return program;
}

/** Runs one command line (`argv` as process.argv gives it) and answers its exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    // --help and --version end here too, successfully; commander has already printed them.
    if (err instanceof CommanderError) return err.exitCode;
    io.stderr.write(`sendwell: ${(err as Error).message.split('\n')[0]}\n`);
    return 1;
  }
}

export async function main(argv: string[]): Promise<void> {
  process.exitCode = await runCli(argv, processIo());
}
