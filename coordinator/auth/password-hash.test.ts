// scrypt hashes: the stored string carries salt and parameters, each hash has its own salt, only the
// right secret verifies, and stored parameters are bounded so that a file cannot make a login explode.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRYPT_PARAMS, hashSecret, parseScryptHash, verifySecret } from './password-hash.ts';

const FAST = { ln: 10, r: 8, p: 1 };

describe('hashSecret / verifySecret', () => {
  it('writes a PHC string with the parameters, a 16-byte salt and a 32-byte key', async () => {
    const stored = await hashSecret('correct horse', FAST);
    expect(stored).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const parsed = parseScryptHash(stored);
    expect([parsed.params, parsed.salt.length, parsed.key.length]).toEqual([FAST, 16, 32]);
  });

  it('uses N = 2^15, r = 8, p = 1 by default', async () => {
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ ln: 15, r: 8, p: 1 });
    expect(await hashSecret('x')).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
  });

  it('salts every hash: the same password twice gives two different strings, both verify', async () => {
    const [a, b] = [await hashSecret('same', FAST), await hashSecret('same', FAST)];
    expect(a).not.toBe(b);
    expect([await verifySecret('same', a), await verifySecret('same', b)]).toEqual([true, true]);
  });

  it('verifies only the exact secret (case, whitespace, prefix, empty)', async () => {
    const stored = await hashSecret('Pässwort 1', FAST);
    expect(await verifySecret('Pässwort 1', stored)).toBe(true);
    for (const wrong of ['pässwort 1', 'Pässwort 1 ', 'Pässwort', '', 'Pässwort 12'])
      expect([wrong, await verifySecret(wrong, stored)]).toEqual([wrong, false]);
  });

  it('normalises to NFC, so a composed and a decomposed ä are the same password', async () => {
    const stored = await hashSecret('ä', FAST);
    expect(await verifySecret('a\u0308', stored)).toBe(true);
  });

  it('reads the parameters from the stored string, not from the defaults', async () => {
    const stored = await hashSecret('pw', { ln: 11, r: 4, p: 2 });
    expect(parseScryptHash(stored).params).toEqual({ ln: 11, r: 4, p: 2 });
    expect(await verifySecret('pw', stored)).toBe(true);
    // The same key under other parameters is a different key.
    expect(await verifySecret('pw', stored.replace('ln=11', 'ln=12'))).toBe(false);
  });

  it('never matches a malformed stored hash', async () => {
    for (const bad of ['', 'plain', '$2a$10$abcdefghijklmnopqrstuv', '$scrypt$ln=10,r=8,p=1$c2FsdA$a2V5']) expect(await verifySecret('pw', bad)).toBe(false);
  });
});

describe('parseScryptHash', () => {
  const salt = 'AAAAAAAAAAAAAAAAAAAAAA';
  const key = 'A'.repeat(43);
  it('rejects parameters outside the bounds a login can afford', () => {
    expect(() => parseScryptHash(`$scrypt$ln=21,r=8,p=1$${salt}$${key}`)).toThrow('scrypt parameter ln=21 is outside 1…20');
    expect(() => parseScryptHash(`$scrypt$ln=15,r=33,p=1$${salt}$${key}`)).toThrow('r=33 is outside 1…32');
    expect(() => parseScryptHash(`$scrypt$ln=15,r=8,p=0$${salt}$${key}`)).toThrow('p=0 is outside 1…16');
    expect(() => parseScryptHash(`$scrypt$ln=15,r=8$${salt}$${key}`)).toThrow('not a $scrypt$');
  });

  it('bounds the memory (128·N·r ≤ 128 MiB) and the work (128·N·r·p ≤ 128 MiB) a stored hash may cost', () => {
    expect(() => parseScryptHash(`$scrypt$ln=20,r=32,p=16$${salt}$${key}`)).toThrow(
      'scrypt parameters ln=20,r=32,p=16 need 4096 MiB of memory per login (128·N·r), more than 128 MiB',
    );
    expect(() => parseScryptHash(`$scrypt$ln=18,r=8,p=1$${salt}$${key}`)).toThrow('need 256 MiB of memory');
    expect(() => parseScryptHash(`$scrypt$ln=17,r=8,p=2$${salt}$${key}`)).toThrow('take 256 MiB of work per login (128·N·r·p), more than 128 MiB');
    expect(() => parseScryptHash(`$scrypt$ln=15,r=8,p=16$${salt}$${key}`)).toThrow('take 512 MiB of work');
    // Folio's default and OWASP's recommended sets pass.
    for (const [ln, r, p] of [
      [15, 8, 1],
      [17, 8, 1],
      [16, 8, 2],
      [15, 8, 3],
      [14, 8, 5],
      [13, 8, 10],
    ]) {
      expect(parseScryptHash(`$scrypt$ln=${ln},r=${r},p=${p}$${salt}$${key}`).params).toEqual({ ln, r, p });
    }
  });

  it('bounds the salt and the key length (scrypt output length costs work too)', () => {
    expect(() => parseScryptHash(`$scrypt$ln=15,r=8,p=1$${salt}$${'A'.repeat(100)}`)).toThrow('scrypt hash longer than 64 bytes');
    expect(() => parseScryptHash(`$scrypt$ln=15,r=8,p=1$${'A'.repeat(100)}$${key}`)).toThrow('scrypt salt of 75 bytes is outside 8…64');
  });

  it('writes only hashes it can read back', async () => {
    expect(parseScryptHash(await hashSecret('pw')).params).toEqual(DEFAULT_SCRYPT_PARAMS);
    await expect(hashSecret('pw', { ln: 20, r: 8, p: 1 })).rejects.toThrow('of memory per login');
  });
});
