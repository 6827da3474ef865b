// The users file (ES file realm shape) and the API keys file (JSON Lines): parsing with line-numbered
// errors, and the edits the CLI makes (add, replace, remove, append, invalidate) keeping other lines.
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendApiKeyRecord, invalidateApiKeyRecord, newApiKey, newKeyId, parseApiKeysFile } from './api-keys-file.ts';
import { parseAuthorization } from './credentials.ts';
import { hashSecret, verifySecret } from './password-hash.ts';
import { parseUsersFile, removeUserLine, upsertUserLine, usernameProblem } from './users-file.ts';

const FAST = { ln: 10, r: 8, p: 1 };
const tmp = () => mkdtemp(join(tmpdir(), 'folio-auth-'));

describe('users file', () => {
  it('parses username:hash lines, skipping comments and blank lines; the last duplicate wins', async () => {
    const [h1, h2] = [await hashSecret('one', FAST), await hashSecret('two', FAST)];
    const parsed = parseUsersFile(`# users\n\nalice:${h1}\r\n  bob:${h1}  \nalice:${h2}\n`);
    expect(parsed.errors).toEqual([]);
    expect([...parsed.entries.keys()]).toEqual(['alice', 'bob']);
    expect(await verifySecret('two', parsed.entries.get('alice')!)).toBe(true);
  });

  it('reports each bad line with its number and keeps the good ones', async () => {
    const h = await hashSecret('x', FAST);
    const parsed = parseUsersFile(`ok:${h}\nnocolon\n:${h}\nbad:$2a$10$bcrypt\n`);
    expect([...parsed.entries.keys()]).toEqual(['ok']);
    expect(parsed.errors).toEqual([
      'line 2: expected username:hash',
      'line 3: expected username:hash',
      'line 4: user [bad]: not a $scrypt$ln=…,r=…,p=…$salt$hash string',
    ]);
  });

  it('validates usernames as ES does (1–507 printable ASCII, no edge whitespace), and refuses colons', () => {
    expect(usernameProblem('elastic_user-1.x@y')).toBeNull();
    expect(usernameProblem('')).toMatch(/1 to 507/);
    expect(usernameProblem('x'.repeat(508))).toMatch(/1 to 507/);
    expect(usernameProblem(' x')).toMatch(/whitespace/);
    expect(usernameProblem('jürgen')).toMatch(/Basic Latin/);
    expect(usernameProblem('a:b')).toMatch(/\[:\]/);
  });

  it('adds, refuses a duplicate, replaces with force, and removes, keeping comments and other users', async () => {
    const path = join(await tmp(), 'users');
    await writeFile(path, '# managed by folio users\n');
    expect(await upsertUserLine(path, 'alice', await hashSecret('a1', FAST), false)).toBe('added');
    expect(await upsertUserLine(path, 'bob', await hashSecret('b1', FAST), false)).toBe('added');
    await expect(upsertUserLine(path, 'alice', await hashSecret('a2', FAST), false)).rejects.toThrow('user [alice] already exists');
    expect(await upsertUserLine(path, 'alice', await hashSecret('a2', FAST), true)).toBe('replaced');
    let parsed = parseUsersFile(await readFile(path, 'utf8'));
    expect(await verifySecret('a2', parsed.entries.get('alice')!)).toBe(true);
    await removeUserLine(path, 'alice');
    const text = await readFile(path, 'utf8');
    parsed = parseUsersFile(text);
    expect([text.startsWith('# managed by folio users\n'), [...parsed.entries.keys()]]).toEqual([true, ['bob']]);
    await expect(removeUserLine(path, 'alice')).rejects.toThrow('user [alice] is not in');
  });

  it('creates a new file readable by its owner only', async () => {
    const path = join(await tmp(), 'users');
    await upsertUserLine(path, 'alice', await hashSecret('a1', FAST), false);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});

describe('API keys file', () => {
  it('makes 20-character URL-safe key ids that never start like a command-line option', () => {
    for (let i = 0; i < 2000; i++) expect(newKeyId()).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{19}$/);
  });

  it('creates keys as ES does: 20-char id, 22-char secret, encoded = base64(id:secret), only the hash stored', async () => {
    const { record, created } = await newApiKey('ci', 'alice', { now: 1_000, expiration: 5_000, params: FAST });
    expect(created.id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(created.api_key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(parseAuthorization('ApiKey ' + created.encoded)).toEqual({ kind: 'api_key', id: created.id, key: created.api_key });
    expect(created).toEqual({ id: record.id, name: 'ci', expiration: 5_000, api_key: created.api_key, encoded: created.encoded });
    expect(JSON.stringify(record)).not.toContain(created.api_key);
    expect(record).toMatchObject({ name: 'ci', username: 'alice', creation: 1_000, expiration: 5_000 });
    expect(await verifySecret(created.api_key, record.hash)).toBe(true);
  });

  it('appends lines (adding a missing newline first) and invalidates one key in place', async () => {
    const path = join(await tmp(), 'api_keys');
    await writeFile(path, '');
    const a = await newApiKey('a', 'alice', { params: FAST });
    const b = await newApiKey('b', 'bob', { params: FAST });
    await appendApiKeyRecord(path, a.record);
    await writeFile(path, (await readFile(path, 'utf8')).trimEnd()); // an editor dropped the final newline
    await appendApiKeyRecord(path, b.record);
    await invalidateApiKeyRecord(path, a.record.id);
    const parsed = parseApiKeysFile(await readFile(path, 'utf8'));
    expect(parsed.errors).toEqual([]);
    expect([parsed.entries.get(a.record.id)?.invalidated, parsed.entries.get(b.record.id)?.invalidated]).toEqual([true, undefined]);
    await expect(invalidateApiKeyRecord(path, 'nope')).rejects.toThrow('API key [nope] is not in');
  });

  it('reports malformed lines by number', async () => {
    const ok = (await newApiKey('ok', 'u', { params: FAST })).record;
    const text = [
      JSON.stringify(ok),
      '{not json',
      JSON.stringify({ ...ok, id: 'a:b' }),
      JSON.stringify({ ...ok, id: 'x', creation: 'now' }),
      JSON.stringify({ ...ok, id: 'y', hash: 'md5' }),
    ].join('\n');
    const parsed = parseApiKeysFile(text);
    expect([...parsed.entries.keys()]).toEqual([ok.id]);
    expect(parsed.errors.map((e) => e.split(':')[0])).toEqual(['line 2', 'line 3', 'line 4', 'line 5']);
    expect(parsed.errors[1]).toBe('line 3: [id] must not contain [:]');
  });
});
