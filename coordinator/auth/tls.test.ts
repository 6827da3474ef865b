// TLS files: a usable pair loads, a missing file or a mismatched pair stops the start with the variable's
// name, and a renewed pair is loaded into the running server while a broken one is logged and skipped.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Server as HttpsServer } from 'node:https';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/logger.ts';
import { loadTlsOptions, watchTlsFiles } from './tls.ts';

let dir = '';

/** A self-signed EC certificate and key for `cn`, written as `<name>.crt` and `<name>.key`. */
async function makePair(name: string, cn: string): Promise<void> {
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-keyout',
    join(dir, `${name}.key`),
    '-out',
    join(dir, `${name}.crt`),
    '-subj',
    `/CN=${cn}`,
  ]);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-tls-'));
  await Promise.all([makePair('a', 'first.test'), makePair('b', 'second.test')]);
});

describe('loadTlsOptions', () => {
  it('is undefined without files and loads a matching pair', () => {
    expect(loadTlsOptions({})).toBeUndefined();
    const pair = loadTlsOptions({ tlsCertFile: join(dir, 'a.crt'), tlsKeyFile: join(dir, 'a.key') });
    expect(new X509Certificate(pair!.cert).subject).toBe('CN=first.test');
  });

  it('names the variable for a missing file and refuses a certificate with another key', () => {
    expect(() => loadTlsOptions({ tlsCertFile: join(dir, 'none.crt'), tlsKeyFile: join(dir, 'a.key') })).toThrow(
      /^FOLIO_TLS_CERT \[.*none\.crt\] cannot be read/,
    );
    expect(() => loadTlsOptions({ tlsCertFile: join(dir, 'a.crt'), tlsKeyFile: join(dir, 'none.key') })).toThrow(
      /^FOLIO_TLS_KEY \[.*none\.key\] cannot be read/,
    );
    expect(() => loadTlsOptions({ tlsCertFile: join(dir, 'a.crt'), tlsKeyFile: join(dir, 'b.key') })).toThrow(
      'FOLIO_TLS_CERT / FOLIO_TLS_KEY do not form a usable certificate and key',
    );
  });
});

describe('watchTlsFiles', () => {
  it('loads a renewed pair into the server and keeps the old one when the new files do not match', async () => {
    const live = { crt: join(dir, 'live.crt'), key: join(dir, 'live.key') };
    await copyFile(join(dir, 'a.crt'), live.crt);
    await copyFile(join(dir, 'a.key'), live.key);
    const loaded: string[] = [];
    const errors: string[] = [];
    const server = { setSecureContext: (o: { cert: Buffer }) => loaded.push(new X509Certificate(o.cert).subject) } as unknown as HttpsServer;
    const log = { info: () => undefined, error: (_o: unknown, msg: string) => errors.push(msg) } as unknown as Logger;
    const stop = watchTlsFiles(server, { tlsCertFile: live.crt, tlsKeyFile: live.key }, log, 20);
    const waitFor = async (check: () => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`not seen within 5 s: loaded ${loaded.join(',')}, errors ${errors.join(',')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await new Promise((r) => setTimeout(r, 50));
      await copyFile(join(dir, 'b.crt'), live.crt); // the certificate first: b.crt with a.key does not match
      await waitFor(() => errors.length > 0);
      expect(loaded).toEqual([]);
      await copyFile(join(dir, 'b.key'), live.key);
      await waitFor(() => loaded.length > 0);
      expect(loaded.at(-1)).toBe('CN=second.test');
      expect(await readFile(live.crt)).toEqual(await readFile(join(dir, 'b.crt')));
    } finally {
      stop();
    }
  });
});
