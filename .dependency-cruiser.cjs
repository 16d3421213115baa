// Module boundaries and import cycles of the service and of every workspace (packages/*, tools/*),
// checked by `npm run lint` (docs/decisions.md, "Architecture: shared kernel and
// module boundaries"). Parsed with swc: TypeScript 7's package has no compiler API for the tsc parser.
/** @type {import('dependency-cruiser').IConfiguration} */
// Tests beside their code (*.test.ts) are held to no boundary: a test may reach what it checks from
// wherever it sits, and nothing imports a test. They may not form cycles either.
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included: a cycle is two modules that cannot be read apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-between-modules',
      severity: 'error',
      comment:
        'No cycle between modules either (folders under src/modules): validation and assessment met in a cycle through the rule catalogue.',
      scope: 'folder',
      from: { path: '^src/modules/([^/]+)' },
      to: {
        path: '^src/modules/',
        pathNot: '^src/modules/$1(/|$)',
        circular: true,
      },
    },
    {
      name: 'module-through-its-index',
      severity: 'error',
      comment:
        'A module reaches another only through its index.ts, which exports use cases; the files of one module import each other freely.',
      from: { pathNot: '\\.test\\.ts$', path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'outside-through-module-index',
      severity: 'error',
      comment: 'The composition root, the CLI and the platform reach a module only through its index.ts.',
      from: { path: '^src/', pathNot: ['^src/modules/', '\\.test\\.ts$', '^src/cli/synthetic-data\\.ts$'] },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'operators-door-to-holdings',
      severity: 'error',
      comment:
        "The synthetic seed (operators' CLI) alone loads held data without validation, through holdings' bulk-load.ts: it is not at holdings' index, so no module can reach it; otherwise the seed reaches modules through their index.ts.",
      from: { path: '^src/cli/synthetic-data\\.ts$' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/[^/]+/index\\.ts$', '^src/modules/holdings/bulk-load\\.ts$'] },
    },
    {
      name: 'kernel-imports-no-module',
      severity: 'error',
      comment:
        'src/domain is the shared kernel: every part may import it, and it imports nothing of ours outside it (npm packages are fine).',
      from: { pathNot: '\\.test\\.ts$', path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'platform-imports-no-module',
      severity: 'error',
      comment:
        'The platform sits under the modules and never knows them; the composition root (src/app.ts) wires them together.',
      from: { pathNot: '\\.test\\.ts$', path: '^src/platform/' },
      to: { path: '^src/(modules|app\\.ts$)' },
    },
    {
      name: 'schema-check-knows-no-http',
      severity: 'error',
      comment:
        'platform/schema (the string rules, Ajv, the structural check) is what a service may call to check a value: it imports nothing of platform/http and nothing of Fastify. platform/http wires it into requests.',
      from: { pathNot: '\\.test\\.ts$', path: '^src/platform/schema/' },
      to: { path: ['^src/platform/http/', '(^|/)node_modules/(fastify|@fastify/)'] },
    },
    {
      name: 'only-routes-and-schemas-use-http',
      severity: 'error',
      comment:
        'Services, repos, rules and jobs know nothing of HTTP: domain errors and the page type are in src/domain, the structural check in platform/schema. Only *.routes.ts and *.schemas.ts (*.schema.ts) files import platform/http, and a *.schemas.ts file only for its schema building blocks.',
      from: { path: '^src/modules/', pathNot: ['\\.(routes|schemas?)\\.ts$', '\\.test\\.ts$'] },
      to: { path: '^src/platform/http/' },
    },
    {
      name: 'nat-library-through-nat-bridge',
      severity: 'error',
      comment:
        "@vetrs/avetmiss (the NAT library) enters the service through modules/nat-bridge (its avetmiss.ts) alone; the operators' CLI (seed:synthetic nat) uses it too.",
      from: { path: '^src/', pathNot: '^src/(modules/nat-bridge/|cli/)' },
      to: { path: '^packages/avetmiss/' },
    },
    {
      name: 'nat-library-imports-nothing-of-ours',
      severity: 'error',
      comment:
        "@vetrs/avetmiss is a library of its own: it imports nothing of the service, the SDK or the CLI. Its tests may check what it writes against the service's own schemas and rules.",
      from: { path: '^packages/avetmiss/src/' },
      to: { path: '^(src|packages/(client|cli))/' },
    },
    {
      name: 'packages-import-no-service',
      severity: 'error',
      comment:
        'The SDK, the CLI and the NAT library are published packages: their source imports nothing of the service (src/), only each other through their package names.',
      from: { path: '^packages/[^/]+/src/' },
      to: { path: '^src/' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment:
        'A file nothing imports and that imports nothing is dead code, or an entry point to list here. The console browser scripts are served as files, never imported.',
      from: { orphan: true, pathNot: ['\\.d\\.m?ts$', '^src/start\\.mjs$', '^src/modules/console/assets/'] },
      to: {},
    },
  ],
  options: {
    parser: 'swc',
    // The service's test support (test/) starts the whole service: a test beside a rule that imports it
    // would make every module reach every other. It is not part of the service's graph.
    exclude: { path: '^test/' },
    doNotFollow: { path: 'node_modules' },
  },
}
