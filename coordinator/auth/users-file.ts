/**
 * The users file (FOLIO_USERS_FILE), in the shape of Elasticsearch's file realm `config/users`: one
 * `username:hash` line per user, `#` comments and blank lines ignored. The hash is a `$scrypt$…`
 * string (password-hash.ts); ES's own file holds bcrypt hashes, which Folio does not read.
 * `folio users add|remove` edit it (cli/auth-commands.ts); the coordinator reloads it on change.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/file-realm.html
 */
import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { parseScryptHash, type ScryptHash } from './password-hash.ts';

/** A parsed credentials file: the valid entries, and one message per rejected line (`line N: …`). */
export interface Parsed<T> {
  entries: Map<string, T>;
  errors: string[];
}

/**
 * Null when `name` is a valid username, else why not. ES's rule (`Validation.Users`): 1–507
 * characters of printable Basic Latin, no leading or trailing whitespace; `:` is excluded too,
 * since Basic credentials split at the first colon.
 */
export function usernameProblem(name: string): string | null {
  if (name.length < 1 || name.length > 507) return 'must be 1 to 507 characters long';
  if (!/^[\x20-\x7e]+$/.test(name)) return 'may contain only printable Basic Latin (ASCII) characters';
  if (name.trim() !== name) return 'must not begin or end with whitespace';
  if (name.includes(':')) return 'must not contain [:]';
  return null;
}

/**
 * Parses the text of a users file. Duplicate names: the last line wins, as ES's map load does.
 * @example parseUsersFile('alice:$scrypt$ln=15,r=8,p=1$…$…\n').entries.has('alice') // true
 */
export function parseUsersFile(text: string): Parsed<ScryptHash> {
  const entries = new Map<string, ScryptHash>();
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const problem = colon < 1 ? 'expected username:hash' : usernameProblem(name);
    if (problem) return void errors.push(`line ${i + 1}: ${problem}`);
    try {
      entries.set(name, parseScryptHash(line.slice(colon + 1)));
    } catch (err) {
      errors.push(`line ${i + 1}: user [${name}]: ${(err as Error).message}`);
    }
  });
  return { entries, errors };
}

/** The file's text, or '' when it does not exist. */
export async function readTextIfExists(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/**
 * Replaces `path` with `text` atomically (a temporary file renamed over it), keeping the old file's
 * permissions, or 0600 for a new file: a reader never sees half a file.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const mode = await stat(path).then(
    (s) => s.mode & 0o777,
    () => 0o600,
  );
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

/**
 * Adds (or with `replace`, replaces) one user's line, keeping every other line as it is.
 * @throws Error when the name is invalid, or the user exists and `replace` is false
 */
export async function upsertUserLine(path: string, name: string, hash: string, replace: boolean): Promise<'added' | 'replaced'> {
  const problem = usernameProblem(name);
  if (problem) throw new Error(`invalid username [${name}]: ${problem}`);
  const lines = (await readTextIfExists(path)).split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  const at = lines.findIndex((l) => l.trim().startsWith(`${name}:`));
  if (at >= 0 && !replace) throw new Error(`user [${name}] already exists in ${path} (pass --force to replace the password)`);
  if (at >= 0) lines[at] = `${name}:${hash}`;
  else lines.push(`${name}:${hash}`);
  await writeFileAtomic(path, lines.join('\n') + '\n');
  return at >= 0 ? 'replaced' : 'added';
}

/** Removes one user's line. @throws Error when the user is not in the file */
export async function removeUserLine(path: string, name: string): Promise<void> {
  const lines = (await readTextIfExists(path)).split(/\r?\n/);
  const kept = lines.filter((l) => !l.trim().startsWith(`${name}:`));
  if (kept.length === lines.length) throw new Error(`user [${name}] is not in ${path}`);
  await writeFileAtomic(path, kept.join('\n'));
}
