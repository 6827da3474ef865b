/**
 * `folio users add|remove` and `folio api-key create|invalidate`: edit the coordinator's users
 * file (FOLIO_USERS_FILE) and API keys file (FOLIO_API_KEYS_FILE) offline, as ES's
 * `elasticsearch-users` tool edits the file realm. Running coordinators pick the change up within
 * 5 s. Passwords come from `--password`, else from stdin (a pipe, or a prompt without echo on a
 * terminal); `api-key create` prints ES's create API key response, whose `encoded` field is the
 * credential clients send as `Authorization: ApiKey <encoded>`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/users-command.html
 */
import { Option, type Command } from 'commander';
import { appendApiKeyRecord, invalidateApiKeyRecord, newApiKey } from '../coordinator/auth/api-keys-file.ts';
import { hashSecret } from '../coordinator/auth/password-hash.ts';
import { removeUserLine, upsertUserLine, usernameProblem } from '../coordinator/auth/users-file.ts';
import { parseTimeValue } from '../coordinator/rest/params.ts';

/** ES's minimum password length (`Validation.Users.validatePassword`). */
export const MIN_PASSWORD_LENGTH = 6;

/** Where these commands write: `out` for results (the API key JSON), `err` for messages. */
export interface AuthCommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Reads a line from a terminal without echoing it. @throws Error on Ctrl-C */
function promptHidden(prompt: string, io: AuthCommandIo): Promise<string> {
  const stdin = process.stdin;
  io.err(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      io.err('\n');
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return void (finish(), resolve(value));
        if (ch === '\u0003') return void (finish(), reject(new Error('interrupted')));
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The password: `--password`, a prompt (twice) on a terminal, else all of stdin without its final newline. */
async function readPassword(given: string | undefined, name: string, io: AuthCommandIo): Promise<string> {
  if (given !== undefined) return given;
  if (process.stdin.isTTY) {
    const first = await promptHidden(`Enter password for [${name}]: `, io);
    const again = await promptHidden(`Retype password for [${name}]: `, io);
    if (first !== again) throw new UsageError('the passwords do not match');
    return first;
  }
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}

/** A bad argument found inside an action: printed, exit code 1. */
export class UsageError extends Error {}

/** The file from the option or its environment variable. @throws UsageError when neither is set */
function fileOf(opts: { file?: string }, variable: string): string {
  if (!opts.file) throw new UsageError(`no file: pass --file or set ${variable}`);
  return opts.file;
}

/**
 * Adds the `users` and `api-key` command groups to `program`. `run` wraps each action so that a
 * {@link UsageError} exits 1 and any other error 3.
 */
export function registerAuthCommands(program: Command, io: AuthCommandIo, run: RunAction): void {
  registerUserCommands(program, io, run);
  registerApiKeyCommands(program, io, run);
}

/** How an action runs: a {@link UsageError} exits 1, any other error 3. */
type RunAction = (action: () => Promise<void>) => Promise<void>;

/** `folio users add|remove`: edit the users file (FOLIO_USERS_FILE), as `elasticsearch-users useradd|userdel`. */
function registerUserCommands(program: Command, io: AuthCommandIo, run: RunAction): void {
  const usersFile = () => new Option('--file <path>', 'users file').env('FOLIO_USERS_FILE');
  const users = program.command('users').description('manage the users of HTTP Basic authentication (FOLIO_USERS_FILE)');
  users
    .command('add')
    .description('add a user (scrypt-hashed password); the password comes from --password or stdin')
    .argument('<name>', 'username (1–507 printable ASCII characters, no colon)')
    .option('-p, --password <password>', 'the password (visible in the process list and shell history: prefer stdin)')
    .option('--force', 'replace the password of an existing user')
    .addOption(usersFile())
    .action((name: string, opts: { password?: string; force?: boolean; file?: string }) =>
      run(async () => {
        const file = fileOf(opts, 'FOLIO_USERS_FILE');
        const problem = usernameProblem(name);
        if (problem) throw new UsageError(`invalid username [${name}]: ${problem}`);
        const password = await readPassword(opts.password, name, io);
        if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`passwords must be at least [${MIN_PASSWORD_LENGTH}] characters long`);
        const outcome = await upsertUserLine(file, name, await hashSecret(password), opts.force === true).catch((err: Error) => {
          throw new UsageError(err.message);
        });
        io.err(`user [${name}] ${outcome} in ${file}\n`);
      }),
    );
  users
    .command('remove')
    .description('remove a user')
    .argument('<name>', 'username')
    .addOption(usersFile())
    .action((name: string, opts: { file?: string }) =>
      run(async () => {
        const file = fileOf(opts, 'FOLIO_USERS_FILE');
        await removeUserLine(file, name).catch((err: Error) => {
          throw new UsageError(err.message);
        });
        io.err(`user [${name}] removed from ${file}\n`);
      }),
    );
}

/** `folio api-key create|invalidate`: edit the API keys file (FOLIO_API_KEYS_FILE); `create` prints ES's create API key response. */
function registerApiKeyCommands(program: Command, io: AuthCommandIo, run: RunAction): void {
  const keysFile = () => new Option('--file <path>', 'API keys file').env('FOLIO_API_KEYS_FILE');
  const keys = program.command('api-key').description('manage API keys (FOLIO_API_KEYS_FILE)');
  keys
    .command('create')
    .description("create an API key and print ES's create API key response (id, name, api_key, encoded)")
    .argument('<name>', "the key's name")
    .option('--owner <user>', "the username the key reports in _authenticate (default: the key's name)")
    .option('--expiration <time>', 'lifetime as an ES time value, e.g. 30d, 12h (default: never expires)')
    .addOption(keysFile())
    .action((name: string, opts: { owner?: string; expiration?: string; file?: string }) =>
      run(async () => {
        const file = fileOf(opts, 'FOLIO_API_KEYS_FILE');
        let expiration: number | undefined;
        if (opts.expiration !== undefined) {
          let ms: number;
          try {
            ms = parseTimeValue(opts.expiration, 'expiration');
          } catch (err) {
            throw new UsageError((err as Error).message);
          }
          if (ms <= 0) throw new UsageError(`negative or zero expiration [${opts.expiration}] is not allowed`);
          expiration = Date.now() + ms;
        }
        const { record, created } = await newApiKey(name, opts.owner ?? name, { expiration });
        await appendApiKeyRecord(file, record);
        io.out(JSON.stringify(created, null, 2) + '\n');
        io.err(`API key [${created.id}] added to ${file}; send it as: Authorization: ApiKey ${created.encoded}\n`);
      }),
    );
  keys
    .command('invalidate')
    .description('invalidate an API key (kept in the file, refused from then on)')
    .argument('<id>', "the key's id")
    .addOption(keysFile())
    .action((id: string, opts: { file?: string }) =>
      run(async () => {
        const file = fileOf(opts, 'FOLIO_API_KEYS_FILE');
        await invalidateApiKeyRecord(file, id).catch((err: Error) => {
          throw new UsageError(err.message);
        });
        io.err(`API key [${id}] invalidated in ${file}\n`);
      }),
    );
}
