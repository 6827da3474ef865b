/**
 * Shape checks of docker-compose.yml and the Dockerfile (no Docker engine runs here), and of the
 * compose-to-local translation that `npm start` and the end-to-end tests use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  commandOf,
  containerPortOf,
  dependenciesOf,
  dependencyLevels,
  environmentOf,
  namedVolumesOf,
  parseDurationMs,
  readComposeFile,
  restartPolicyOf,
  translateServices,
  volumeMountsOf,
} from '../scripts/local-services.ts';
import { loadShardNodeConfig } from '../shard-node/config.ts';

const compose = readComposeFile();
const shards = ['shard-0', 'shard-1', 'shard-2'];
const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');

describe('docker-compose.yml', () => {
  it('declares the coordinator and three shard nodes', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['coordinator', ...shards]);
  });

  it('builds one image from the Dockerfile for every service', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
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

  it('gives every service the same FOLIO_CLUSTER_SECRET, and the shard nodes a config that loads', () => {
    const secrets = Object.values(compose.services).map((svc) => environmentOf(svc).FOLIO_CLUSTER_SECRET);
    expect(secrets[0]).toMatch(/\S{16,}/);
    expect(new Set(secrets).size).toBe(1);
    for (const s of shards) expect(loadShardNodeConfig(environmentOf(compose.services[s])).clusterSecret).toBe(secrets[0]);
  });

  it('publishes only 9200:9200, on the coordinator', () => {
    const published = Object.entries(compose.services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([n]) => n)).toEqual(['coordinator']);
    expect(compose.services.coordinator.ports).toEqual(['9200:9200']);
  });

  it('starts the coordinator only after every shard node is healthy', () => {
    expect(dependenciesOf(compose.services.coordinator)).toEqual(shards.map((service) => ({ service, condition: 'service_healthy' })));
    for (const s of shards) expect(dependenciesOf(compose.services[s])).toEqual([]);
    expect(dependencyLevels(compose)).toEqual([shards, ['coordinator']]);
  });

  it('health-checks each service with a node fetch of its own health URL', () => {
    const expected: Record<string, string> = {
      coordinator: 'http://127.0.0.1:9200/',
      ...Object.fromEntries(shards.map((s) => [s, 'http://127.0.0.1:9300/_internal/v1/health'])),
    };
    for (const [name, svc] of Object.entries(compose.services)) {
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

  it('gives each shard node its own named volume at /data, and the coordinator none', () => {
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(shards.map((s) => `${s}-data`));
    for (const s of shards) {
      expect(volumeMountsOf(compose.services[s])).toEqual([{ source: `${s}-data`, target: '/data' }]);
      expect(namedVolumesOf(compose, s)).toEqual([`${s}-data`]);
    }
    expect(compose.services.coordinator.volumes).toBeUndefined();
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
    for (const dir of ['shared', 'shard-node', 'coordinator']) expect(instructions).toContain(`COPY ${dir} ./${dir}`);
    const user = instructions.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)$/);
    expect(instructions).toContain('EXPOSE 9200 9300');
    expect(instructions.at(-1)).toBe('CMD ["node", "coordinator/main.ts"]');
  });
});

describe('compose → local translation', () => {
  const ports = { 'shard-0': 41000, 'shard-1': 41001, 'shard-2': 41002, coordinator: 41003 };
  const volumeDirs = Object.fromEntries(shards.map((s) => [`${s}-data`, `/tmp/folio/${s}`]));
  const local = translateServices(compose, { ports, volumeDirs, env: { FOLIO_LOG_LEVEL: 'warn' } });
  const byName = Object.fromEntries(local.map((s) => [s.name, s]));

  it('orders services by depends_on and maps service host names to loopback ports', () => {
    expect(local.map((s) => s.name)).toEqual([...shards, 'coordinator']);
    expect(byName.coordinator.env.FOLIO_NODES).toBe('http://127.0.0.1:41000,http://127.0.0.1:41001,http://127.0.0.1:41002');
    expect(byName.coordinator.env).toMatchObject({ FOLIO_HOST: '127.0.0.1', FOLIO_PORT: '41003', FOLIO_LOG_LEVEL: 'warn' });
    expect(byName.coordinator.url).toBe('http://127.0.0.1:41003');
    expect(byName.coordinator.published).toBe(true);
  });

  it('maps volumes to local directories and rewrites the health-check URL', () => {
    expect(byName['shard-1'].env).toMatchObject({ FOLIO_DATA: '/tmp/folio/shard-1', FOLIO_PORT: '41001', FOLIO_NODE_ID: 'shard-1' });
    expect(byName['shard-1'].healthcheck?.argv.at(-1)).toContain("fetch('http://127.0.0.1:41001/_internal/v1/health')");
    expect(byName.coordinator.healthcheck?.argv.at(-1)).toContain("fetch('http://127.0.0.1:41003/')");
    expect(local.map((l) => l.restart)).toEqual(local.map(() => 'unless-stopped'));
    expect(local.map((l) => l.stopGraceMs)).toEqual(local.map(() => 10_000));
  });

  it('adds dependencies of selected services and rejects unknown ones', () => {
    expect(dependencyLevels(compose, ['coordinator'])).toEqual([shards, ['coordinator']]);
    expect(dependencyLevels(compose, ['shard-2'])).toEqual([['shard-2']]);
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
