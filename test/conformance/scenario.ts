/**
 * Loads the conformance scenario files (YAML, see README.md beside this file) and runs their steps
 * against a live coordinator: builds each request (JSON, NDJSON or raw body; `${name}` captures
 * substituted), checks the status, headers and body with the partial matcher, and records captures
 * for the later steps of the same scenario.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { parse } from 'yaml';
import { match, type Mismatch } from './matcher.ts';

/** One HTTP request of a step. Exactly one of `body` (JSON), `ndjson` (lines) or `raw` (text) may be set. */
export interface StepRequest {
  method: string;
  path: string;
  body?: unknown;
  ndjson?: unknown[];
  raw?: string;
  headers?: Record<string, string>;
}

/** What a step's reply must look like: status, header values and a partial body match. */
export interface StepExpect {
  status?: number | string;
  headers?: Record<string, unknown>;
  body?: unknown;
  /** Matched against the raw response text (e.g. `{$regex: …}` for `?pretty`). */
  text?: unknown;
}

/** One request, its expectations, and the values to capture from its reply (`name: body.path.to.value`). */
export interface Step {
  /** Milliseconds to wait before sending (to let a keep-alive expire). */
  wait_ms?: number;
  request: StepRequest;
  expect?: StepExpect;
  capture?: Record<string, string>;
}

/** A named scenario: the ES behaviour it pins, the source that documents it, and its steps. */
export interface Scenario {
  name: string;
  pins: string;
  see: string;
  steps: Step[];
}

/** A scenario file: fixture steps run once before its scenarios, cleanup steps once after. */
export interface ScenarioFile {
  file: string;
  setup: Step[];
  teardown: Step[];
  scenarios: Scenario[];
}

/** A reply as the matcher sees it: the status, lower-cased headers and the body (JSON, or text). */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/** The shared fixture (`_fixture.yaml`): a mapping and documents that `{fixture: {index, shards}}` steps load. */
interface Fixture {
  mappings: unknown;
  docs: Record<string, unknown>[];
}

/** Directory of the scenario files. */
export const SCENARIO_DIR = new URL('.', import.meta.url).pathname;

function fail(file: string, msg: string): never {
  throw new Error(`${file}: ${msg}`);
}

/** Expands a `{fixture: {index, shards}}` setup entry into a delete, a create and a refreshing bulk. */
function fixtureSteps(spec: { index: string; shards?: number }, fixture: Fixture): Step[] {
  const ndjson = fixture.docs.flatMap(({ _id, ...doc }) => [{ index: { _id } }, doc]);
  return [
    { request: { method: 'DELETE', path: `/${spec.index}` }, expect: { status: '$any' } },
    {
      request: {
        method: 'PUT',
        path: `/${spec.index}`,
        body: { settings: { number_of_shards: spec.shards ?? 3, number_of_replicas: 0 }, mappings: fixture.mappings },
      },
      expect: { status: 200 },
    },
    { request: { method: 'POST', path: `/${spec.index}/_bulk?refresh=true`, ndjson }, expect: { status: 200, body: { errors: false } } },
  ];
}

function toStep(file: string, raw: unknown, fixture: Fixture): Step[] {
  const s = raw as Record<string, unknown>;
  if (s.fixture !== undefined) return fixtureSteps(s.fixture as { index: string; shards?: number }, fixture);
  const req = s.request as StepRequest | undefined;
  if (!req || typeof req.method !== 'string' || typeof req.path !== 'string')
    fail(file, `a step needs request.method and request.path: ${JSON.stringify(raw)}`);
  return [
    {
      wait_ms: s.wait_ms as number | undefined,
      request: req,
      expect: s.expect as StepExpect | undefined,
      capture: s.capture as Record<string, string> | undefined,
    },
  ];
}

/** Reads one scenario file; a scenario is either one step (`request`/`expect`/`capture`) or `steps: […]`. */
export function loadScenarioFile(path: string, fixture: Fixture): ScenarioFile {
  const file = path.split('/').pop()!;
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const steps = (list: unknown) => ((list as unknown[] | undefined) ?? []).flatMap((s) => toStep(file, s, fixture));
  const scenarios = ((doc.scenarios as Record<string, unknown>[] | undefined) ?? []).map((s) => {
    for (const k of ['name', 'pins', 'see']) if (typeof s[k] !== 'string' || s[k] === '') fail(file, `scenario ${JSON.stringify(s.name)} needs a [${k}]`);
    if (!/^https:\/\//.test(String(s.see))) fail(file, `scenario [${String(s.name)}]: [see] must be a link`);
    return { name: String(s.name), pins: String(s.pins), see: String(s.see), steps: s.steps !== undefined ? steps(s.steps) : toStep(file, s, fixture) };
  });
  const names = new Set<string>();
  for (const s of scenarios) {
    if (names.has(s.name)) fail(file, `duplicate scenario name [${s.name}]`);
    names.add(s.name);
  }
  return { file, setup: steps(doc.setup), teardown: steps(doc.teardown), scenarios };
}

/** Every `*.yaml` file of {@link SCENARIO_DIR} except those starting with `_`, sorted by name. */
export function loadAllScenarioFiles(dir = SCENARIO_DIR): ScenarioFile[] {
  const fixture = parse(readFileSync(join(dir, '_fixture.yaml'), 'utf8')) as Fixture;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && !f.startsWith('_'))
    .sort()
    .map((f) => loadScenarioFile(join(dir, f), fixture));
}

/** Replaces `${name}` by captured values: a string that is exactly `${name}` becomes the value itself (any type). */
export function substitute(v: unknown, vars: Record<string, unknown>): unknown {
  if (typeof v === 'string') {
    const whole = /^\$\{([\w.-]+)\}$/.exec(v);
    if (whole) {
      if (!Object.hasOwn(vars, whole[1])) throw new Error(`no capture named [${whole[1]}]`);
      return vars[whole[1]];
    }
    return v.replace(/\$\{([\w.-]+)\}/g, (_, name: string) => {
      if (!Object.hasOwn(vars, name)) throw new Error(`no capture named [${name}]`);
      const x = vars[name];
      return typeof x === 'string' ? x : JSON.stringify(x);
    });
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, vars)]));
  return v;
}

/** Reads a dotted path (`body.hits.hits.-1.sort`; negative indices count from the end) out of a reply. */
export function pick(reply: Reply, path: string): unknown {
  let at: unknown = reply;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    if (Array.isArray(at) && /^-?\d+$/.test(part)) at = at.at(Number(part));
    else at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** Sends one step's request (after substitution) and returns the reply. */
export async function send(base: string, req: StepRequest): Promise<Reply> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  } else if (req.ndjson !== undefined) {
    body = req.ndjson.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n').join('');
    headers['content-type'] = 'application/x-ndjson';
  } else if (req.raw !== undefined) {
    body = req.raw;
    headers['content-type'] = 'application/json';
  }
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  const res = await request(base + req.path, { method: req.method as 'GET', body, headers, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  let parsed: unknown = text === '' ? undefined : text;
  if (/json/.test(flat['content-type'] ?? '') && text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text: a scenario may match it with $regex
    }
  }
  return { status: res.statusCode, headers: flat, body: parsed, text };
}

/** Checks a reply against a step's expectations; the default expectation is status 200. */
export function check(expect: StepExpect | undefined, reply: Reply): Mismatch[] {
  const e = expect ?? {};
  const out: Mismatch[] = [];
  const status = e.status ?? 200;
  out.push(...match(status, reply.status, 'status'));
  for (const [k, v] of Object.entries(e.headers ?? {})) out.push(...match(v, reply.headers[k.toLowerCase()], `headers.${k.toLowerCase()}`));
  if (Object.hasOwn(e, 'body')) out.push(...match(e.body, reply.body, 'body'));
  if (Object.hasOwn(e, 'text')) out.push(...match(e.text, reply.text, 'text'));
  return out;
}

/** Formats mismatches and the reply for a failing test's message. */
export function describeFailure(label: string, req: StepRequest, mismatches: Mismatch[], reply: Reply): string {
  const lines = mismatches.map((m) => `  at ${m.path}: ${m.why}\n    expected: ${JSON.stringify(m.expected)}\n    actual:   ${JSON.stringify(m.actual)}`);
  const body = JSON.stringify(reply.body);
  return `${label}: ${req.method} ${req.path}\n${lines.join('\n')}\n  reply ${reply.status}: ${body.length > 1500 ? body.slice(0, 1500) + '…' : body}`;
}

/**
 * Runs steps in order, sharing captures; throws an Error listing the mismatches of the first
 * failing step. `vars` is updated in place with each step's captures.
 */
export async function runSteps(base: string, steps: Step[], label: string, vars: Record<string, unknown> = {}): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (step.wait_ms) await new Promise((r) => setTimeout(r, step.wait_ms));
    const req = substitute(step.request, vars) as StepRequest;
    const reply = await send(base, req);
    const mismatches = check(substitute(step.expect, vars) as StepExpect | undefined, reply);
    if (mismatches.length > 0) throw new Error(describeFailure(`${label} (step ${i + 1} of ${steps.length})`, req, mismatches, reply));
    for (const [name, path] of Object.entries(step.capture ?? {})) {
      const v = pick(reply, path);
      if (v === undefined) throw new Error(`${label} (step ${i + 1}): capture [${name}] found nothing at [${path}]`);
      vars[name] = v;
    }
  }
}
