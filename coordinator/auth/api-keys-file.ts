/**
 * The API keys file (FOLIO_API_KEYS_FILE): one JSON object per line, the fields of ES's API key
 * info (`id`, `name`, `username` of the owner, `creation` and `expiration` in epoch ms,
 * `invalidated`) plus `hash`, the scrypt hash of the secret. The secret itself is never stored: it
 * is shown once, at creation, inside the `encoded` credential (ES's create API key response).
 * `folio api-key create|invalidate` and `POST /_security/api_key` write it; coordinators reload it.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/security-api-create-api-key.html
 */
import { appendFile, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { encodeApiKey } from './credentials.ts';
import { hashSecret, parseScryptHash, type ScryptHash, type ScryptParams } from './password-hash.ts';
import { readTextIfExists, writeFileAtomic, type Parsed } from './users-file.ts';

/** One line of the file. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** The owner: what `GET /_security/_authenticate` reports as `username` for this key. */
  username: string;
  creation: number;
  /** Epoch ms after which the key is refused; absent = never expires. */
  expiration?: number;
  invalidated?: boolean;
  hash: string;
}

/** A record with its hash parsed, as the authenticator holds it. */
export type ApiKeyEntry = Omit<ApiKeyRecord, 'hash'> & { hash: ScryptHash };

/** ES's create API key response; `encoded` is what clients send after `ApiKey `. */
export interface CreatedApiKey {
  id: string;
  name: string;
  expiration?: number;
  api_key: string;
  encoded: string;
}

/** Checks the shape of one parsed line. @throws Error naming the bad field */
function checkRecord(v: unknown): ApiKeyRecord {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
  const r = v as Record<string, unknown>;
  for (const f of ['id', 'name', 'username', 'hash'] as const)
    if (typeof r[f] !== 'string' || r[f] === '') throw new Error(`[${f}] must be a non-empty string`);
  if (String(r.id).includes(':')) throw new Error('[id] must not contain [:]');
  if (typeof r.creation !== 'number') throw new Error('[creation] must be epoch milliseconds');
  if (r.expiration !== undefined && r.expiration !== null && typeof r.expiration !== 'number')
    throw new Error('[expiration] must be epoch milliseconds or null');
  if (r.invalidated !== undefined && typeof r.invalidated !== 'boolean') throw new Error('[invalidated] must be a boolean');
  return r as unknown as ApiKeyRecord;
}

/**
 * Parses the text of an API keys file (JSON Lines; blank lines ignored). A repeated id: the last
 * line wins.
 */
export function parseApiKeysFile(text: string): Parsed<ApiKeyEntry> {
  const entries = new Map<string, ApiKeyEntry>();
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const r = checkRecord(JSON.parse(raw));
      entries.set(r.id, { ...r, expiration: r.expiration ?? undefined, hash: parseScryptHash(r.hash) });
    } catch (err) {
      errors.push(`line ${i + 1}: ${(err as Error).message}`);
    }
  });
  return { entries, errors };
}

/**
 * A new key id: 20 URL-safe base64 characters (ES's `UUIDs.base64UUID` alphabet), never starting with
 * `-` or `_`, so that `folio api-key invalidate <id>` does not read the id as an option.
 */
export function newKeyId(): string {
  for (;;) {
    const id = randomBytes(15).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

/**
 * A new key as ES makes one: a 20-character URL-safe id and a 22-character URL-safe secret (128
 * random bits), the secret hashed for the file, and the `encoded` credential for the client.
 */
export async function newApiKey(
  name: string,
  username: string,
  opts: { expiration?: number; now?: number; params?: ScryptParams } = {},
): Promise<{ record: ApiKeyRecord; created: CreatedApiKey }> {
  const id = newKeyId();
  const secret = randomBytes(16).toString('base64url');
  const record: ApiKeyRecord = { id, name, username, creation: opts.now ?? Date.now(), hash: await hashSecret(secret, opts.params) };
  if (opts.expiration !== undefined) record.expiration = opts.expiration;
  const created: CreatedApiKey = {
    id,
    name,
    ...(opts.expiration !== undefined ? { expiration: opts.expiration } : {}),
    api_key: secret,
    encoded: encodeApiKey(id, secret),
  };
  return { record, created };
}

/**
 * Appends one record (a single `O_APPEND` write of one line, so concurrent writers on a local file
 * system do not interleave), creating the file with mode 0600 when absent.
 */
export async function appendApiKeyRecord(path: string, record: ApiKeyRecord): Promise<void> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  const needsNewline = size > 0 && !(await readTextIfExists(path)).endsWith('\n');
  await appendFile(path, (needsNewline ? '\n' : '') + JSON.stringify(record) + '\n', { mode: 0o600 });
}

/** Marks one key invalidated (ES's invalidate API keeps the key, flagged). @throws Error when the id is not in the file */
export async function invalidateApiKeyRecord(path: string, id: string): Promise<void> {
  const lines = (await readTextIfExists(path)).split(/\r?\n/);
  let found = false;
  const out = lines.map((raw) => {
    if (raw.trim() === '') return raw;
    try {
      const r = JSON.parse(raw) as ApiKeyRecord;
      if (r.id !== id) return raw;
      found = true;
      return JSON.stringify({ ...r, invalidated: true });
    } catch {
      return raw;
    }
  });
  if (!found) throw new Error(`API key [${id}] is not in ${path}`);
  await writeFileAtomic(path, out.join('\n'));
}
