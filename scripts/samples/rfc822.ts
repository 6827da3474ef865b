/**
 * A small RFC 822 / RFC 5322 message splitter for the sample mails: unfolded headers and body.
 * Not a MIME parser: multipart bodies stay as raw text.
 * @see https://www.rfc-editor.org/rfc/rfc5322#section-2.2.3
 */

/** A parsed message: header names lower-cased (first occurrence wins), body after the first blank line. */
export interface ParsedMessage {
  headers: Record<string, string>;
  body: string;
}

/**
 * Splits `text` into headers and body. Continuation lines (starting with space or tab) are unfolded
 * into the previous header; an mbox `From ` separator line and lines without a colon are skipped.
 * CRLF and LF line ends are both accepted.
 */
export function parseMessage(text: string): ParsedMessage {
  const normalized = text.replace(/\r\n/g, '\n');
  const blank = normalized.search(/\n[ \t]*\n/);
  const head = blank < 0 ? normalized : normalized.slice(0, blank);
  const body = blank < 0 ? '' : normalized.slice(blank).replace(/^\n[ \t]*\n/, '');
  const headers: Record<string, string> = {};
  let current: string | undefined;
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line)) {
      if (current !== undefined) headers[current] += ' ' + line.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0 || line.startsWith('From ')) {
      current = undefined;
      continue;
    }
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name in headers) {
      current = undefined; // keep the first occurrence (e.g. the outermost Received)
      continue;
    }
    headers[name] = line.slice(colon + 1).trim();
    current = name;
  }
  return { headers, body };
}

/**
 * Decodes RFC 2047 encoded words (`=?iso-8859-1?Q?caf=E9?=`, `=?utf-8?B?...?=`) in a header value.
 * Words in a charset this Node build cannot decode are left as they are.
 * @see https://www.rfc-editor.org/rfc/rfc2047
 */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=)\s+(?==\?)/g, '$1') // whitespace between encoded words is dropped
    .replace(/=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=/g, (whole, charset: string, enc: string, data: string) => {
      try {
        const bytes =
          enc.toUpperCase() === 'B'
            ? Buffer.from(data, 'base64')
            : Buffer.from(
                data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
                'latin1',
              );
        return new TextDecoder(charset.split('*')[0], { fatal: false }).decode(bytes);
      } catch {
        return whole;
      }
    });
}

/** Parses an RFC 822 date (`Thu, 22 Aug 2002 12:36:23 +0100 (IST)`) to ISO 8601; undefined if unparseable. */
export function parseMailDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value.replace(/\([^)]*\)/g, ' ').trim());
  if (!Number.isFinite(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1970 && year <= 2100 ? new Date(ms).toISOString() : undefined;
}
