/**
 * IP addresses as the `ip` field type indexes them: IPv4 and IPv6 both as 16 bytes (IPv4 as the
 * IPv4-mapped IPv6 address `::ffff:a.b.c.d`, as Lucene's `InetAddressPoint`), here written as 32
 * lowercase hex digits so that the text order is the address order (range queries and sorting on
 * the terms), and printed back as ES does (dotted quad for IPv4, RFC 5952 for IPv6).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/ip.html
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/document/InetAddressPoint.java
 */

const V4_MAPPED_PREFIX = '00000000000000000000ffff';

function parseV4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/**
 * Encodes an IP address text into its 32-hex-digit sortable form; null when it is not an address.
 * @example encodeIp('192.168.0.1') // '00000000000000000000ffffc0a80001'
 */
export function encodeIp(text: string): string | null {
  if (text.includes('.') && !text.includes(':')) {
    const v4 = parseV4(text);
    return v4 ? V4_MAPPED_PREFIX + v4.map(hex2).join('') : null;
  }
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (!s.includes(':')) return null;
  // A trailing dotted quad is the last 32 bits.
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const group = (h: string): string[] | null => {
    if (h === '') return [];
    const g = h.split(':');
    return g.every((x) => /^[0-9a-fA-F]{1,4}$/.test(x)) ? g : null;
  };
  const head = group(halves[0]);
  const rest = halves.length === 2 ? group(halves[1]) : [];
  if (!head || !rest) return null;
  let groups: string[];
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else groups = head;
  if (groups.length !== 8) return null;
  let out = groups.map((g) => g.toLowerCase().padStart(4, '0')).join('');
  if (tail.length === 4) out = out.slice(0, 24) + tail.map(hex2).join('');
  return out;
}

/**
 * Prints an encoded address as ES does: IPv4-mapped addresses as a dotted quad, others in RFC 5952
 * form (lowercase, the longest run of two or more zero groups as `::`).
 * @example decodeIp('20010db8000000000000000000000001') // '2001:db8::1'
 */
export function decodeIp(hex: string): string {
  if (hex.startsWith(V4_MAPPED_PREFIX)) {
    const b = hex.slice(24);
    return [0, 2, 4, 6].map((i) => parseInt(b.slice(i, i + 2), 16)).join('.');
  }
  const groups: string[] = [];
  for (let i = 0; i < 32; i += 4) groups.push(parseInt(hex.slice(i, i + 4), 16).toString(16));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return groups.slice(0, bestStart).join(':') + '::' + groups.slice(bestStart + bestLen).join(':');
}

/**
 * The first and last encoded addresses of a CIDR block (`192.168.0.0/16`, `2001:db8::/32`); null
 * when the text is not one.
 * @example cidrRange('10.0.0.0/8') // {lo: '…ffff0a000000', hi: '…ffff0affffff'}
 */
export function cidrRange(text: string): { lo: string; hi: string } | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const addr = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return null;
  const hex = encodeIp(addr);
  if (!hex) return null;
  const isV4 = !addr.includes(':');
  const bits = Number(bitsText) + (isV4 ? 96 : 0);
  if (bits > 128 || (isV4 && Number(bitsText) > 32)) return null;
  let lo = '';
  let hi = '';
  for (let i = 0; i < 32; i++) {
    const nibble = parseInt(hex[i], 16);
    const keep = Math.max(0, Math.min(4, bits - i * 4));
    const mask = (0xf << (4 - keep)) & 0xf;
    lo += (nibble & mask).toString(16);
    hi += ((nibble & mask) | (~mask & 0xf)).toString(16);
  }
  return { lo, hi };
}
