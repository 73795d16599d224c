/**
 * The layer rule of docs/architecture.md, checked by `npm run typecheck` (and so by CI): a
 * wrong-way import or a new import circle fails the build. Test files are outside the rule.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two modules that need each other are one module, or a third one is missing.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ is pure code both sides import: money, ids, errors, state tables. It imports nothing of the layers.',
      from: { path: '^domain/' },
      to: { path: '^(api|activities|workflows|workers|temporal|db|config|scripts|bench)/' },
    },
    {
      name: 'workflows-are-deterministic',
      severity: 'error',
      comment:
        'Workflows import only @temporalio/workflow, domain/, their contracts (workflows/) and `import type` of activities: ' +
        'nothing that does I/O or reads the clock can reach the workflow sandbox.',
      from: { path: '^workflows/' },
      to: {
        pathNot: ['^workflows/', '^domain/', '^node_modules/@temporalio/(workflow|common)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'activities-below-the-api',
      severity: 'error',
      comment: 'Activities run in the worker: they never import the HTTP layer or the worker process itself.',
      from: { path: '^activities/' },
      to: { path: '^(api|workers|scripts|bench)/' },
    },
    {
      name: 'db-is-the-bottom',
      severity: 'error',
      comment: 'db/ holds every SQL statement; it is called by activities and services and calls none of them.',
      from: { path: '^db/' },
      to: { path: '^(api|activities|workflows|workers|temporal|scripts|bench)/' },
    },
    {
      name: 'api-does-not-import-the-worker',
      severity: 'error',
      comment: 'The API starts and signals workflows through temporal/ and the contracts; the worker process and activities are not its business.',
      from: { path: '^api/' },
      to: { path: '^(workers|activities|scripts|bench)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'temporal-wiring-is-shared',
      severity: 'error',
      comment: 'temporal/ (client, payload codec, connection) serves the API and the workers alike and knows neither.',
      from: { path: '^temporal/' },
      to: { path: '^(api|activities|workers|db|scripts|bench)/' },
    },
    {
      name: 'v1-is-a-leaf',
      severity: 'error',
      comment: 'The legacy V1 adapter only translates; removing it is deleting api/v1/ and its line in api/adapters.ts, the one module that lists it.',
      from: { path: '^', pathNot: ['^api/v1/', '^api/adapters\\.ts$'] },
      to: { path: '^api/v1/' },
    },
    {
      name: 'config-is-a-leaf',
      severity: 'error',
      comment: 'Configuration is read by every layer and reads none of them.',
      from: { path: '^config/' },
      to: { path: '^(api|activities|workflows|workers|temporal|db|scripts|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|node_modules|\\.data|\\.tools)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
