/**
 * The image preloads jemalloc (Dockerfile `LD_PRELOAD`, docs/performance.md "Resident memory per
 * copy"); a local process of a service built from the Dockerfile gets the image's environment
 * (local-services.ts `imageEnvironment`), so the preload must name a library this machine has:
 * the image's path when it exists, else the same library in the machine's multiarch directory
 * (Debian's `libjemalloc2` package), else no preload (glibc's malloc, tuned by the image's
 * `MALLOC_*` thresholds, as before), rather than a loader warning from every process.
 * @see https://man7.org/linux/man-pages/man8/ld.so.8.html
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

/** Debian's multiarch library directories for Node's `process.arch`. */
const MULTIARCH: Record<string, string> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

/**
 * `env` with its `LD_PRELOAD` (one library path) resolved on this machine, or removed when the
 * library is nowhere to be found. Other variables are returned unchanged.
 */
export function localPreload(env: Record<string, string>, exists: (path: string) => boolean = existsSync, arch: string = process.arch): Record<string, string> {
  const preload = env.LD_PRELOAD;
  if (preload === undefined || exists(preload)) return env;
  const name = basename(preload);
  const local = [MULTIARCH[arch] && `/usr/lib/${MULTIARCH[arch]}/${name}`, `/usr/lib64/${name}`, `/usr/lib/${name}`].find((p) => p && exists(p));
  const { LD_PRELOAD: _dropped, ...rest } = env;
  return local ? { ...rest, LD_PRELOAD: local } : rest;
}
