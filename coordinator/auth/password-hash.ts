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

/** Bounds on parameters read from a file: a hash with ln=30 must not make one login allocate 128 GiB. */
const MAX_PARAMS: ScryptParams = { ln: 20, r: 32, p: 16 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
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
 * Parses a stored `$scrypt$…` string. @throws Error naming what is wrong (format, parameter bounds)
 * @example parseScryptHash('$scrypt$ln=15,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$…').params // {ln: 15, r: 8, p: 1}
 */
export function parseScryptHash(stored: string): ScryptHash {
  const m = HASH_RE.exec(stored);
  if (!m) throw new Error('not a $scrypt$ln=…,r=…,p=…$salt$hash string');
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  for (const k of ['ln', 'r', 'p'] as const) {
    if (params[k] < 1 || params[k] > MAX_PARAMS[k]) throw new Error(`scrypt parameter ${k}=${params[k]} is outside 1…${MAX_PARAMS[k]}`);
  }
  const key = Buffer.from(m[5], 'base64');
  if (key.length < 16) throw new Error('scrypt hash shorter than 16 bytes');
  return { params, salt: Buffer.from(m[4], 'base64'), key };
}

/**
 * Hashes `secret` (NFC-normalised UTF-8) with a fresh random salt.
 * @example await hashSecret('s3cret!') // '$scrypt$ln=15,r=8,p=1$…$…'
 */
export async function hashSecret(secret: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
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
