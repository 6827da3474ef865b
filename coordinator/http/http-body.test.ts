import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { toEsError } from '../../protocol/errors.ts';
import { readBodyText, SimpleHttpError } from './http.ts';

describe('readBodyText over http.max_content_length', () => {
  it('stops pulling a chunked body (no content-length) once it exceeds the limit', async () => {
    const app = new Hono();
    app.onError((err, c) => c.json(toEsError(err).toBody(), toEsError(err).status as 413));
    app.post('/', async (c) => c.json({ length: (await readBodyText(c, 10_000))?.length ?? 0 }));
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 10_000)
          controller.close(); // 40 MB at most, should the reader not stop
        else controller.enqueue(new Uint8Array(4096).fill(0x20));
      },
    });
    const res = await app.request('/', { method: 'POST', body, headers: { 'content-type': 'application/json' }, duplex: 'half' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('content_too_long_exception');
    expect(pulled).toBeLessThan(10);
  });

  it('reads a body at the limit whole', async () => {
    const app = new Hono();
    app.post('/', async (c) => c.json({ length: (await readBodyText(c, 100))?.length ?? 0 }));
    const res = await app.request('/', { method: 'POST', body: ' '.repeat(100), headers: { 'content-type': 'application/json' } });
    expect(await res.json()).toEqual({ length: 100 });
  });

  it("answers ES's 406 to a body without a Content-Type header, and reads an empty one", async () => {
    const app = new Hono();
    app.onError((err, c) => (err instanceof SimpleHttpError ? c.json(err.body, err.status as 406) : c.json({}, 500)));
    app.post('/', async (c) => c.json({ text: (await readBodyText(c, 100)) ?? null }));
    const missing = await app.request('/', { method: 'POST', body: new TextEncoder().encode('{}') });
    expect(missing.status).toBe(406);
    expect(await missing.json()).toEqual({ error: 'Content-Type header is missing', status: 406 });
    const empty = await app.request('/', { method: 'POST' });
    expect(await empty.json()).toEqual({ text: null });
    const plain = await app.request('/', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(await plain.json()).toEqual({ error: 'Content-Type header [text/plain] is not supported', status: 406 });
  });
});
