/**
 * The JSON that etcd's v3 gRPC-gateway speaks, for the served embedded store: proto3 JSON of
 * etcd's messages (bytes as base64, int64 as decimal strings, fields at their zero value left out)
 * and the gateway's error replies. Shapes were taken from etcd 3.4.23's own replies (docs/cluster-state.md,
 * "The served embedded store").
 * @see https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/Documentation/dev-guide/apispec/swagger/rpc.swagger.json
 * @see https://protobuf.dev/programming-guides/proto3/#json (proto3 JSON mapping)
 */
import type { KeyValue } from '../shared/state-store/types.ts';

/** gRPC status codes the served store answers with. @see https://grpc.github.io/grpc/core/md_doc_statuscodes.html */
export const GRPC = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
} as const;

/**
 * The HTTP status grpc-gateway v1 (etcd 3.4's) sends for a gRPC code: 400 for INVALID_ARGUMENT,
 * FAILED_PRECONDITION and OUT_OF_RANGE, 404 NOT_FOUND, 501 UNIMPLEMENTED, 503 UNAVAILABLE, else 500.
 * @see https://github.com/grpc-ecosystem/grpc-gateway/blob/v1.16.0/runtime/errors.go (HTTPStatusFromCode)
 */
export function httpStatusOf(grpcCode: number): number {
  switch (grpcCode) {
    case GRPC.INVALID_ARGUMENT:
    case GRPC.FAILED_PRECONDITION:
    case GRPC.OUT_OF_RANGE:
      return 400;
    case GRPC.NOT_FOUND:
      return 404;
    case GRPC.UNIMPLEMENTED:
      return 501;
    case GRPC.UNAVAILABLE:
      return 503;
    default:
      return 500;
  }
}

/** The reason phrase of an HTTP status, as a stream error's `http_status` carries it. */
const HTTP_STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** An error the gateway reports with a gRPC code; `message` as etcd words it (`etcdserver: …`). */
export class GatewayError extends Error {
  readonly grpcCode: number;

  constructor(grpcCode: number, message: string) {
    super(message);
    this.name = 'GatewayError';
    this.grpcCode = grpcCode;
  }
}

/** A unary error reply: `{"error": msg, "message": msg, "code": N}` (grpc-gateway v1). */
export function unaryErrorBody(err: GatewayError): { error: string; message: string; code: number } {
  return { error: err.message, message: err.message, code: err.grpcCode };
}

/** An error line of a server stream: `{"error": {"grpc_code", "http_code", "message", "http_status"}}`. */
export function streamErrorBody(err: GatewayError): { error: { grpc_code: number; http_code: number; message: string; http_status: string } } {
  const status = httpStatusOf(err.grpcCode);
  return { error: { grpc_code: err.grpcCode, http_code: status, message: err.message, http_status: HTTP_STATUS_TEXT[status] ?? '' } };
}

/** etcd's `ResponseHeader`: cluster and member ids, the store revision (left out when 0) and the Raft term. */
export interface WireHeader {
  cluster_id: string;
  member_id: string;
  revision?: string;
  raft_term: string;
}

/** etcd's `mvccpb.KeyValue` in proto3 JSON. */
export interface WireKeyValue {
  key: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
  value?: string;
  lease?: string;
}

/** A non-zero int64 as its decimal string; 0 as undefined (left out of the JSON). */
export function int64(n: number | bigint | undefined): string | undefined {
  return n === undefined || n === 0 || n === 0n ? undefined : String(n);
}

/** UTF-8 text as base64 (a `bytes` field); `''` as undefined (left out). */
export function bytes(text: string): string | undefined {
  return text === '' ? undefined : Buffer.from(text, 'utf8').toString('base64');
}

/**
 * A stored key as etcd sends it, fields in etcd's order. A delete event's kv has only `key` and
 * `mod_revision`, as the embedded store and etcd both give it.
 */
export function wireKeyValue(kv: KeyValue, keysOnly = false): WireKeyValue {
  const out: WireKeyValue = { key: Buffer.from(kv.key, 'utf8').toString('base64') };
  const fields: [keyof WireKeyValue, string | undefined][] = [
    ['create_revision', int64(kv.createRevision)],
    ['mod_revision', int64(kv.modRevision)],
    ['version', int64(kv.version)],
    ['value', keysOnly ? undefined : bytes(kv.value)],
    ['lease', kv.lease],
  ];
  for (const [name, value] of fields) if (value !== undefined) out[name] = value;
  return out;
}

/** Decodes a `bytes` field (base64; absent = empty). Throws INVALID_ARGUMENT when it is not base64 text. */
export function decodeBytes(value: unknown, field: string): Buffer {
  if (value === undefined || value === null) return Buffer.alloc(0);
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) {
    throw new GatewayError(GRPC.INVALID_ARGUMENT, `bad Base64 data in field "${field}"`);
  }
  return Buffer.from(value, 'base64');
}

/**
 * Decodes an int64 field: a decimal string or a JSON number (both accepted by proto3 JSON); absent = 0n.
 * Throws INVALID_ARGUMENT otherwise.
 */
export function decodeInt64(value: unknown, field: string): bigint {
  if (value === undefined || value === null) return 0n;
  if ((typeof value === 'string' && /^-?[0-9]+$/.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value))) return BigInt(value);
  throw new GatewayError(GRPC.INVALID_ARGUMENT, `bad int64 in field "${field}": ${JSON.stringify(value)}`);
}

/** Decodes a bool field (absent = false). */
export function decodeBool(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  throw new GatewayError(GRPC.INVALID_ARGUMENT, `bad bool in field "${field}": ${JSON.stringify(value)}`);
}

/**
 * Decodes an enum field given by name or number (proto3 JSON accepts both); absent = the first value.
 * Throws INVALID_ARGUMENT for an unknown one.
 */
export function decodeEnum<T extends string>(value: unknown, names: readonly T[], field: string): T {
  if (value === undefined || value === null) return names[0];
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < names.length) return names[value];
  if (typeof value === 'string' && (names as readonly string[]).includes(value)) return value as T;
  throw new GatewayError(GRPC.INVALID_ARGUMENT, `unknown value ${JSON.stringify(value)} for enum field "${field}"`);
}

/**
 * Text of key bytes. The embedded store keeps keys as UTF-8 text, so key bytes that are not valid
 * UTF-8 (which etcd would accept) are refused with INVALID_ARGUMENT.
 */
export function keyText(key: Buffer, field = 'key'): string {
  const text = key.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(key))
    throw new GatewayError(GRPC.INVALID_ARGUMENT, `${field} is not valid UTF-8 (the embedded state store keeps keys as text)`);
  return text;
}
