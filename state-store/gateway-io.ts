/**
 * Request bodies and replies of the served state store, as etcd's JSON gRPC-gateway reads and
 * writes them: a body is one JSON object of proto3 JSON fields, a field this store does not serve
 * is refused with UNIMPLEMENTED, and a store error becomes the gRPC error etcd would send.
 * @see https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { isStateStoreError } from '../shared/state-store/errors.ts';
import { decodeInt64, GatewayError, GRPC } from './wire.ts';
import type { WireHeader } from './wire.ts';

/** Largest request body accepted (etcd's default `--max-request-bytes` is 1.5 MiB of protobuf; JSON and base64 are larger). */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

/** A JSON object of a request or a reply. */
export type Json = Record<string, unknown>;

/** What every etcd service of the gateway works with: the store and etcd's response header. */
export interface GatewayContext {
  store: EmbeddedStore;
  /** etcd's response header; `revision` is left out when 0 (a canceled watch's header has none). */
  header(revision: number | undefined): WireHeader;
}

/** An object field of a request, or an empty object when absent. Throws INVALID_ARGUMENT otherwise. */
export function objectField(value: unknown, field: string): Json {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new GatewayError(GRPC.INVALID_ARGUMENT, `field "${field}" must be an object`);
  return value as Json;
}

/** An array field of a request, or an empty array when absent. Throws INVALID_ARGUMENT otherwise. */
export function arrayField(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GatewayError(GRPC.INVALID_ARGUMENT, `field "${field}" must be an array`);
  return value;
}

/** The UNIMPLEMENTED error (HTTP 501) for something etcd serves and this store does not. */
export function unimplemented(what: string): GatewayError {
  return new GatewayError(GRPC.UNIMPLEMENTED, `the embedded state store does not serve ${what}`);
}

/** Refuses a non-default value of a field this store does not serve. */
export function refuseSet(body: Json, fields: string[], what: string): void {
  for (const f of fields) {
    const v = body[f];
    if (
      v !== undefined &&
      v !== null &&
      v !== false &&
      v !== 0 &&
      v !== '0' &&
      v !== '' &&
      !(Array.isArray(v) && v.length === 0) &&
      v !== 'NONE' &&
      v !== 'KEY'
    ) {
      throw unimplemented(`${what} "${f}"`);
    }
  }
}

/** A `StateStoreError` (or anything else) as the gRPC error etcd would send. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (isStateStoreError(err)) {
    switch (err.code) {
      case 'lease_not_found':
        return new GatewayError(GRPC.NOT_FOUND, 'etcdserver: requested lease not found');
      case 'compacted':
        return new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted');
      case 'invalid_argument':
        return /future revision/.test(err.message)
          ? new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: mvcc: required revision is a future revision')
          : new GatewayError(GRPC.INVALID_ARGUMENT, `etcdserver: ${err.message}`);
      case 'closed':
        // Refused before it was applied: clients may retry elsewhere (EtcdStore treats "stopped" as unsent).
        return new GatewayError(GRPC.UNAVAILABLE, 'etcdserver: server stopped');
      case 'corrupt':
      case 'locked':
      case 'not_leader':
      case 'unavailable':
        return new GatewayError(GRPC.UNAVAILABLE, `etcdserver: ${err.message}`);
    }
  }
  return new GatewayError(GRPC.UNAVAILABLE, `etcdserver: ${(err as Error)?.message ?? String(err)}`);
}

/** Reads the whole body, up to {@link MAX_REQUEST_BODY_BYTES}, and parses it as one JSON object. */
export async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BODY_BYTES) throw new GatewayError(GRPC.INVALID_ARGUMENT, 'etcdserver: request is too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new GatewayError(GRPC.INVALID_ARGUMENT, (err as Error).message);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new GatewayError(GRPC.INVALID_ARGUMENT, 'the request body must be a JSON object');
  return parsed as Json;
}

/** Headers of every JSON reply, as etcd's gateway sends them. */
export const JSON_HEADERS = { 'content-type': 'application/json', 'grpc-metadata-content-type': 'application/grpc' };

/** Sends a JSON reply with etcd's gateway headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Sends a plain-text reply (`/health`, 404 and 405 answers, as etcd's HTTP mux). */
export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A lease id field: a positive decimal int64 as the store names it, or undefined for 0/absent. */
export function leaseIdOf(value: unknown, field: string): string | undefined {
  const id = decodeInt64(value, field);
  return id === 0n ? undefined : id.toString();
}
