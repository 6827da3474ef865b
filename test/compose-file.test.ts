/**
 * Shape checks of docker-compose.yml and the Dockerfile (no Docker engine runs here), and of the
 * compose-to-local translation that `npm start` and the end-to-end tests use.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  commandOf,
  containerPortOf,
  dependenciesOf,
  dependencyLevels,
  dockerfileEnvironment,
  environmentOf,
  namedVolumesOf,
  parseDurationMs,
  readComposeFile,
  restartPolicyOf,
  translateServices,
  volumeMountsOf,
} from '../scripts/local-services.ts';
import { localPreload } from '../scripts/local-preload.ts';
import { etcdFlagsOf, isEtcdService } from '../scripts/local-etcd.ts';
import { loadShardNodeConfig } from '../shard-node/config.ts';
import { parseEtcdEndpoints } from '../shared/state-store/open-store.ts';

const compose = readComposeFile();
const shards = ['shard-0', 'shard-1', 'shard-2'];
/** The services built from the Dockerfile (all but etcd). */
const folio = ['coordinator', ...shards];
const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');

describe('docker-compose.yml', () => {
  it('declares the coordinator, three shard nodes and etcd', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['coordinator', 'etcd', ...shards]);
  });

  it('builds one image from the Dockerfile for every Folio service', () => {
    for (const name of folio) {
      const svc = compose.services[name];
      expect([name, svc.build]).toEqual([name, '.']);
      expect([name, svc.image]).toEqual([name, 'folio:dev']);
    }
  });

  it('runs each role with its entry point and environment', () => {
    expect(commandOf('coordinator', compose.services.coordinator)).toEqual(['node', 'coordinator/main.ts']);
    const env = environmentOf(compose.services.coordinator);
    expect(env).toMatchObject({ FOLIO_HOST: '0.0.0.0', FOLIO_PORT: '9200' });
    expect(env.FOLIO_NODES.split(',')).toEqual(shards.map((s) => `http://${s}:9300`));
    for (const s of shards) {
      expect(commandOf(s, compose.services[s])).toEqual(['node', 'shard-node/main.ts']);
      expect(environmentOf(compose.services[s])).toMatchObject({ FOLIO_NODE_ID: s, FOLIO_HOST: '0.0.0.0', FOLIO_PORT: '9300', FOLIO_DATA: '/data' });
    }
  });

  it('gives every Folio service the same FOLIO_CLUSTER_SECRET, and the shard nodes a config that loads', () => {
    const secrets = folio.map((name) => environmentOf(compose.services[name]).FOLIO_CLUSTER_SECRET);
    expect(secrets[0]).toMatch(/\S{16,}/);
    expect(new Set(secrets).size).toBe(1);
    for (const s of shards) expect(loadShardNodeConfig(environmentOf(compose.services[s])).clusterSecret).toBe(secrets[0]);
  });

  it('publishes only 9200:9200, on the coordinator', () => {
    const published = Object.entries(compose.services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([n]) => n)).toEqual(['coordinator']);
    expect(compose.services.coordinator.ports).toEqual(['9200:9200']);
  });

  it('starts the shard nodes once etcd is healthy, and the coordinator once etcd and every shard node are', () => {
    expect(dependenciesOf(compose.services.coordinator)).toEqual(['etcd', ...shards].map((service) => ({ service, condition: 'service_healthy' })));
    for (const s of shards) expect(dependenciesOf(compose.services[s])).toEqual([{ service: 'etcd', condition: 'service_healthy' }]);
    expect(dependenciesOf(compose.services.etcd)).toEqual([]);
    expect(dependencyLevels(compose)).toEqual([['etcd'], shards, ['coordinator']]);
  });

  it('points every Folio service at the etcd service (FOLIO_ETCD, parsed as openStateStore does)', () => {
    for (const name of folio) expect([name, parseEtcdEndpoints(environmentOf(compose.services[name]).FOLIO_ETCD ?? '')]).toEqual([name, ['http://etcd:2379']]);
    expect(containerPortOf('etcd', compose.services.etcd)).toBe(2379);
  });

  it('runs etcd 3.4.23 (the version Debian ships) from the official image, one member, data on its volume', () => {
    const etcd = compose.services.etcd;
    expect(etcd.image).toBe('quay.io/coreos/etcd:v3.4.23');
    expect(etcd.build).toBeUndefined();
    expect(isEtcdService(etcd)).toBe(true);
    const flags = new Map(etcdFlagsOf(commandOf('etcd', etcd)));
    expect(commandOf('etcd', etcd)[0]).toBe('/usr/local/bin/etcd');
    expect(Object.fromEntries(flags)).toMatchObject({
      name: 'etcd',
      'data-dir': '/etcd-data',
      'listen-client-urls': 'http://0.0.0.0:2379',
      'advertise-client-urls': 'http://etcd:2379',
      'listen-peer-urls': 'http://0.0.0.0:2380',
      'initial-advertise-peer-urls': 'http://etcd:2380',
      'initial-cluster': 'etcd=http://etcd:2380',
      'initial-cluster-state': 'new',
    });
    expect(volumeMountsOf(etcd)).toEqual([{ source: 'etcd-data', target: '/etcd-data' }]);
    expect(etcd.ports).toBeUndefined(); // only the compose network reaches it
    expect(etcd.healthcheck?.test).toEqual(['CMD', 'etcdctl', 'endpoint', 'health']);
    expect(() => parseDurationMs(etcd.healthcheck?.interval, 0)).not.toThrow();
  });

  it('health-checks each Folio service with a node fetch of its own health URL', () => {
    const expected: Record<string, string> = {
      coordinator: 'http://127.0.0.1:9200/',
      ...Object.fromEntries(shards.map((s) => [s, 'http://127.0.0.1:9300/_internal/v1/health'])),
    };
    for (const name of folio) {
      const svc = compose.services[name];
      const test = svc.healthcheck?.test;
      expect(Array.isArray(test)).toBe(true);
      const [form, bin, flag, script] = test as string[];
      expect([form, bin, flag]).toEqual(['CMD', 'node', '-e']);
      expect(script).toContain(`fetch('${expected[name]}')`);
      expect(script).toMatch(/process\.exit\(r\.ok \? 0 : 1\)/);
      expect(() => parseDurationMs(svc.healthcheck?.interval, 0)).not.toThrow();
      expect(() => parseDurationMs(svc.healthcheck?.timeout, 0)).not.toThrow();
    }
  });

  it('gives each shard node its own named volume at /data, and every Folio service the shared snapshots volume as its path.repo', () => {
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(['etcd-data', ...shards.map((s) => `${s}-data`), 'snapshots']);
    for (const s of shards) {
      expect(volumeMountsOf(compose.services[s])).toEqual([
        { source: `${s}-data`, target: '/data' },
        { source: 'snapshots', target: '/snapshots' },
      ]);
      expect(namedVolumesOf(compose, s)).toEqual([`${s}-data`, 'snapshots']);
    }
    expect(volumeMountsOf(compose.services.coordinator)).toEqual([{ source: 'snapshots', target: '/snapshots' }]);
    for (const name of folio) expect(environmentOf(compose.services[name]).FOLIO_PATH_REPO).toBe('/snapshots');
    expect(containerPortOf('coordinator', compose.services.coordinator)).toBe(9200);
  });

  it('restarts every service unless stopped (npm start applies the same policy)', () => {
    for (const [name, svc] of Object.entries(compose.services)) expect([name, restartPolicyOf(name, svc)]).toEqual([name, 'unless-stopped']);
    expect(restartPolicyOf('x', {})).toBe('no');
    expect(restartPolicyOf('x', { restart: 'on-failure:3' })).toBe('on-failure');
    expect(() => restartPolicyOf('x', { restart: 'sometimes' })).toThrow('service [x]: unknown restart policy [sometimes]');
  });
});

describe('Dockerfile', () => {
  const instructions = dockerfile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('builds on node:24-slim with production dependencies only', () => {
    expect(instructions[0]).toBe('FROM node:24-slim');
    expect(instructions.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
    expect(instructions.some((l) => /^COPY package\.json package-lock\.json /.test(l))).toBe(true);
  });

  it('copies the sources the entry points need, runs as non-root, exposes both ports', () => {
    for (const dir of ['protocol', 'shared', 'shard-node', 'coordinator', 'state-store']) expect(instructions).toContain(`COPY ${dir} ./${dir}`);
    const user = instructions.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)$/);
    expect(instructions).toContain('EXPOSE 9200 9300');
    expect(instructions.at(-1)).toBe('CMD ["node", "coordinator/main.ts"]');
  });

  it('copies every top-level folder that the entry points of the services import, directly or not', () => {
    const copied = new Set(instructions.flatMap((l) => /^COPY (\S+) \.\/\1$/.exec(l)?.[1] ?? []));
    const seen = new Set<string>();
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      for (const m of text.matchAll(/^(?:import|export)[^'";]*?from '(\.{1,2}\/[^']+)'/gm)) walk(join(dirname(file), m[1]));
    };
    for (const main of ['coordinator/main.ts', 'shard-node/main.ts', 'state-store/main.ts']) walk(main);
    const folders = new Set([...seen].map((f) => f.split('/')[0]));
    expect(folders.has('protocol')).toBe(true);
    for (const folder of folders) expect(copied, `${folder}/ is imported by a service but not copied`).toContain(folder);
  });
});

describe('compose → local translation', () => {
  const ports = { 'shard-0': 41000, 'shard-1': 41001, 'shard-2': 41002, coordinator: 41003, etcd: 41004 };
  const volumeDirs = {
    ...Object.fromEntries(shards.map((s) => [`${s}-data`, `/tmp/folio/${s}`])),
    'etcd-data': '/tmp/folio/etcd',
    snapshots: '/tmp/folio/snapshots',
  };
  const local = translateServices(compose, { ports, volumeDirs, peerPorts: { etcd: 41005 }, etcdBinary: '/usr/bin/etcd', env: { FOLIO_LOG_LEVEL: 'warn' } });
  const byName = Object.fromEntries(local.map((s) => [s.name, s]));

  it('orders services by depends_on and maps service host names to loopback ports', () => {
    expect(local.map((s) => s.name)).toEqual(['etcd', ...shards, 'coordinator']);
    for (const name of folio) expect(byName[name].env.FOLIO_ETCD).toBe('http://127.0.0.1:41004');
    expect(byName.coordinator.env.FOLIO_NODES).toBe('http://127.0.0.1:41000,http://127.0.0.1:41001,http://127.0.0.1:41002');
    expect(byName.coordinator.env).toMatchObject({ FOLIO_HOST: '127.0.0.1', FOLIO_PORT: '41003', FOLIO_LOG_LEVEL: 'warn' });
    expect(byName.coordinator.url).toBe('http://127.0.0.1:41003');
    expect(byName.coordinator.published).toBe(true);
  });

  it("starts the services built from the Dockerfile from the image's environment, beneath their compose environment", () => {
    const image = dockerfileEnvironment(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
    // The fixed malloc thresholds that keep a shard node's freed buffers from staying resident (docs/performance.md).
    expect(image).toMatchObject({ NODE_ENV: 'production', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });
    expect(image).toMatchObject({ LD_PRELOAD: '/usr/local/lib/libjemalloc.so.2', MALLOC_CONF: 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0' });
    // The preload as this machine has it (local-preload.ts), for the shard nodes; the coordinator's compose environment empties it.
    for (const name of folio.filter((n) => n !== 'coordinator')) expect(byName[name].env).toMatchObject(localPreload(image));
    expect(byName.coordinator.env).toMatchObject({ ...localPreload(image), LD_PRELOAD: '' });
    expect(byName.etcd.env.MALLOC_MMAP_THRESHOLD_).toBeUndefined();
    expect(byName.coordinator.env.FOLIO_PORT).toBe('41003');
    expect(dockerfileEnvironment('FROM x\nENV A=1 B=2\n  ENV A=3\nRUN ENV=4\n')).toEqual({ A: '3', B: '2' });
  });

  it('maps volumes to local directories and rewrites the health-check URL', () => {
    expect(byName['shard-1'].env).toMatchObject({ FOLIO_DATA: '/tmp/folio/shard-1', FOLIO_PORT: '41001', FOLIO_NODE_ID: 'shard-1' });
    for (const name of folio) expect(byName[name].env.FOLIO_PATH_REPO).toBe('/tmp/folio/snapshots'); // one shared directory
    expect(byName['shard-1'].healthcheck?.argv.at(-1)).toContain("fetch('http://127.0.0.1:41001/_internal/v1/health')");
    expect(byName.coordinator.healthcheck?.argv.at(-1)).toContain("fetch('http://127.0.0.1:41003/')");
    expect(local.map((l) => l.restart)).toEqual(local.map(() => 'unless-stopped'));
    expect(local.map((l) => l.stopGraceMs)).toEqual(local.map(() => 10_000));
  });

  it('runs the etcd service as the local etcd binary: client URLs on its port, peer URLs on the peer port, data on the volume', () => {
    expect(byName.etcd.argv).toEqual([
      '/usr/bin/etcd',
      '--name=etcd',
      '--initial-cluster-state=new',
      '--initial-cluster-token=folio',
      '--logger=zap',
      '--listen-client-urls=http://127.0.0.1:41004',
      '--advertise-client-urls=http://127.0.0.1:41004',
      '--listen-peer-urls=http://127.0.0.1:41005',
      '--initial-advertise-peer-urls=http://127.0.0.1:41005',
      '--initial-cluster=etcd=http://127.0.0.1:41005',
      '--data-dir=/tmp/folio/etcd',
    ]);
    expect(byName.etcd).toMatchObject({
      port: 41004,
      url: 'http://127.0.0.1:41004',
      containerPort: 2379,
      published: false,
      restart: 'unless-stopped',
      dependsOn: [],
    });
    // etcdctl is not installed here (Debian's etcd-client): the check is a GET of etcd's /health.
    const hc = byName.etcd.healthcheck?.argv ?? [];
    if (hc[0] === 'etcdctl') expect(hc).toEqual(['etcdctl', '--endpoints=http://127.0.0.1:41004', 'endpoint', 'health']);
    else
      expect(hc).toEqual([
        'node',
        '-e',
        "fetch('http://127.0.0.1:41004/health').then((r) => r.json()).then((b) => process.exit(b.health === 'true' ? 0 : 1), () => process.exit(1))",
      ]);
    expect(() => translateServices(compose, { ports, volumeDirs, etcdBinary: '/usr/bin/etcd' })).toThrow(
      /no local peer port assigned to etcd service \[etcd\]/,
    );
  });

  it('runs the served embedded store on the same port and volume when there is no etcd binary', () => {
    const fallback = translateServices(compose, { ports, volumeDirs, etcdBinary: null, services: ['etcd'] });
    expect(fallback.map((s) => s.name)).toEqual(['etcd']);
    expect(fallback[0].argv).toEqual(['node', 'state-store/main.ts']);
    expect(fallback[0].env).toMatchObject({ FOLIO_HOST: '127.0.0.1', FOLIO_PORT: '41004', FOLIO_DATA: '/tmp/folio/etcd' });
  });

  it('leaves an external etcd out (npm start with FOLIO_ETCD): not started, not depended on, its endpoints in FOLIO_ETCD', () => {
    const endpoints = 'http://10.0.0.5:2379,http://10.0.0.6:2379';
    const withExternal = translateServices(compose, { ports, volumeDirs, external: { etcd: endpoints } });
    expect(withExternal.map((s) => s.name)).toEqual([...shards, 'coordinator']);
    for (const s of withExternal) {
      expect(s.env.FOLIO_ETCD).toBe(endpoints);
      expect(s.dependsOn.map((d) => d.service)).not.toContain('etcd');
    }
    expect(dependencyLevels(compose, undefined, ['etcd'])).toEqual([shards, ['coordinator']]);
    expect(() => translateServices(compose, { ports, volumeDirs, external: { etcd9: endpoints } })).toThrow(/unknown external service \[etcd9\]/);
  });

  it('adds dependencies of selected services and rejects unknown ones', () => {
    expect(dependencyLevels(compose, ['coordinator'])).toEqual([['etcd'], shards, ['coordinator']]);
    expect(dependencyLevels(compose, ['shard-2'])).toEqual([['etcd'], ['shard-2']]);
    expect(() => dependencyLevels(compose, ['shard-9'])).toThrow(/unknown service \[shard-9\]/);
    expect(() => translateServices(compose, { ports: {}, volumeDirs })).toThrow(/no local port/);
  });

  it('parses compose durations', () => {
    expect(parseDurationMs('1m30s', 0)).toBe(90_000);
    expect(parseDurationMs('500ms', 0)).toBe(500);
    expect(parseDurationMs(undefined, 7)).toBe(7);
    expect(() => parseDurationMs('5 seconds', 0)).toThrow();
  });
});
