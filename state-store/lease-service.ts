/**
 * etcd's Lease service over the embedded store: grant (server-chosen ids), keep-alive and revoke.
 * @see https://etcd.io/docs/v3.4/learning/api/#lease-api
 */
import { isStateStoreError } from '../shared/state-store/errors.ts';
import { leaseIdOf, unimplemented, type GatewayContext, type Json } from './gateway-io.ts';
import { decodeInt64, GatewayError, GRPC } from './wire.ts';

/** Longest lease TTL etcd grants (`MaxLeaseTTL`, 9,000,000,000 s); the embedded store's own limit is 2^31 − 1 s. */
const MAX_LEASE_TTL_SECONDS = 2 ** 31 - 1;

/** Lease.LeaseGrant: a lease of `TTL` seconds (at least 1, at most {@link MAX_LEASE_TTL_SECONDS}). */
export async function leaseGrant(ctx: GatewayContext, body: Json): Promise<Json> {
  if (decodeInt64(body.ID, 'ID') !== 0n) throw unimplemented('client-chosen lease ids');
  const requested = decodeInt64(body.TTL, 'TTL');
  if (requested > BigInt(MAX_LEASE_TTL_SECONDS)) throw new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: too large lease TTL');
  // etcd raises a TTL below its minimum to the minimum; the embedded store's minimum is 1 s.
  const lease = await ctx.store.grantLease(Math.max(1, Number(requested)));
  return { header: ctx.header(ctx.store.currentRevision), ID: lease.id, TTL: String(lease.ttlSeconds) };
}

/** A keep-alive: etcd answers an ended lease with its ID and no TTL, not an error. */
export async function leaseKeepAlive(ctx: GatewayContext, body: Json): Promise<Json> {
  const id = leaseIdOf(body.ID, 'ID');
  const result: Json = { header: ctx.header(ctx.store.currentRevision) };
  if (id === undefined) return { result };
  result.ID = id;
  try {
    const ttl = await ctx.store.keepAliveLease(id);
    result.header = ctx.header(ctx.store.currentRevision);
    result.TTL = String(ttl);
  } catch (err) {
    if (!isStateStoreError(err, 'lease_not_found')) throw err;
  }
  return { result };
}

/** Lease.LeaseRevoke: ends the lease and deletes its keys; NOT_FOUND for an unknown lease. */
export async function leaseRevoke(ctx: GatewayContext, body: Json): Promise<Json> {
  const id = leaseIdOf(body.ID, 'ID');
  if (id === undefined) throw new GatewayError(GRPC.NOT_FOUND, 'etcdserver: requested lease not found');
  await ctx.store.revokeLease(id);
  return { header: ctx.header(ctx.store.currentRevision) };
}
