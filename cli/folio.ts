#!/usr/bin/env node
/**
 * The `folio` executable (`npx folio …`, `npm run folio -- …` or `node cli/folio.ts …`).
 * Run through npm, `node` resolves to the pinned Node 24 in node_modules/.bin.
 */
import { main } from './program.ts';

// `folio dump … | head`: a closed pipe ends the dump quietly, as other Unix tools do.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
// `npm run folio -- load ./x.ndjson` runs in the package root: resolve paths where the user typed them.
if (process.env.npm_lifecycle_event === 'folio' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
process.exitCode = await main(process.argv);
