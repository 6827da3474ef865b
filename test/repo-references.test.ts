/**
 * Every path a comment or a doc cites must exist in the repository (issue 15: comments pointed to
 * files outside it, and to files that were moved or never existed). A reader who follows a
 * reference must land on a file; anything else is a public URL.
 *
 * What counts as a cited path: a token with at least one `/` that ends in a source or doc extension
 * (`.ts`, `.md`, `.yaml`, …), in the comments of code files, in the `#` comments of YAML and shell
 * files, and anywhere in Markdown. URLs are skipped. A path resolves when it names a file or folder
 * relative to the citing file's folder or one of its ancestors up to the repository root (so a file
 * in coordinator/search/ may cite coordinator/search/merge.ts by its full path, or by the part below
 * any of its folders). A path starting with `/` or climbing out of the repository with `../` is
 * refused, as is any mention of the machine's work folder (where the sessions that wrote Folio kept
 * files no reader has).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = join(import.meta.dirname, '..');
const EXTENSIONS = 'ts|js|mjs|md|ya?ml|json|sh|py|css|html';
const PATH_TOKEN = new RegExp(`(?<![\\w@.\\/-])((?:\\.{1,2}\\/)*\\/?[\\w@-]+(?:\\/[\\w.@-]+)+\\.(?:${EXTENSIONS}))(?!\\w)`, 'g');
const URL = /[a-z][a-z+.-]*:\/\/\S+/gi;
/** The machine's work folder, where earlier sessions kept notes no reader of the repository has. */
const WORK_FOLDER = ['', 'work', ''].join('/');
const HASH_COMMENTED = new Set(['Dockerfile', '.ci/run', '.dockerignore', '.gitignore']);

/** The text of `file` in which cited paths are looked for: comments of code, YAML and shell; all of Markdown. */
export function citingText(file: string, text: string): string {
  if (/\.(ts|js|mjs)$/.test(file)) return [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g)].map((m) => m[0]).join('\n');
  if (file.endsWith('.md')) return text;
  if (/\.(ya?ml|sh)$/.test(file) || HASH_COMMENTED.has(file)) {
    return text
      .split('\n')
      .map((l) => (l.includes('#') ? l.slice(l.indexOf('#')) : ''))
      .join('\n');
  }
  return '';
}

/**
 * The cited paths of `file` (repository-relative) that do not resolve, each with the reason.
 * @param exists whether a repository-relative path names a file or folder
 */
export function brokenReferences(file: string, text: string, exists: (path: string) => boolean): string[] {
  const cited = citingText(file, text).replace(URL, ' ');
  const broken: string[] = [];
  if (cited.includes(WORK_FOLDER)) broken.push(`${WORK_FOLDER} (a path outside the repository)`);
  for (const [, path] of cited.matchAll(PATH_TOKEN)) {
    if (path.startsWith('/')) {
      broken.push(`${path} (an absolute path)`);
    } else if (path.startsWith('.')) {
      const resolved = normalize(join(dirname(file), path));
      if (resolved.startsWith('..')) broken.push(`${path} (outside the repository)`);
      else if (!exists(resolved)) broken.push(`${path} (no such file)`);
    } else {
      let found = false;
      for (let dir = dirname(file); !found; dir = dirname(dir)) {
        found = exists(normalize(join(dir, path)));
        if (dir === '.') break;
      }
      if (!found) broken.push(`${path} (no such file)`);
    }
  }
  return broken;
}

describe('brokenReferences', () => {
  const files = new Set(['coordinator', 'coordinator/search', 'coordinator/search/merge.ts', 'docs', 'docs/architecture.md']);
  const exists = (p: string) => files.has(p);
  // Comment markers are built, so that this file's own scan does not read these fixtures as comments.
  const block = (s: string) => `${'/'}** ${s} *${'/'}`;
  const line = (s: string) => `${'/'}/ ${s}`;

  it('accepts repository paths, paths relative to an ancestor folder, and URLs', () => {
    const text = [
      block('See coordinator/search/merge.ts and docs/architecture.md.'),
      line('search/merge.ts holds the merge; ../../docs/architecture.md draws it.'),
      block('@see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/x/y.ts'),
      "const s = 'not/a/comment.ts';",
    ].join('\n');
    expect(brokenReferences('coordinator/search/search.ts', text, exists)).toEqual([]);
  });

  it('refuses missing files, paths outside the repository and the work folder', () => {
    const work = ['', 'work', ''].join('/');
    const text = [
      block(`See shard-node/batch-route.ts, ../../../shared/style.md and ${work}shared/style.md.`),
      line('research/notes/select.md explains it.'),
    ].join('\n');
    expect(brokenReferences('coordinator/search/search.ts', text, exists)).toEqual([
      `${work} (a path outside the repository)`,
      'shard-node/batch-route.ts (no such file)',
      '../../../shared/style.md (outside the repository)',
      `${work}shared/style.md (an absolute path)`,
      'research/notes/select.md (no such file)',
    ]);
  });

  it('reads all of Markdown and only the # comments of YAML', () => {
    expect(brokenReferences('docs/x.md', 'The merge (`coordinator/search/gone.ts`).', exists)).toEqual(['coordinator/search/gone.ts (no such file)']);
    expect(brokenReferences('deploy/x.yaml', 'command: ["node", "cli/gone.ts"]\n# see docs/gone.md', exists)).toEqual(['docs/gone.md (no such file)']);
  });
});

describe('the repository', () => {
  it('cites only paths that exist in it', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n');
    const exists = (p: string) => existsSync(join(REPO_ROOT, p));
    const broken = tracked
      .filter((f) => f !== 'package-lock.json' && exists(f))
      .flatMap((f) => brokenReferences(f, readFileSync(join(REPO_ROOT, f), 'utf8'), exists).map((b) => `${f}: ${b}`));
    expect(broken).toEqual([]);
  });
});
