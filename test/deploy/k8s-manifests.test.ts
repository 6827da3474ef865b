/**
 * Invariants of deploy/k8s that make it work on a real cluster (none runs here): every manifest
 * parses and passes the Kubernetes OpenAPI schema (kubernetes-models), selectors match pod labels,
 * ports agree with FOLIO_PORT and the compose file, the headless Service governs the StatefulSet,
 * the coordinator's URL template expands to the names that Service serves, every env name is read
 * by a config loader, image and commands match the Dockerfile and docker-compose.yml, the probe
 * paths answer on the in-process apps, and the grace periods cover the shutdown bounds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoordinatorApp } from '../../coordinator/app.ts';
import { ClusterView } from '../../coordinator/cluster/cluster-view.ts';
import { loadCoordinatorConfig } from '../../coordinator/config.ts';
import { shutdownBoundMs } from '../../coordinator/cluster/drain.ts';
import { ShardClient } from '../../coordinator/transport/shard-client.ts';
import { createShardNodeApp } from '../../shard-node/app.ts';
import { loadShardNodeConfig } from '../../shard-node/config.ts';
import { IndexRegistry } from '../../shard-node/index-registry.ts';
import { createLogger } from '../../shared/logger.ts';
import { openTestClusterState, type TestClusterState } from '../support/cluster-state.ts';
import { parseEtcdEndpoints } from '../../shared/state-store/open-store.ts';
import { commandOf, containerPortOf, environmentOf, readComposeFile, REPO_ROOT } from '../../scripts/local-services.ts';
import { etcdFlagsOf } from '../../scripts/local-etcd.ts';
import { envNamesRead, find, manifestFiles, podTemplate, readKustomization, readManifests, resolveEnv, soleContainer, type Manifest } from './k8s-manifests.ts';

/** Env names the manifests may set that no loader reads yet, each with its reason. */
const RESERVED_ENV: Record<string, string> = {
  FOLIO_ETCD:
    'the cluster-state store (shared/state-store/open-store.ts); the coordinator reads it, the shard node config once shard nodes follow the cluster state (issue 10)',
};

/** The kubernetes-models class that schema-validates each kind the base may contain. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  Secret,
  Service,
  StatefulSet,
  Deployment,
  PodDisruptionBudget,
};

const kustomization = readKustomization();
const manifests = readManifests();
const namespace = kustomization.namespace ?? 'default';
const compose = readComposeFile();
const secrets = manifests.filter((m) => m.kind === 'Secret');

const shardSet = find(manifests, 'StatefulSet', 'shard');
const shardService = find(manifests, 'Service', (shardSet.spec as { serviceName: string }).serviceName);
const coordinator = find(manifests, 'Deployment', 'coordinator');
const coordinatorService = find(manifests, 'Service', 'coordinator');
const shardContainer = soleContainer(shardSet);
const coordinatorContainer = soleContainer(coordinator);
const shardReplicas = (shardSet.spec as { replicas: number }).replicas;
const shardEnv = resolveEnv(shardContainer.env, { podName: `${shardSet.metadata.name}-0`, namespace, secrets });
const coordinatorEnv = resolveEnv(coordinatorContainer.env, { podName: 'coordinator-7d9f-abcde', namespace, secrets });

const workloads = manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet');
const podLabels = (w: Manifest): Record<string, string> => podTemplate(w).metadata?.labels ?? {};
const matches = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The container port a probe or Service targets (by name or number). Throws when there is none. */
function containerPort(container: IContainer, ref: string | number | undefined): number {
  const port = (container.ports ?? []).find((p) => p.name === ref || p.containerPort === ref);
  if (!port) throw new Error(`container ${container.name} has no port [${ref}]`);
  return port.containerPort;
}

describe('deploy/k8s: files and schema', () => {
  it('lists every manifest file in kustomization.yaml, and only existing ones', () => {
    expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' });
    expect([...kustomization.resources].sort()).toEqual(manifestFiles());
    expect(new Set(kustomization.resources).size).toBe(kustomization.resources.length);
  });

  it('sets a namespace, and declares that Namespace', () => {
    expect(namespace).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(find(manifests, 'Namespace', namespace)).toBeDefined();
    for (const m of manifests) expect([m.file, m.metadata.namespace ?? namespace]).toEqual([m.file, namespace]);
  });

  it('validates every document against the Kubernetes OpenAPI schema (kubernetes-models)', () => {
    for (const m of manifests) {
      const Model = MODELS[m.kind];
      expect([m.file, m.kind, Model !== undefined]).toEqual([m.file, m.kind, true]);
      const { file, ...doc } = m;
      const model = new Model(doc as never);
      expect(() => model.validate(), `${file} ${m.kind}/${m.metadata.name}`).not.toThrow();
      expect((model as unknown as { apiVersion: string }).apiVersion).toBe(m.apiVersion);
    }
  });

  it('names objects uniquely per kind', () => {
    const keys = manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('deploy/k8s: labels, selectors, ports', () => {
  it('gives each workload a selector that matches its own pod labels', () => {
    for (const w of workloads) {
      const selector = (w.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect([w.metadata.name, matches(selector, podLabels(w))]).toEqual([w.metadata.name, true]);
    }
  });

  it('selects exactly one workload with every Service and PodDisruptionBudget', () => {
    for (const s of manifests.filter((m) => m.kind === 'Service' || m.kind === 'PodDisruptionBudget')) {
      const spec = s.spec as { selector: Record<string, string> | { matchLabels: Record<string, string> } };
      const selector =
        s.kind === 'Service' ? (spec.selector as Record<string, string>) : (spec.selector as { matchLabels: Record<string, string> }).matchLabels;
      const selected = workloads.filter((w) => matches(selector, podLabels(w))).map((w) => w.metadata.name);
      expect([s.kind, s.metadata.name, selected.length]).toEqual([s.kind, s.metadata.name, 1]);
    }
  });

  it('routes each Service port to a container port that equals FOLIO_PORT and the compose port', () => {
    const pairs: [Manifest, Manifest, IContainer, Record<string, string>, string][] = [
      [shardService, shardSet, shardContainer, shardEnv, 'shard-0'],
      [coordinatorService, coordinator, coordinatorContainer, coordinatorEnv, 'coordinator'],
    ];
    for (const [svc, , container, env, composeName] of pairs) {
      const ports = (svc.spec as { ports: { port: number; targetPort?: string | number }[] }).ports;
      expect(ports).toHaveLength(1);
      const target = containerPort(container, ports[0].targetPort ?? ports[0].port);
      expect(target).toBe(Number(env.FOLIO_PORT));
      expect(target).toBe(containerPortOf(composeName, compose.services[composeName]));
      expect(ports[0].port).toBe(target);
    }
    expect((coordinatorService.spec as { ports: { port: number }[] }).ports[0].port).toBe(9200);
  });
});

describe('deploy/k8s: shard nodes', () => {
  it('is a StatefulSet governed by a headless Service, started in parallel', () => {
    expect(shardService.metadata.name).toBe((shardSet.spec as { serviceName: string }).serviceName);
    expect((shardService.spec as { clusterIP: string }).clusterIP).toBe('None');
    // Not-ready shard nodes get no DNS record: the coordinator fails fast and reports the shard.
    expect((shardService.spec as { publishNotReadyAddresses?: boolean }).publishNotReadyAddresses ?? false).toBe(false);
    expect((shardSet.spec as { podManagementPolicy: string }).podManagementPolicy).toBe('Parallel');
    expect(shardReplicas).toBeGreaterThanOrEqual(1);
  });

  it('mounts a volumeClaimTemplates volume at FOLIO_DATA', () => {
    const claims = (shardSet.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates;
    expect(claims.map((c) => c.metadata.name)).toEqual(['data']);
    expect(shardContainer.volumeMounts).toEqual([{ name: 'data', mountPath: shardEnv.FOLIO_DATA }]);
    expect(shardEnv.FOLIO_DATA).toBe(environmentOf(compose.services['shard-0']).FOLIO_DATA);
  });

  it('takes its node id from the pod name, as compose uses the service name', () => {
    expect(shardEnv.FOLIO_NODE_ID).toBe('shard-0');
    expect(loadShardNodeConfig(shardEnv).nodeId).toBe('shard-0');
  });

  it('has a PodDisruptionBudget', () => {
    const pdbs = manifests.filter(
      (m) =>
        m.kind === 'PodDisruptionBudget' &&
        matches((m.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, podLabels(shardSet)),
    );
    expect(pdbs).toHaveLength(1);
    expect((pdbs[0].spec as { maxUnavailable: number }).maxUnavailable).toBe(1);
  });
});

describe('deploy/k8s: etcd', () => {
  const etcdSet = find(manifests, 'StatefulSet', 'etcd');
  const etcdService = find(manifests, 'Service', (etcdSet.spec as { serviceName: string }).serviceName);
  const etcdContainer = soleContainer(etcdSet);
  const replicas = (etcdSet.spec as { replicas: number }).replicas;
  /** The container's command with the kubelet's `$(VAR)` expansion for pod `podName`. */
  const commandFor = (podName: string) => {
    const env = resolveEnv(etcdContainer.env, { podName, namespace, secrets });
    return (etcdContainer.command ?? []).map((arg) => arg.replace(/\$\(([A-Z_]+)\)/g, (_, v: string) => env[v] ?? `$(${v})`));
  };
  const flagsFor = (podName: string) => new Map(etcdFlagsOf(commandFor(podName)));
  const portOf = (name: string) => containerPort(etcdContainer, name);

  it('is a 3-member StatefulSet started in parallel, behind a headless Service that publishes not-ready members', () => {
    expect(replicas).toBe(3);
    expect((etcdSet.spec as { podManagementPolicy: string }).podManagementPolicy).toBe('Parallel');
    expect(etcdService.metadata.name).toBe('etcd');
    expect((etcdService.spec as { clusterIP: string }).clusterIP).toBe('None');
    expect((etcdService.spec as { publishNotReadyAddresses: boolean }).publishNotReadyAddresses).toBe(true);
    const ports = (etcdService.spec as { ports: { name: string; port: number; targetPort: string }[] }).ports;
    expect(ports.map((p) => [p.name, p.port, portOf(p.targetPort)])).toEqual([
      ['client', 2379, 2379],
      ['peer', 2380, 2380],
    ]);
  });

  it("runs the compose file's pinned etcd image, one member per host", () => {
    expect(etcdContainer.image).toBe(compose.services.etcd.image);
    const anti = podTemplate(etcdSet).spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    expect(anti).toHaveLength(1);
    expect(anti[0].topologyKey).toBe('kubernetes.io/hostname');
    expect(matches(anti[0].labelSelector?.matchLabels ?? {}, podLabels(etcdSet))).toBe(true);
  });

  it("bootstraps one cluster from the members' stable names: every member lists all of etcd-N.etcd:2380 and advertises its own", () => {
    const members = Array.from({ length: replicas }, (_, i) => `etcd-${i}`);
    const expected = members.map((m) => `${m}=http://${m}.etcd.${namespace}.svc.cluster.local:2380`).join(',');
    for (const m of members) {
      const flags = flagsFor(m);
      expect(flags.get('name')).toBe(m);
      expect(flags.get('initial-cluster')).toBe(expected);
      expect(flags.get('initial-advertise-peer-urls')).toBe(`http://${m}.etcd.${namespace}.svc.cluster.local:2380`);
      expect(flags.get('advertise-client-urls')).toBe(`http://${m}.etcd.${namespace}.svc.cluster.local:2379`);
      expect(flags.get('listen-client-urls')).toBe('http://0.0.0.0:2379');
      expect(flags.get('listen-peer-urls')).toBe('http://0.0.0.0:2380');
      expect(flags.get('initial-cluster-state')).toBe('new');
      expect(commandFor(m).join(' ')).not.toContain('$(');
    }
  });

  it("keeps each member's data on its own PersistentVolumeClaim", () => {
    const claims = (etcdSet.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates;
    expect(claims.map((c) => c.metadata.name)).toEqual(['data']);
    const mount = etcdContainer.volumeMounts?.find((v) => v.name === 'data');
    expect(flagsFor('etcd-0').get('data-dir')?.startsWith(`${mount?.mountPath}/`)).toBe(true);
  });

  it('probes /health on the client port for startup and readiness, the TCP port for liveness', () => {
    for (const probe of [etcdContainer.startupProbe, etcdContainer.readinessProbe]) {
      expect(probe?.httpGet?.path).toBe('/health');
      expect(portOf(String(probe?.httpGet?.port))).toBe(2379);
    }
    expect(portOf(String(etcdContainer.livenessProbe?.tcpSocket?.port))).toBe(2379);
  });

  it('has a PodDisruptionBudget that keeps the quorum', () => {
    const pdb = find(manifests, 'PodDisruptionBudget', 'etcd');
    expect(matches((pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, podLabels(etcdSet))).toBe(true);
    expect((pdb.spec as { maxUnavailable: number }).maxUnavailable).toBe(Math.floor((replicas - 1) / 2));
  });

  it('points the coordinators and shard nodes at every member (FOLIO_ETCD)', () => {
    const members = Array.from({ length: replicas }, (_, i) => `http://etcd-${i}.${etcdService.metadata.name}:2379`);
    expect(parseEtcdEndpoints(coordinatorEnv.FOLIO_ETCD)).toEqual(members);
    expect(parseEtcdEndpoints(shardEnv.FOLIO_ETCD)).toEqual(members);
  });
});

describe('deploy/k8s: coordinators', () => {
  it('runs at least two replicas', () => {
    expect((coordinator.spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
    expect(find(manifests, 'PodDisruptionBudget', 'coordinator')).toBeDefined();
  });

  it('expands its node URL template to the StatefulSet pod names the headless Service serves, in ordinal order', () => {
    expect(Number(coordinatorEnv.FOLIO_NODE_COUNT)).toBe(shardReplicas);
    expect(coordinatorEnv.FOLIO_NAMESPACE).toBe(namespace);
    const nodes = loadCoordinatorConfig(coordinatorEnv).nodes;
    const shardPort = (shardService.spec as { ports: { port: number }[] }).ports[0].port;
    expect(nodes).toEqual(
      Array.from(
        { length: shardReplicas },
        (_, i) => `http://${shardSet.metadata.name}-${i}.${shardService.metadata.name}.${namespace}.svc.cluster.local:${shardPort}`,
      ),
    );
    // In another namespace (kustomize overlay, `kubectl -n`), the downward API follows.
    expect(loadCoordinatorConfig({ ...coordinatorEnv, FOLIO_NAMESPACE: 'other' }).nodes[0]).toContain('.shard.other.svc.cluster.local:');
  });
});

describe('deploy/k8s: environment, image and commands', () => {
  it('sets only env names that the role config loader reads (or that are documented as reserved)', () => {
    const read = {
      coordinator: envNamesRead(loadCoordinatorConfig, coordinatorEnv),
      shard: envNamesRead(loadShardNodeConfig, shardEnv),
    };
    for (const name of ['FOLIO_NODES', 'FOLIO_NODE_COUNT', 'FOLIO_NODE_URL_TEMPLATE', 'FOLIO_NAMESPACE', 'FOLIO_ETCD'])
      expect(read.coordinator.has(name)).toBe(true);
    for (const [role, env] of [
      ['coordinator', coordinatorEnv],
      ['shard', shardEnv],
    ] as const) {
      const unknown = Object.keys(env).filter((n) => !read[role].has(n) && RESERVED_ENV[n] === undefined);
      expect([role, unknown]).toEqual([role, []]);
    }
  });

  it('documents every env name it sets in the README configuration table, and the reserved ones in docs/deploy.md', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const deployDoc = readFileSync(join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
    for (const name of new Set([...Object.keys(coordinatorEnv), ...Object.keys(shardEnv)]))
      expect([name, readme.includes(`\`${name}\``)]).toEqual([name, true]);
    for (const name of Object.keys(RESERVED_ENV)) expect(deployDoc).toContain(name);
  });

  it('loads both configs from the manifest environment without errors', () => {
    expect(() => loadCoordinatorConfig(coordinatorEnv)).not.toThrow();
    expect(() => loadShardNodeConfig(shardEnv)).not.toThrow();
  });

  it('uses the compose image and the compose/Dockerfile commands and bind settings', () => {
    const dockerCmd = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').match(/^CMD (.+)$/m)?.[1];
    expect(JSON.parse(dockerCmd ?? 'null')).toEqual(coordinatorContainer.command);
    expect(coordinatorContainer.command).toEqual(commandOf('coordinator', compose.services.coordinator));
    expect(shardContainer.command).toEqual(commandOf('shard-0', compose.services['shard-0']));
    for (const c of [shardContainer, coordinatorContainer]) {
      expect(c.image).toBe(compose.services.coordinator.image);
      expect(c.args).toBeUndefined();
    }
    const imageName = String(compose.services.coordinator.image).split(':')[0];
    expect(kustomization.images?.map((i) => i.name)).toEqual([imageName]);
    for (const key of ['FOLIO_HOST', 'FOLIO_PORT']) {
      expect(shardEnv[key]).toBe(environmentOf(compose.services['shard-0'])[key]);
      expect(coordinatorEnv[key]).toBe(environmentOf(compose.services.coordinator)[key]);
    }
  });

  it('sets resource requests and limits on every container', () => {
    for (const c of [shardContainer, coordinatorContainer]) {
      expect(Object.keys(c.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(c.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
    }
  });
});

describe('deploy/k8s: probes and shutdown', () => {
  const registry = new IndexRegistry('shard-0');
  const silent = createLogger('test', 'silent', {});
  const shardApp = createShardNodeApp(loadShardNodeConfig({ ...shardEnv, FOLIO_DATA: '' }), registry, silent);
  const coordinatorConfig = loadCoordinatorConfig(coordinatorEnv);
  const client = new ShardClient(coordinatorConfig.nodes, {
    connectionsPerNode: 1,
    maxResponseBytes: coordinatorConfig.maxShardResponseBytes,
    clusterSecret: coordinatorConfig.clusterSecret,
  });
  let state: TestClusterState;
  let coordinatorApp: Hono;
  beforeAll(async () => {
    state = await openTestClusterState();
    coordinatorApp = createCoordinatorApp({
      config: coordinatorConfig,
      view: new ClusterView(client, 1_000, state.access),
      client,
      log: silent,
      clusterUuid: 'manifest-test',
    });
  });
  afterAll(async () => {
    await client.close();
    await state.close();
    await registry.close();
  });

  const probesOf = (c: IContainer): [string, IProbe | undefined][] => [
    ['startupProbe', c.startupProbe],
    ['readinessProbe', c.readinessProbe],
    ['livenessProbe', c.livenessProbe],
  ];

  it('has startup, readiness and liveness probes on both roles, readiness on /readyz', () => {
    for (const c of [shardContainer, coordinatorContainer]) {
      for (const [kind, probe] of probesOf(c)) expect([c.name, kind, probe?.httpGet?.path]).toEqual([c.name, kind, expect.stringMatching(/^\//)]);
      expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(c.livenessProbe?.httpGet?.path).toBe('/livez');
    }
  });

  it('probes paths that answer 200 on the in-process apps, on the FOLIO_PORT container port', async () => {
    const cases: [IContainer, Hono, Record<string, string>][] = [
      [shardContainer, shardApp, shardEnv],
      [coordinatorContainer, coordinatorApp, coordinatorEnv],
    ];
    for (const [c, app, env] of cases) {
      for (const [kind, probe] of probesOf(c)) {
        const get = probe?.httpGet;
        expect(containerPort(c, get?.port)).toBe(Number(env.FOLIO_PORT));
        const res = await app.request(get?.path ?? '/');
        expect([c.name, kind, get?.path, res.status]).toEqual([c.name, kind, get?.path, 200]);
      }
    }
  });

  it('keeps the compose health check URL of the shard node working', async () => {
    expect((await shardApp.request('/_internal/v1/health')).status).toBe(200);
    expect((await coordinatorApp.request('/')).status).toBe(200);
  });

  it('gives the coordinator a grace period that covers delay + drain, and a delay that outlasts readiness', () => {
    const config = loadCoordinatorConfig(coordinatorEnv);
    const grace = podTemplate(coordinator).spec?.terminationGracePeriodSeconds ?? 30;
    expect(grace * 1000).toBeGreaterThanOrEqual(shutdownBoundMs(config.shutdownDelayMs, config.drainTimeoutMs));
    const r = coordinatorContainer.readinessProbe;
    expect(config.shutdownDelayMs).toBeGreaterThanOrEqual((r?.periodSeconds ?? 10) * (r?.failureThreshold ?? 3) * 1000);
    expect(config.drainTimeoutMs).toBeGreaterThan(0);
  });

  it('gives the shard node a grace period longer than its shutdown deadline', () => {
    const main = readFileSync(join(REPO_ROOT, 'shard-node', 'main.ts'), 'utf8');
    const deadline = main.match(/SHUTDOWN_DEADLINE_MS = ([\d_]+)/)?.[1];
    expect(deadline, 'shard-node/main.ts must define SHUTDOWN_DEADLINE_MS').toBeDefined();
    const grace = podTemplate(shardSet).spec?.terminationGracePeriodSeconds ?? 30;
    expect(grace * 1000).toBeGreaterThan(Number(deadline?.replaceAll('_', '')));
  });
});
