// Import boundaries (docs/architecture.md "Directions of dependency"), checked by `npm run lint`.
// platform ← services ← gateway; a service reaches another only through its package entry
// (@cliffhanger/<name>: module, client, types); storefront features share only shared modules.
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No circle of imports, type-only ones included (options.tsPreCompilationDeps): each file can be read, and tested, after the files it imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-imports-no-service',
      comment: 'The platform is the shared kit: it knows no service, no gateway and no storefront.',
      severity: 'error',
      from: { path: '^services/platform/' },
      to: { path: '^(services/(?!platform/)[^/]+/|gateway/|storefront/)' },
    },
    {
      name: 'service-through-public-entry',
      comment: "A service imports another only through that package's entries (src/index.ts; the platform's outbox and testing exports too), never its files.",
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/(?!$1/)[^/]+/', pathNot: ['^services/[^/]+/src/index\\.ts$', '^services/platform/src/outbox\\.ts$', '^services/platform/src/testing/index\\.ts$'] },
    },
    {
      name: 'service-tests-not-through-gateway',
      comment: "A service's tests use the platform's testing export, never the gateway's code.",
      severity: 'error',
      from: { path: '^services/' },
      to: { path: '^gateway/' },
    },
    {
      name: 'server-imports-no-storefront',
      comment: 'The gateway renders pages through the storefront\'s built renderer; what the two agree on is its one contract file.',
      severity: 'error',
      from: { path: '^(services|gateway|scripts|bench)/' },
      to: { path: '^storefront/', pathNot: '^storefront/src/ssr/contract\\.ts$' },
    },
    {
      name: 'storefront-imports-no-server',
      comment: 'The storefront talks to the gateway over HTTP only; the contract is docs/api.md.',
      severity: 'error',
      from: { path: '^storefront/' },
      to: { path: '^(services|gateway|proto)/' },
    },
    {
      name: 'features-do-not-import-each-other',
      comment: 'A feature imports its own folder and the shared modules (api, components, lib, i18n, styles), not another feature.',
      severity: 'error',
      from: { path: '^storefront/src/features/([^/]+)/' },
      to: { path: '^storefront/src/features/(?!$1/)[^/]+/' },
    },
    {
      name: 'catalog-admin-apart-from-browsing',
      comment: "The catalog's content administration and its browsing are parts of their own (docs/architecture.md): neither imports the other's files.",
      severity: 'error',
      from: { path: '^services/catalog/src/(admin|admin-routes|subtitle-admin|resumable-uploads)\\.ts$' },
      to: { path: '^services/catalog/src/(service|routes|rankings|feed)\\.ts$' },
    },
    {
      name: 'catalog-browsing-apart-from-admin',
      comment: "The catalog's browsing and its content administration are parts of their own (docs/architecture.md): neither imports the other's files.",
      severity: 'error',
      from: { path: '^services/catalog/src/(service|routes|rankings|feed)\\.ts$' },
      to: { path: '^services/catalog/src/(admin|admin-routes|subtitle-admin|resumable-uploads)\\.ts$' },
    },
    {
      name: 'declared-dependencies',
      comment: "Every package a workspace imports is in that workspace's package.json.",
      severity: 'error',
      from: { path: '^(services|gateway|storefront)/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // TypeScript's own parser, through the TypeScript 5 API: run by scripts/depcruise.mjs, which
    // hands this tool the typescript-5 package (the project itself compiles with TypeScript 7).
    parser: 'tsc',
    // Type-only imports count as dependencies too: a circle through types is still a circle to read.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|gen)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
};
