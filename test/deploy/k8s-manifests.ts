/**
 * Reading deploy/k8s for the manifest tests: the kustomization, every manifest document, and the
 * pieces the invariants compare (workloads, containers, env with downward-API and Secret refs
 * resolved the way the kubelet would).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../scripts/local-services.ts';

/** The kustomize base. */
export const K8S_DIR = join(REPO_ROOT, 'deploy', 'k8s');

/** One parsed manifest document, with the file it came from. */
export interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The fields of kustomization.yaml the tests read. */
export interface Kustomization {
  apiVersion: string;
  kind: string;
  namespace?: string;
  resources: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

/** Parses kustomization.yaml. */
export function readKustomization(): Kustomization {
  return parseYamlFile('kustomization.yaml')[0] as Kustomization;
}

/** The `.yaml`/`.yml` files of deploy/k8s other than the kustomization, sorted. */
export function manifestFiles(): string[] {
  return readdirSync(K8S_DIR)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .sort();
}

/** Parses one file of deploy/k8s into its documents; throws on a YAML error or warning. */
export function parseYamlFile(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(join(K8S_DIR, file), 'utf8'), { prettyErrors: true });
  for (const d of docs) {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    if (d.warnings.length > 0) throw new Error(`${file}: ${d.warnings.map((e) => e.message).join('; ')}`);
  }
  return docs.map((d) => d.toJS()).filter((d) => d !== null);
}

/** Every document of every manifest file, with its file name. */
export function readManifests(): Manifest[] {
  return manifestFiles().flatMap((file) => parseYamlFile(file).map((doc) => ({ ...(doc as object), file }) as Manifest));
}

/** The one object of `kind` named `name`. Throws when absent or duplicated. */
export function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const hits = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  if (hits.length !== 1) throw new Error(`expected one ${kind}/${name}, found ${hits.length}`);
  return hits[0];
}

/** The pod template of a Deployment or StatefulSet. */
export function podTemplate(workload: Manifest): IPodTemplateSpec {
  return (workload.spec as { template: IPodTemplateSpec }).template;
}

/** The one container of a workload's pod template. Throws when there is not exactly one. */
export function soleContainer(workload: Manifest): IContainer {
  const containers = podTemplate(workload).spec?.containers ?? [];
  if (containers.length !== 1) throw new Error(`${workload.kind}/${workload.metadata.name}: expected one container, found ${containers.length}`);
  return containers[0];
}

/** What the kubelet knows when it resolves env: the pod's name and namespace, and Secret data. */
export interface PodContext {
  podName: string;
  namespace: string;
  secrets: Manifest[];
}

/**
 * A container's environment as the process would see it: literal values, downward-API
 * `fieldRef`s (metadata.name, metadata.namespace) and `secretKeyRef`s. Throws on anything else,
 * or on a Secret or key that the manifests do not define.
 */
export function resolveEnv(env: IEnvVar[] | undefined, ctx: PodContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of env ?? []) {
    if (e.value !== undefined) out[e.name] = e.value;
    else if (e.valueFrom?.fieldRef) {
      const path = e.valueFrom.fieldRef.fieldPath;
      if (path === 'metadata.name') out[e.name] = ctx.podName;
      else if (path === 'metadata.namespace') out[e.name] = ctx.namespace;
      else throw new Error(`${e.name}: unsupported fieldRef ${path}`);
    } else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const secret = ctx.secrets.find((s) => s.metadata.name === ref.name);
      if (!secret) throw new Error(`${e.name}: no Secret [${ref.name}] in deploy/k8s`);
      const data = { ...((secret.stringData as Record<string, string>) ?? {}), ...((secret.data as Record<string, string>) ?? {}) };
      if (data[ref.key] === undefined) throw new Error(`${e.name}: Secret [${ref.name}] has no key [${ref.key}]`);
      out[e.name] = data[ref.key];
    } else throw new Error(`${e.name}: no value and no supported valueFrom`);
  }
  return out;
}

/**
 * The environment variable names a config loader reads: it is called with an env object that
 * records every key looked up (and holds `base`, so that paths behind a setting are read too).
 */
export function envNamesRead(load: (env: NodeJS.ProcessEnv) => unknown, base: Record<string, string> = {}): Set<string> {
  const seen = new Set<string>();
  const env = new Proxy(
    { ...base },
    {
      get(target, key) {
        if (typeof key === 'string') seen.add(key);
        return Reflect.get(target, key);
      },
    },
  );
  load(env);
  return seen;
}
