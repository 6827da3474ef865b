/**
 * The conformance suite: every scenario of test/conformance/*.yaml (request + expected response,
 * each pinning one Elasticsearch behaviour with a link) against the running cluster, one test per
 * scenario. The files' setup steps create their own small fixture indices; the shared samples are
 * only read.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadAllScenarioFiles, runSteps } from '../conformance/scenario.ts';

const url = inject('coordinatorUrl');
const files = loadAllScenarioFiles();

/** The suite must not silently shrink below the issue's floor. */
const MIN_SCENARIOS = 80;

it(`has at least ${MIN_SCENARIOS} scenarios`, () => {
  const count = files.reduce((n, f) => n + f.scenarios.length, 0);
  expect(count).toBeGreaterThanOrEqual(MIN_SCENARIOS);
});

for (const f of files) {
  describe(f.file, () => {
    beforeAll(() => runSteps(url, f.setup, `${f.file} setup`));
    afterAll(() => runSteps(url, f.teardown, `${f.file} teardown`));
    for (const s of f.scenarios) {
      it(s.name, () => runSteps(url, s.steps, `${f.file} › ${s.name} (pins: ${s.pins}; see ${s.see})`));
    }
  });
}
