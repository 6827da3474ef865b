/**
 * How the compose file's etcd service runs without Docker (scripts/local-services.ts translates the
 * other services): the local etcd binary ({@link ETCD_BIN}) with its client URLs on the service's
 * loopback port, its peer URLs on a free one (a one-member cluster), `--data-dir` on the volume's
 * directory; when that binary is absent, the served embedded store (`node state-store/main.ts`, the
 * same JSON gateway and `/health`) on the same port.
 * @see https://etcd.io/docs/v3.4/op-guide/configuration/
 */
import { basename } from 'node:path';
import type { ComposeFile, ComposeService } from './local-services.ts';

/** The local etcd binary for an etcd service: `FOLIO_ETCD_BIN`, else Debian's etcd-server (`/usr/bin/etcd`). */
export const ETCD_BIN = process.env.FOLIO_ETCD_BIN || '/usr/bin/etcd';

/** The command of the served embedded store, which stands in for etcd when {@link ETCD_BIN} is absent. */
export const EMBEDDED_ETCD_COMMAND = ['node', 'state-store/main.ts'];

/** True for a service whose command runs etcd (`etcd`, `/usr/local/bin/etcd`, …). */
export function isEtcdService(service: ComposeService): boolean {
  const cmd = Array.isArray(service.command) ? service.command[0] : typeof service.command === 'string' ? service.command.trim().split(/\s+/)[0] : undefined;
  return cmd !== undefined && basename(String(cmd)) === 'etcd';
}

/** Names of the compose file's etcd services. */
export function etcdServicesOf(compose: ComposeFile): string[] {
  return Object.entries(compose.services)
    .filter(([, svc]) => isEtcdService(svc))
    .map(([name]) => name);
}

/**
 * An etcd command's flags as `[name, value]` pairs, in order (`--flag=value` and `--flag value`
 * forms; a flag without a value gets `''`).
 * @see https://etcd.io/docs/v3.4/op-guide/configuration/
 */
export function etcdFlagsOf(argv: string[]): [string, string][] {
  const flags: [string, string][] = [];
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) throw new Error(`etcd argument [${arg}] is not a flag`);
    const name = arg.replace(/^--?/, '');
    const eq = name.indexOf('=');
    if (eq >= 0) flags.push([name.slice(0, eq), name.slice(eq + 1)]);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('-')) flags.push([name, argv[++i]]);
    else flags.push([name, '']);
  }
  return flags;
}

/**
 * An etcd service's local command: the etcd binary with its client URLs on `url`, its peer URLs
 * on 127.0.0.1:`peerPort` (a one-member `--initial-cluster`) and `--data-dir` on the volume's local
 * directory; without a binary, the served embedded store, told its data directory through FOLIO_DATA.
 * Throws for a `--data-dir` that is not on a volume, a multi-member cluster, or a missing peer port.
 */
export function localEtcd(
  name: string,
  argv: string[],
  mounts: { source: string; target: string }[],
  localDir: (source: string) => string,
  url: string,
  peerPort: number | undefined,
  binary: string | null,
): { argv: string[]; dataDir?: string } {
  const flags = etcdFlagsOf(argv);
  const dataDirFlag = flags.find(([f]) => f === 'data-dir')?.[1];
  let dataDir: string | undefined;
  if (dataDirFlag !== undefined) {
    const mount = mounts.find((m) => dataDirFlag === m.target || dataDirFlag.startsWith(`${m.target}/`));
    if (!mount) throw new Error(`service [${name}]: --data-dir ${dataDirFlag} is not on a volume`);
    dataDir = localDir(mount.source) + dataDirFlag.slice(mount.target.length);
  }
  if (binary === null) return { argv: [...EMBEDDED_ETCD_COMMAND], dataDir };
  if (peerPort === undefined) throw new Error(`no local peer port assigned to etcd service [${name}]`);
  const member = flags.find(([f]) => f === 'name')?.[1] || 'default';
  const peer = `http://127.0.0.1:${peerPort}`;
  const replaced: Record<string, string> = {
    'listen-client-urls': url,
    'advertise-client-urls': url,
    'listen-peer-urls': peer,
    'initial-advertise-peer-urls': peer,
    'initial-cluster': `${member}=${peer}`,
  };
  const cluster = flags.find(([f]) => f === 'initial-cluster')?.[1];
  if (cluster !== undefined && cluster.split(',').length !== 1)
    throw new Error(`service [${name}]: only a one-member --initial-cluster runs locally, got [${cluster}]`);
  if (dataDir !== undefined) replaced['data-dir'] = dataDir;
  const out = [binary];
  for (const [flag, value] of flags) if (!(flag in replaced)) out.push(value === '' ? `--${flag}` : `--${flag}=${value}`);
  for (const [flag, value] of Object.entries(replaced)) out.push(`--${flag}=${value}`);
  return { argv: out };
}
