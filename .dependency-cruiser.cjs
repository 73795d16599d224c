/**
 * The layer rule of docs/architecture.md, checked by `npm run typecheck` (and so by CI): a
 * wrong-way import or a new import circle fails the build. Test files are outside the rule.
 */
/** A module of ours whose file or folder name has v1 in it (node_modules and anything outside the layers aside). */
const V1_NAME = '^(api|activities|workflows|workers|domain|db|config|scripts|bench|temporal)/.*[vV]1';
/** Where V1 lives: the adapter's folder and its queries module. */
const V1_ROOMS = ['^api/v1/', '^db/queries/v1\\.ts$'];

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
      comment:
        'domain/ is pure code both sides import: money, ids, errors, the state tables (state/), crypto/, tron/, events/, records/. It imports nothing of the layers.',
      from: { path: '^domain/' },
      to: { path: '^(api|activities|workflows|workers|temporal|db|config|scripts|bench)/' },
    },
    {
      name: 'state-tables-run-in-the-workflow-sandbox',
      severity: 'error',
      comment:
        'domain/state/ holds the state tables the workflows decide by, so it runs inside the workflow sandbox: no Node module, ' +
        'and nothing of domain/crypto/ or domain/tron/ (which are built on node:crypto and the chain libraries).',
      from: { path: '^domain/state/' },
      to: { path: '^domain/(crypto|tron)/' },
    },
    {
      name: 'state-tables-import-no-node-module',
      severity: 'error',
      comment: 'domain/state/ runs inside the workflow sandbox, where Node modules are not available.',
      from: { path: '^domain/state/' },
      to: { dependencyTypes: ['core'] },
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
      name: 'workers-below-the-api',
      severity: 'error',
      comment:
        'The worker process does not import the HTTP layer, with one narrow exception: api/adapters.ts, the list of the API ' +
        'adapters beside V2, whose webhook formats the worker registers at startup (workers/main.ts). That list is the one place ' +
        'that names the adapters, for both processes, so that retiring one is deleting its folder and its line there.',
      from: { path: '^workers/' },
      to: { path: '^api/', pathNot: '^api/adapters\\.ts$' },
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
      comment:
        'The legacy V1 adapter lives in api/v1/ (its SQL in db/queries/v1.ts) and only translates: nothing else imports them but the ' +
        'adapter list api/adapters.ts, the one composition point of both processes (the API mounts its routes, the worker registers ' +
        'its webhook format). Removing V1 is deleting api/v1/, db/queries/v1.ts and its line in api/adapters.ts.',
      from: { pathNot: ['^api/v1/', '^db/queries/v1\\.ts$', '^api/adapters\\.ts$'] },
      to: { path: '^(api/v1/|db/queries/v1\\.ts$)' },
    },
    {
      name: 'v1-is-mounted-by-its-entry',
      severity: 'error',
      comment:
        'The adapter list loads V1 by its two faces only: api/v1/index.ts (its routes and middleware, for the API) and ' +
        'api/v1/webhooks.ts (its webhook format, for the worker), nothing else from inside it.',
      from: { path: '^api/adapters\\.ts$' },
      to: { path: '^(api/v1/|db/queries/v1\\.ts$)', pathNot: '^api/v1/(index|webhooks)\\.ts$' },
    },
    // No V1 module outside its rooms: a module whose file or folder name has v1 in it lives in api/v1/ or is db/queries/v1.ts.
    // Three rules because dependency-cruiser sees modules through their dependencies: one that imports, one that is imported,
    // one that does neither (an orphan).
    {
      name: 'v1-names-only-in-its-rooms',
      severity: 'error',
      comment: 'A V1 module outside api/v1/ and db/queries/v1.ts: V1 code lives in its own rooms, so that deleting them removes V1.',
      from: { path: V1_NAME, pathNot: V1_ROOMS },
      to: {},
    },
    {
      name: 'v1-names-only-in-its-rooms-imported',
      severity: 'error',
      comment: 'An import of a V1 module outside api/v1/ and db/queries/v1.ts: V1 code lives in its own rooms.',
      from: {},
      to: { path: V1_NAME, pathNot: V1_ROOMS },
    },
    {
      name: 'v1-names-only-in-its-rooms-orphan',
      severity: 'error',
      comment: 'A V1 module outside api/v1/ and db/queries/v1.ts that nothing imports: V1 code lives in its own rooms.',
      from: { orphan: true, path: V1_NAME, pathNot: V1_ROOMS },
      to: {},
    },
    {
      name: 'v1-translations-are-pure',
      severity: 'error',
      comment:
        "V1's translations, codes, records and webhook format are pure functions: they import domain/ and each other (types from " +
        'anywhere); what needs the database the routes read first, and the worker calls the webhook format with the stored event.',
      from: { path: '^api/v1/(translate|codes|records|webhooks)\\.ts$' },
      to: { pathNot: ['^domain/', '^api/v1/(codes|records)\\.ts$'], dependencyTypesNot: ['type-only', 'core'] },
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
