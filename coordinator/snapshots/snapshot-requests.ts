/**
 * The bodies of the snapshot APIs, parsed and checked as ES's request classes parse them
 * (`CreateSnapshotRequest.source`, `RestoreSnapshotRequest.source`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/create-snapshot-api.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/restore-snapshot-api.html
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { INDICES_OPTIONS, indicesOptionsFrom, type IndicesOptions } from '../cluster/indices-options.ts';
import type { RestoreBody } from './snapshot-restore.ts';

/** A `PUT /_snapshot/{repo}/{snap}` body (ES `CreateSnapshotRequest.source`). */
export interface CreateSnapshotBody {
  indices?: string | string[];
  ignore_unavailable?: boolean;
  allow_no_indices?: boolean;
  expand_wildcards?: string | string[];
  include_global_state?: boolean;
  metadata?: Record<string, unknown>;
  partial?: boolean;
}

/** ES `CreateSnapshotRequest`'s default indices options (`strictExpandHidden`): open, closed and hidden indices; a missing name fails. */
const SNAPSHOT_INDICES: IndicesOptions = { ...INDICES_OPTIONS.getAliases, allowNoIndices: true };

/** A request body as an object, `{}` when empty. @throws EsError 400 for a body that is not an object */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw illegalArgument('request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A boolean body field (`true`/`false` or their strings). @throws EsError 400 for anything else */
function boolField(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw illegalArgument(`malformed ${name}, expected boolean but got [${JSON.stringify(v)}]`);
}

/** An indices field: a string, or a list of strings. @throws EsError 400 otherwise */
function indicesField(body: Record<string, unknown>): string | string[] | undefined {
  const v = body.indices;
  if (v === undefined || typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  throw illegalArgument('malformed indices section, should be an array of strings');
}

/** An `expand_wildcards` body value: a string or a list of strings. @throws EsError 400 otherwise */
function expandWildcards(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(',');
  throw illegalArgument('malformed expand_wildcards, should be a string or an array of strings');
}

/** The `PUT /_snapshot/{repo}/{snap}` body (ES `CreateSnapshotRequest.source`). */
export function parseCreateBody(body: Record<string, unknown>): { body: CreateSnapshotBody; options: IndicesOptions } {
  const out: CreateSnapshotBody = {};
  const indices = indicesField(body);
  if (indices !== undefined) out.indices = indices;
  for (const k of ['ignore_unavailable', 'allow_no_indices', 'include_global_state', 'partial'] as const) {
    const v = boolField(body, k);
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  if (body.metadata !== undefined) {
    if (body.metadata === null || typeof body.metadata !== 'object' || Array.isArray(body.metadata))
      throw illegalArgument('malformed metadata, should be an object');
    out.metadata = body.metadata as Record<string, unknown>;
  }
  const params = new URLSearchParams();
  if (out.ignore_unavailable !== undefined) params.set('ignore_unavailable', String(out.ignore_unavailable));
  if (out.allow_no_indices !== undefined) params.set('allow_no_indices', String(out.allow_no_indices));
  if (body.expand_wildcards !== undefined) params.set('expand_wildcards', expandWildcards(body.expand_wildcards));
  return { body: out, options: indicesOptionsFrom(params, SNAPSHOT_INDICES) };
}

const RESTORE_FIELDS = new Set([
  'indices',
  'ignore_unavailable',
  'allow_no_indices',
  'expand_wildcards',
  'include_global_state',
  'include_aliases',
  'partial',
  'rename_pattern',
  'rename_replacement',
  'index_settings',
  'ignore_index_settings',
  'feature_states',
]);

/** The `_restore` body (ES `RestoreSnapshotRequest.source`). @throws EsError 400 `Unknown parameter x` for an unknown field */
export function parseRestoreBody(body: Record<string, unknown>): RestoreBody {
  for (const k of Object.keys(body)) if (!RESTORE_FIELDS.has(k)) throw illegalArgument(`Unknown parameter ${k}`);
  const out: RestoreBody = {};
  const indices = indicesField(body);
  if (indices !== undefined) out.indices = indices;
  for (const k of ['ignore_unavailable', 'allow_no_indices', 'include_global_state', 'include_aliases', 'partial'] as const) {
    const v = boolField(body, k);
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  for (const k of ['rename_pattern', 'rename_replacement'] as const) {
    const v = body[k];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw illegalArgument(`malformed ${k}`);
    out[k] = v;
  }
  if (body.index_settings !== undefined) {
    if (body.index_settings === null || typeof body.index_settings !== 'object' || Array.isArray(body.index_settings))
      throw illegalArgument('malformed index_settings section');
    out.index_settings = body.index_settings as Record<string, unknown>;
  }
  const ignored = body.ignore_index_settings;
  if (ignored !== undefined) {
    if (typeof ignored === 'string' || (Array.isArray(ignored) && ignored.every((x) => typeof x === 'string'))) out.ignore_index_settings = ignored;
    else throw illegalArgument('malformed ignore_index_settings section, should be an array of strings');
  }
  return out;
}
