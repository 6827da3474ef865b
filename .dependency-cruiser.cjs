/** Import-cycle check (issue 15): any cycle of value imports fails; type-only imports are erased. */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle of runtime imports (type-only imports are erased by type stripping and do not count).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^node_modules|\\.folio|^coordinator/console/assets)' },
  },
};
