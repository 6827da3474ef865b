/**
 * Reading typed configuration from the environment, with ES-style errors at startup.
 * Each service's `config.ts` uses these helpers and is the only place that reads `process.env`.
 */

/** Reads an integer variable; `dflt` when unset or empty. Throws on a non-integer value. */
export function envInt(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got [${raw}]`);
  return n;
}

/** Reads a string variable; `dflt` when unset or empty. */
export function envStr(env: NodeJS.ProcessEnv, name: string, dflt: string): string {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? dflt : raw.trim();
}

/**
 * Reads a boolean variable (`true`/`false`, any case); `dflt` when unset or empty.
 * @throws Error on any other value
 */
export function envBool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return dflt;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`${name} must be true or false, got [${env[name]}]`);
}
