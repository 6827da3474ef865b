/**
 * The one error type of the state store (`types.ts`), with a code a caller can switch on. The
 * codes follow the gRPC status codes etcd answers with, named for what the caller should do.
 * @see https://etcd.io/docs/v3.4/dev-guide/api_reference_v3/ (error codes in the gRPC API)
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/etcdserver/api/v3rpc/rpctypes/error.go
 */

/**
 * - `unavailable`: no endpoint answered, no quorum, or a timeout (gRPC UNAVAILABLE / DEADLINE_EXCEEDED).
 *   When `ambiguous` is true the write may or may not have applied: re-read before retrying.
 * - `compacted`: the revision asked for has been compacted away (`compactRevision` tells the oldest kept).
 * - `lease_not_found`: the lease expired or was revoked (gRPC NOT_FOUND, "requested lease not found").
 * - `invalid_argument`: a malformed request, e.g. a key written twice in one transaction.
 * - `closed`: the store was closed.
 * - `locked`: the embedded store's directory is held by another live process.
 * - `corrupt`: the embedded store's files cannot be read back.
 * - `not_leader`: an election campaign's key is gone (its lease ended, or it resigned), so it no longer leads.
 */
export type StateStoreErrorCode = 'unavailable' | 'compacted' | 'lease_not_found' | 'invalid_argument' | 'closed' | 'locked' | 'corrupt' | 'not_leader';

/** An error of a {@link import('./types.ts').StateStore} operation. */
export class StateStoreError extends Error {
  readonly code: StateStoreErrorCode;
  /** For `compacted`: the store's compacted revision (history starts there). */
  readonly compactRevision: number | undefined;
  /** For `unavailable`: true when a write may have applied although it failed. */
  readonly ambiguous: boolean;

  constructor(code: StateStoreErrorCode, message: string, opts: { compactRevision?: number; ambiguous?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'StateStoreError';
    this.code = code;
    this.compactRevision = opts.compactRevision;
    this.ambiguous = opts.ambiguous ?? false;
  }
}

/** True when `err` is a {@link StateStoreError} with `code`. */
export function isStateStoreError(err: unknown, code?: StateStoreErrorCode): err is StateStoreError {
  return err instanceof StateStoreError && (code === undefined || err.code === code);
}
