/**
 * Salted, slow hashes of passwords and API key secrets: node:crypto scrypt with a random 16-byte
 * salt per hash, stored as a PHC string that carries its own parameters, so stronger parameters
 * can be introduced later without breaking stored hashes:
 * `$scrypt$ln=15,r=8,p=1$<salt, base64 without padding>$<32-byte key, base64 without padding>`.
 * Verification recomputes the key with the stored salt and parameters and compares it with
 * `crypto.timingSafeEqual`. Elasticsearch's file realm stores bcrypt (`$2a$…`) in `config/users`;
 * Folio uses scrypt because Node has it built in (one verification ≈ 70 ms and 32 MiB at ln=15).
 * @see https://github.com/P-H-C/phc-string-format/blob/master/phc-sf-spec.md
 * @see https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#scrypt
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt cost parameters: N = 2^ln (CPU and memory), r (block size), p (parallelism). */
export interface ScryptParams {
  ln: number;
  r: number;
  p: number;
}

/**
 * Parameters of new hashes: N = 2^15, r = 8, p = 1 (32 MiB, about 70 ms on the development machine).
 * OWASP's floor is N = 2^17 (128 MiB); 2^15 keeps four concurrent verifications (libuv's pool) at
 * 128 MiB in a small coordinator container. Successful verifications are cached (auth-cache.ts).
 */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { ln: 15, r: 8, p: 1 };

/** Bounds on each parameter read from a file (the memory and work bounds below are the binding ones). */
const MAX_PARAMS: ScryptParams = { ln: 20, r: 32, p: 16 };
/**
 * Most memory one verification may take, 128·N·r bytes: 128 MiB, OWASP's recommended N = 2^17,
 * r = 8 (4 × Folio's default). Without it a stored ln=20, r=32 would make every login allocate 4 GiB.
 * @see https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#scrypt
 */
export const MAX_SCRYPT_MEMORY_BYTES = 128 * 1024 * 1024;
/**
 * Most work one verification may take, 128·N·r·p bytes mixed (time grows with it): 128 MiB, about
 * 4 × Folio's default (≈ 280 ms on the development machine instead of the ≈ 140 s that ln=20, r=32,
 * p=16 would take). Every OWASP parameter set (N = 2^17…2^13 with p = 1…10, r = 8) is within it.
 */
export const MAX_SCRYPT_WORK_BYTES = 128 * 1024 * 1024;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds on a stored salt and key: the key length is scrypt's output length, which costs work too. */
const MIN_SALT_BYTES = 8;
const MAX_SALT_BYTES = 64;
const MIN_KEY_BYTES = 16;
const MAX_KEY_BYTES = 64;
const HASH_RE = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{16,})$/;

/** A parsed stored hash. */
export interface ScryptHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

/** scrypt as a promise, with `maxmem` sized to the parameters (Node's 32 MiB default is exactly ln=15, r=8). */
function derive(secret: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  return new Promise((resolve, reject) => {
    scrypt(secret.normalize('NFC'), salt, length, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r * params.p + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * Refuses parameters a login cannot afford: each of ln, r, p outside its bounds, memory 128·N·r
 * above {@link MAX_SCRYPT_MEMORY_BYTES}, or work 128·N·r·p above {@link MAX_SCRYPT_WORK_BYTES}.
 * {@link DEFAULT_SCRYPT_PARAMS} (32 MiB) passes.
 * @throws Error naming the parameters and the bound they break
 */
export function checkScryptParams(params: ScryptParams): void {
  for (const k of ['ln', 'r', 'p'] as const) {
    if (params[k] < 1 || params[k] > MAX_PARAMS[k]) throw new Error(`scrypt parameter ${k}=${params[k]} is outside 1…${MAX_PARAMS[k]}`);
  }
  const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;
  const memory = 128 * 2 ** params.ln * params.r;
  const named = `ln=${params.ln},r=${params.r},p=${params.p}`;
  if (memory > MAX_SCRYPT_MEMORY_BYTES)
    throw new Error(`scrypt parameters ${named} need ${mib(memory)} of memory per login (128·N·r), more than ${mib(MAX_SCRYPT_MEMORY_BYTES)}`);
  const work = memory * params.p;
  if (work > MAX_SCRYPT_WORK_BYTES)
    throw new Error(`scrypt parameters ${named} take ${mib(work)} of work per login (128·N·r·p), more than ${mib(MAX_SCRYPT_WORK_BYTES)}`);
}

/**
 * Parses a stored `$scrypt$…` string. @throws Error naming what is wrong (format, parameter bounds)
 * @example parseScryptHash('$scrypt$ln=15,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$…').params // {ln: 15, r: 8, p: 1}
 */
export function parseScryptHash(stored: string): ScryptHash {
  const m = HASH_RE.exec(stored);
  if (!m) throw new Error('not a $scrypt$ln=…,r=…,p=…$salt$hash string');
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  checkScryptParams(params);
  const salt = Buffer.from(m[4], 'base64');
  const key = Buffer.from(m[5], 'base64');
  if (salt.length < MIN_SALT_BYTES || salt.length > MAX_SALT_BYTES)
    throw new Error(`scrypt salt of ${salt.length} bytes is outside ${MIN_SALT_BYTES}…${MAX_SALT_BYTES}`);
  if (key.length < MIN_KEY_BYTES) throw new Error(`scrypt hash shorter than ${MIN_KEY_BYTES} bytes`);
  if (key.length > MAX_KEY_BYTES) throw new Error(`scrypt hash longer than ${MAX_KEY_BYTES} bytes`);
  return { params, salt, key };
}

/**
 * Hashes `secret` (NFC-normalised UTF-8) with a fresh random salt.
 * @throws Error for parameters {@link checkScryptParams} refuses
 * @example await hashSecret('s3cret!') // '$scrypt$ln=15,r=8,p=1$…$…'
 */
export async function hashSecret(secret: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  checkScryptParams(params); // what Folio writes, it must be able to read back
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(secret, salt, params, KEY_BYTES);
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

/**
 * True when `secret` matches the stored hash (key compared in constant time). A malformed stored
 * hash never matches. Costs one scrypt run with the stored parameters.
 */
export async function verifySecret(secret: string, stored: ScryptHash | string): Promise<boolean> {
  let hash: ScryptHash;
  try {
    hash = typeof stored === 'string' ? parseScryptHash(stored) : stored;
  } catch {
    return false;
  }
  const key = await derive(secret, hash.salt, hash.params, hash.key.length);
  return timingSafeEqual(key, hash.key);
}

let dummy: Promise<ScryptHash> | undefined;

/**
 * A hash of a random secret with the default parameters (computed once, on first use), verified
 * against when a user or key id is unknown, so that an unknown name costs the same time as a wrong
 * password (no user enumeration through timing).
 */
export function dummyHash(): Promise<ScryptHash> {
  dummy ??= hashSecret(randomBytes(16).toString('hex')).then(parseScryptHash);
  return dummy;
}
