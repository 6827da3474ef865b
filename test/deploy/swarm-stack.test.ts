/**
 * deploy/swarm/docker-stack.yml is docker-compose.yml adapted for `docker stack deploy`: the same
 * services, image, commands, environment, health checks, volumes and grace periods, and only the
 * documented differences (no build/depends_on/restart, a 3.x version, `deploy:` keys).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readComposeFile, REPO_ROOT, type ComposeFile, type ComposeService } from '../../scripts/local-services.ts';

const compose = readComposeFile();
const stack = readComposeFile(join(REPO_ROOT, 'deploy', 'swarm', 'docker-stack.yml')) as ComposeFile & { version?: string; name?: string };
/** A service with the keys this test compares beyond what scripts/local-services.ts types. */
type StackService = ComposeService & {
  restart?: string;
  stop_grace_period?: string;
  deploy?: { replicas?: number; placement?: { constraints?: string[] }; restart_policy?: { condition?: string } };
};
const services = stack.services as Record<string, StackService>;
const composeServices = compose.services as Record<string, StackService>;
const shards = Object.keys(compose.services).filter((n) => n.startsWith('shard-'));

/** The keys `docker stack deploy` reads the same way as `docker compose up`. */
const SHARED_KEYS = ['command', 'environment', 'healthcheck', 'volumes', 'ports', 'stop_grace_period'] as const;

describe('deploy/swarm/docker-stack.yml', () => {
  it('declares the compose services and volumes, under a Compose file format 3.x version', () => {
    expect(Object.keys(services).sort()).toEqual(Object.keys(compose.services).sort());
    expect(Object.keys(stack.volumes ?? {}).sort()).toEqual(Object.keys(compose.volumes ?? {}).sort());
    expect(stack.version).toMatch(/^3\.\d+$/);
    expect(stack.name).toBeUndefined();
  });

  it('keeps command, environment, health check, volumes, ports and grace period identical to compose', () => {
    for (const [name, svc] of Object.entries(composeServices)) {
      for (const key of SHARED_KEYS) expect([name, key, services[name][key]]).toEqual([name, key, svc[key]]);
    }
  });

  it('drops what Swarm ignores or rejects, and defaults the image to the compose one', () => {
    for (const [name, svc] of Object.entries(services)) {
      expect([name, svc.build, svc.depends_on, svc.restart]).toEqual([name, undefined, undefined, undefined]);
      // Folio's image is pushed and named by FOLIO_IMAGE; etcd keeps the pinned official image.
      expect(svc.image).toBe(name === 'etcd' ? compose.services.etcd.image : `\${FOLIO_IMAGE:-${compose.services[name].image}}`);
      expect(svc.deploy?.restart_policy?.condition).toBe('any');
    }
  });

  it('pins one task per shard node to its own labelled host, and runs two coordinators', () => {
    shards.forEach((name) => {
      const ordinal = name.split('-')[1];
      expect(services[name].deploy?.replicas).toBe(1);
      expect(services[name].deploy?.placement?.constraints).toEqual([`node.labels.folio.shard == ${ordinal}`]);
    });
    expect(services.coordinator.deploy?.replicas).toBeGreaterThanOrEqual(2);
  });
});
