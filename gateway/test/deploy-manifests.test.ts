// The deployment files, checked without Docker or a cluster: the Dockerfile against the root
// workspaces and the lock file, docker-compose.yml and every k8s/ overlay (rendered by `kubectl
// kustomize`) against the module registry and the config schema; deploy-least-privilege.test.ts checks
// the overlays' secrets and egress. For each module of the registry, service-checklist.ts names every
// file outside its folder that lacks it, in docs/architecture.md's order ("Adding a service"): that
// list is this file's failure message when a new module is half wired in. Every check also runs on a
// copy with one mistake planted in it, and must name that mistake.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema, defineModule, eventTopics, GATEWAY, loadConfig, parseTarget } from '@cliffhanger/platform';
import { registry } from '../src/registry.ts';
import { EDGE_NAME, hasKubectl, inCi, isEdge, render, selects, settingsMap, type K8sObject } from './k8s-render.ts';
import { checklistMessage, copies, dockerStages, environmentOf, modulesReachedByUrl, offInDeployments, serviceChecklist } from './service-checklist.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const { workspaces } = JSON.parse(read('package.json')) as { workspaces: string[] };

type Json = any;

// ---------------------------------------------------------------------------------------------
// What every deployment must agree with: the registry and the config schema.

/** Every name that runs as a container: the gateway and each module not turned off. */
const deployable = [GATEWAY, ...registry.modules.map((module) => module.name).filter((name) => !(name in offInDeployments))];
const reachedByUrl = modulesReachedByUrl(registry);

const configKeys = new Set(Object.keys(configSchema.shape));
const serviceUrl = /^([A-Z]+)_SERVICE_URL$/;
const moduleNames = new Set(registry.modules.map((module) => module.name));

/** Why an environment variable is not one the app reads (config.ts), or null when it is. */
function unknownSetting(name: string): string | null {
  if (configKeys.has(name)) return null;
  const module = serviceUrl.exec(name)?.[1]?.toLowerCase();
  if (module !== undefined) return moduleNames.has(module) ? null : `${name} names no module of the registry`;
  return `${name} is no setting of services/platform/src/config.ts`;
}

/** The module names a TARGET value runs (the gateway counted as one), or the reason it is refused. */
function targetNames(target: string): string[] | string {
  try {
    const parsed = parseTarget(registry, target);
    return [...(parsed.gateway ? [GATEWAY] : []), ...parsed.modules.map((module) => module.name)];
  } catch (error) {
    return (error as Error).message;
  }
}

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface LockEntry {
  dev?: boolean;
  os?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
type Lock = { packages: Record<string, LockEntry> };

/** Where npm puts `name` for the package at `from`: the nearest node_modules up the tree. */
function resolveInLock(lock: Lock, from: string, name: string): string | undefined {
  for (let dir = from; ; ) {
    const candidate = `${dir}/node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    const up = dir.lastIndexOf('/node_modules/');
    if (up === -1) break;
    dir = dir.slice(0, up);
  }
  return lock.packages[`node_modules/${name}`] ? `node_modules/${name}` : undefined;
}

/** The installed folders a package needs at run time (itself included) that `npm ci --omit=dev` leaves out, on Linux. */
function devOnlyClosure(lock: Lock, start: string): string[] {
  const seen = new Set<string>();
  const todo = [start];
  while (todo.length > 0) {
    const at = todo.pop()!;
    const entry = lock.packages[at];
    if (seen.has(at) || !entry || (entry.os && !entry.os.includes('linux'))) continue;
    seen.add(at);
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      const found = resolveInLock(lock, at, name);
      if (found) todo.push(found);
    }
  }
  return [...seen].filter((at) => lock.packages[at]!.dev).sort();
}

/** The root's workspaces; one with a build script (the storefront) is served from what it builds. */
const workspaceList = workspaces.map((workspace) => ({
  workspace,
  built: Boolean((JSON.parse(read(`${workspace}/package.json`)) as { scripts?: Record<string, string> }).scripts?.build),
}));

/** What is wrong with a Dockerfile for these workspaces, one line each. */
function dockerfileProblems(text: string, lock: Lock, packages = workspaceList): string[] {
  const problems: string[] = [];
  const stages = dockerStages(text);
  const final = stages.at(-1);
  if (!final) return ['no FROM'];
  for (const stage of stages) {
    const ci = stage.instructions.findIndex((instruction) => instruction.keyword === 'RUN' && /\bnpm ci\b/.test(instruction.args));
    if (ci === -1) continue;
    const placed = new Set(copies(stage, ci).filter((copy) => copy.from === null).map((copy) => copy.placed));
    for (const manifest of ['package.json', 'package-lock.json', ...packages.map(({ workspace }) => `${workspace}/package.json`)])
      if (!placed.has(manifest)) problems.push(`stage ${stage.name}: ${manifest} is not copied before \`RUN npm ci\` (each workspace's own COPY, so the install layer is cached)`);
  }

  const install = final.instructions.find((instruction) => instruction.keyword === 'RUN' && /\bnpm ci\b/.test(instruction.args));
  const finalCopies = copies(final);
  if (!install) problems.push('the final stage installs no packages (`npm ci`)');
  else if (/--omit=dev|--production/.test(install.args)) {
    // The CMD runs TypeScript through tsx (a dependency of the platform, which loads it in its threads
    // too): whatever of it the lock marks as for development only must come along from a stage that has it.
    for (const needed of devOnlyClosure(lock, 'node_modules/tsx')) {
      const brought = finalCopies.some(
        (copy) => copy.from !== null && (needed === copy.placed || needed.startsWith(`${copy.placed}/`)) && copy.source.endsWith(`/${copy.placed}`),
      );
      if (!brought) problems.push(`the final stage omits devDependencies but does not copy ${needed} (tsx needs it at run time) from the build stage`);
    }
  }
  const built = stages.find((stage) => stage.instructions.some((instruction) => instruction.keyword === 'RUN' && /\bnpm run build\b/.test(instruction.args)));
  for (const { workspace, built: isBuilt } of packages) {
    // A workspace with a build (the storefront) is served from its dist, its first screens server-rendered by
    // its dist-ssr; the others run from source.
    for (const needed of isBuilt ? [`${workspace}/dist`, `${workspace}/dist-ssr`] : [workspace]) {
      const present = finalCopies.some((copy) => (needed === copy.placed || needed.startsWith(`${copy.placed}/`)) && (isBuilt ? copy.from === built?.name : copy.from === null));
      if (!present) problems.push(`the final stage lacks ${needed}${isBuilt ? ' (copied from the stage that runs `npm run build`)' : ''}`);
    }
  }
  if (!finalCopies.some((copy) => copy.from === null && (copy.placed === 'scripts' || copy.placed === 'scripts/migrate.ts')))
    problems.push('the final stage lacks scripts/migrate.ts, which the migration Job and init containers run');
  if (!final.instructions.some((instruction) => instruction.keyword === 'RUN' && /apt-get install[^&]*\bffmpeg\b/.test(instruction.args) && /\bfonts-dejavu-core\b/.test(instruction.args)))
    problems.push("the final stage does not install Debian's ffmpeg and fonts-dejavu-core");
  const user = final.instructions.filter((instruction) => instruction.keyword === 'USER').at(-1)?.args.split(':')[0];
  if (!user || user === 'root' || user === '0') problems.push(`the final stage runs as ${user ?? 'root (no USER)'}, not as a user of its own`);
  const cmd = final.instructions.filter((instruction) => instruction.keyword === 'CMD').at(-1);
  let command: unknown = null;
  try {
    command = cmd ? JSON.parse(cmd.args) : null;
  } catch {
    // A shell-form CMD is refused below.
  }
  const argv = Array.isArray(command) ? command.map(String) : [];
  if (argv[0] !== 'node' || argv.at(-1) !== 'gateway/src/main.ts' || !argv.join(' ').includes('--import tsx'))
    problems.push(`the CMD does not start gateway/src/main.ts through node --import tsx (exec form): ${cmd?.args ?? 'none'}`);
  return problems;
}

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lock = JSON.parse(read('package-lock.json')) as Lock;
  const without = (line: string) => {
    expect(dockerfile).toContain(line);
    return dockerfile.replace(`${line}\n`, '');
  };

  it('copies every workspace manifest before each npm ci, installs tsx, runs the site as a user of its own', () => {
    expect(dockerfileProblems(dockerfile, lock)).toEqual([]);
  });

  it('names a workspace whose package.json is missing before npm ci', () => {
    expect(dockerfileProblems(without('COPY services/payment/package.json services/payment/'), lock)).toEqual([
      "stage build: services/payment/package.json is not copied before `RUN npm ci` (each workspace's own COPY, so the install layer is cached)",
    ]);
  });

  it('names a workspace added to the root list that the Dockerfile does not know', () => {
    const added = [...workspaceList, { workspace: 'services/reviews', built: false }];
    expect(dockerfileProblems(dockerfile, lock, added)).toEqual([
      "stage build: services/reviews/package.json is not copied before `RUN npm ci` (each workspace's own COPY, so the install layer is cached)",
      "stage runtime: services/reviews/package.json is not copied before `RUN npm ci` (each workspace's own COPY, so the install layer is cached)",
    ]);
  });

  it('names a root user, a different CMD, and a tsx dependency left behind', () => {
    expect(dockerfileProblems(without('USER node'), lock)).toEqual(['the final stage runs as root (no USER), not as a user of its own']);
    expect(dockerfileProblems(dockerfile.replace('"gateway/src/main.ts"]', '"scripts/ingest.ts"]'), lock)).toEqual([
      'the CMD does not start gateway/src/main.ts through node --import tsx (exec form): ["node", "--import", "tsx", "scripts/ingest.ts"]',
    ]);
    // Were tsx a devDependency again, the final stage's install would leave it and esbuild behind.
    const devOnly = structuredClone(lock);
    for (const name of ['node_modules/tsx', 'node_modules/esbuild']) devOnly.packages[name]!.dev = true;
    expect(dockerfileProblems(dockerfile, devOnly)).toEqual([
      'the final stage omits devDependencies but does not copy node_modules/esbuild (tsx needs it at run time) from the build stage',
      'the final stage omits devDependencies but does not copy node_modules/tsx (tsx needs it at run time) from the build stage',
    ]);
    expect(dockerfileProblems(without('COPY --from=build /app/storefront/dist storefront/dist'), lock)).toEqual([
      'the final stage lacks storefront/dist (copied from the stage that runs `npm run build`)',
    ]);
    expect(dockerfileProblems(without('COPY --from=build /app/storefront/dist-ssr storefront/dist-ssr'), lock)).toEqual([
      'the final stage lacks storefront/dist-ssr (copied from the stage that runs `npm run build`)',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

/** `${NAME:-default}` as compose would see it with nothing set in the shell; null for a `${NAME}` with no default. */
function interpolated(value: string): string | null {
  let missing = false;
  const result = value.replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_whole, _name: string, fallback?: string) => {
    if (fallback === undefined) missing = true;
    return fallback ?? '';
  });
  return missing ? null : result;
}

/** What is wrong with a parsed docker-compose.yml, one line each. */
function composeProblems(compose: Json): string[] {
  const problems: string[] = [];
  const services: Record<string, Json> = compose.services ?? {};
  // The app's containers are the ones built from this repository; one-shots (restart: "no") run a command and exit.
  const app = Object.entries(services).filter(([, service]) => service.build !== undefined);
  const oneShots = app.filter(([, service]) => service.restart === 'no');
  const servers = app.filter(([, service]) => service.restart !== 'no');
  const migrations = oneShots.filter(([, service]) => JSON.stringify(service.command ?? '').includes('scripts/migrate.ts')).map(([name]) => name);
  if (migrations.length === 0) problems.push('no one-shot container runs scripts/migrate.ts');

  const runs = new Map<string, string[]>();
  for (const [name, service] of app) {
    const raw = environmentOf(service);
    for (const setting of Object.keys(raw)) {
      const unknown = unknownSetting(setting);
      if (unknown) problems.push(`${name}: ${unknown}`);
    }
    const environment: Record<string, string> = {};
    for (const [setting, value] of Object.entries(raw)) {
      const resolved = interpolated(value);
      if (resolved === null) problems.push(`${name}: ${setting} has no default (${value})`);
      else environment[setting] = resolved;
    }
    try {
      loadConfig(environment);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
    for (const [module, { setting, value }] of Object.entries(offInDeployments))
      if (environment[setting] !== value) problems.push(`${name}: ${setting} is not ${value}, yet no container runs ${module}`);
    if (service.restart === 'no') continue;
    if (environment.TARGET === undefined) problems.push(`${name}: no TARGET`);
    else {
      const names = targetNames(environment.TARGET);
      if (typeof names === 'string') problems.push(`${name}: ${names}`);
      else runs.set(name, names);
    }
    if (!environment.S3_BUCKET) problems.push(`${name}: no S3_BUCKET: media must be shared by every container`);
    const check = service.healthcheck;
    if (!check || check.disable || !JSON.stringify(check.test ?? '').includes('/readyz')) problems.push(`${name}: no health check on /readyz`);
    for (const migration of migrations)
      if (service.depends_on?.[migration]?.condition !== 'service_completed_successfully') problems.push(`${name}: does not wait for ${migration} to complete`);
  }

  for (const wanted of deployable) {
    const containers = [...runs].filter(([, names]) => names.includes(wanted)).map(([name]) => name);
    if (containers.length !== 1) problems.push(`${containers.length === 0 ? 'no container runs' : `${containers.join(', ')} all run`} ${wanted}`);
  }
  const buckets = new Set(servers.map(([, service]) => environmentOf(service).S3_BUCKET));
  if (buckets.size > 1) problems.push(`the containers use different buckets: ${[...buckets].join(', ')}`);

  for (const [name, service] of app) {
    const environment = environmentOf(service);
    if (!runs.get(name)?.includes(GATEWAY)) continue;
    for (const module of reachedByUrl) {
      const setting = `${module.toUpperCase()}_SERVICE_URL`;
      const host = URL.canParse(environment[setting] ?? '') ? new URL(environment[setting]!).hostname : null;
      if (!host) problems.push(`${name}: no ${setting}`);
      else if (!runs.get(host)?.includes(module)) problems.push(`${name}: ${setting} points at ${host}, which does not run ${module}`);
    }
  }

  for (const [name, service] of Object.entries(services)) {
    for (const [dependency, { condition }] of Object.entries<{ condition: string }>(service.depends_on ?? {})) {
      const target = services[dependency];
      if (!target) problems.push(`${name}: depends on ${dependency}, which is not a service`);
      else if (condition === 'service_healthy' && (!target.healthcheck || target.healthcheck.disable)) problems.push(`${name}: waits for ${dependency} to be healthy, which has no health check`);
      else if (condition === 'service_completed_successfully' && target.restart !== 'no') problems.push(`${name}: waits for ${dependency} to complete, which restarts`);
    }
  }
  return problems;
}

describe('docker-compose.yml', () => {
  const load = () => parse(read('docker-compose.yml'), { merge: true }) as Json;

  it('runs every service apart from the one image, with known settings, health checks and migrations first', () => {
    expect(composeProblems(load())).toEqual([]);
  });

  it('names the mistakes planted in a copy', () => {
    const planted = load();
    delete planted.services.transcoder;
    planted.services.user.environment.UNKNOWN_SETTING = 'x';
    planted.services.unlock.environment.MEDIA_SECRET = 'short';
    delete planted.services.analytics.healthcheck;
    delete planted.services.payment.depends_on.migrate;
    planted.services.gateway.environment.CATALOG_SERVICE_URL = 'http://user:8080';
    delete planted.services.redis.healthcheck;
    expect(composeProblems(planted).sort()).toEqual(
      [
        'no container runs transcoder',
        'gateway: depends on transcoder, which is not a service',
        'user: UNKNOWN_SETTING is no setting of services/platform/src/config.ts',
        'unlock: config: MEDIA_SECRET: Too small: expected string to have >=32 characters',
        'analytics: no health check on /readyz',
        'gateway: waits for analytics to be healthy, which has no health check',
        'payment: does not wait for migrate to complete',
        'gateway: CATALOG_SERVICE_URL points at user, which does not run catalog',
        ...['gateway', 'user', 'catalog', 'analytics', 'unlock', 'payment'].map((name) => `${name}: waits for redis to be healthy, which has no health check`),
      ].sort(),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// k8s/

/** The official nginx image, pinned to a version (and a digest, if ever the others are). */
const PINNED_NGINX = /^nginx:\d+\.\d+\.\d+(-[a-z0-9]+)?(@sha256:[0-9a-f]{64})?$/;
/** The files of edge/ the cluster's edge takes: kustomize reads nothing outside k8s/, so k8s/base/edge/ holds copies. */
const EDGE_COPIES = 'k8s/base/edge';

/** Where a copy in k8s/base/edge/ differs from edge/, one line each. */
function edgeCopyProblems(copies: Record<string, string>, originals: Record<string, string>): string[] {
  return Object.entries(copies).flatMap(([file, text]) =>
    originals[file] === undefined ? [`${EDGE_COPIES}/${file}: no such file in edge/`] : originals[file] !== text ? [`${EDGE_COPIES}/${file}: differs from edge/${file} (copy it again)`] : [],
  );
}

/**
 * What is wrong with the media edge's Deployment, one line each: the pinned official image, its
 * templates rendered by the image's entrypoint into a volume of its own with every name they use set,
 * the bucket behind a proxy_cache, MEDIA_ORIGIN the catalog, and a host of the Ingress that
 * MEDIA_EDGE_URL names. `modulesBehind` names the modules a Service's pods run.
 */
function edgeProblems(edge: K8sObject, objects: K8sObject[], configMaps: Map<string, Record<string, string>>, modulesBehind: (service: string) => string[]): string[] {
  const problems: string[] = [];
  const label = `Deployment ${edge.metadata.name}`;
  const pod = edge.spec?.template?.spec ?? {};
  const container = pod.containers?.[0] ?? {};
  const env = new Map<string, string>((container.env ?? []).filter((variable: Json) => variable.value !== undefined).map((variable: Json) => [variable.name, String(variable.value)]));
  const volumes = new Map<string, Json>((pod.volumes ?? []).map((volume: Json) => [volume.name, volume]));
  const mounts: Json[] = container.volumeMounts ?? [];
  if (!PINNED_NGINX.test(container.image ?? '')) problems.push(`${label}: runs ${container.image}, not the official nginx image pinned to a version`);
  const argv: string[] = [...(container.command ?? []), ...(container.args ?? [])];
  const templateDir = env.get('NGINX_ENVSUBST_TEMPLATE_DIR') ?? '/etc/nginx/templates';
  const outputDir = env.get('NGINX_ENVSUBST_OUTPUT_DIR') ?? '/etc/nginx/conf.d';
  if (container.command?.length || argv[0] !== 'nginx') problems.push(`${label}: does not start \`nginx\` through the image's entrypoint, which renders the templates`);
  if (!argv.includes(`${outputDir}/nginx.conf`)) problems.push(`${label}: nginx does not read the rendered ${outputDir}/nginx.conf`);
  const mapName = volumes.get(mounts.find((mount) => mount.mountPath === templateDir && !mount.subPath)?.name)?.configMap?.name;
  const files = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === mapName)?.data;
  if (!files) problems.push(`${label}: no ConfigMap of edge/'s templates at ${templateDir}`);
  const grant = mounts.find((mount) => mount.mountPath === `${outputDir}/grant.js`);
  if (!grant || grant.subPath !== 'grant.js' || volumes.get(grant.name)?.configMap?.name !== mapName) problems.push(`${label}: grant.js is not beside the rendered config (${outputDir})`);
  if (env.get('EDGE_CONF_DIR') !== outputDir) problems.push(`${label}: EDGE_CONF_DIR (${env.get('EDGE_CONF_DIR')}) is not where the templates are rendered (${outputDir})`);
  for (const setting of ['EDGE_CONF_DIR', 'EDGE_RUN_DIR', 'EDGE_CACHE_DIR'])
    if (!mounts.some((mount) => mount.mountPath === env.get(setting) && !mount.readOnly && !mount.subPath && volumes.get(mount.name)?.emptyDir))
      problems.push(`${label}: ${setting} (${env.get(setting)}) is not a volume of the pod's own`);
  // Every ${NAME} of the templates set (envsubst leaves an unset one as it is), and let through the filter.
  const templates = Object.entries(files ?? {}).filter(([file]) => file.endsWith('.template'));
  const named = new Set(templates.flatMap(([, text]) => [...text.replace(/#.*$/gm, '').matchAll(/\$\{([A-Z_]+)\}/g)].map((match) => match[1]!)));
  const filter = new RegExp(env.get('NGINX_ENVSUBST_FILTER') ?? '');
  for (const name of named)
    if (!env.has(name)) problems.push(`${label}: the templates name ${name}, which the container does not set`);
    else if (!filter.test(name)) problems.push(`${label}: NGINX_ENVSUBST_FILTER leaves ${name} unrendered`);
  for (const name of env.keys()) if (!named.has(name) && !name.startsWith('NGINX_ENVSUBST_')) problems.push(`${label}: sets ${name}, which no template names`);
  const store = env.get('MEDIA_EDGE_STORE');
  if (store !== 'bucket' || !/^\s*proxy_cache\s+\w+;/m.test(files?.[`store-${store}.conf.template`] ?? ''))
    problems.push(`${label}: MEDIA_EDGE_STORE is ${store}, not the bucket behind a proxy_cache (store-bucket.conf.template)`);
  const origin = URL.canParse(env.get('MEDIA_ORIGIN') ?? '') ? new URL(env.get('MEDIA_ORIGIN')!).hostname : '';
  if (!modulesBehind(origin).includes('catalog')) problems.push(`${label}: MEDIA_ORIGIN (${env.get('MEDIA_ORIGIN')}) is not the catalog, which renders the master and subtitle playlists`);
  // The Ingress's media host is what the catalog hands out (MEDIA_EDGE_URL), and the edge answers the site's origin.
  const edgeServices = objects.filter((object) => object.kind === 'Service' && selects(object.spec?.selector, edge.spec?.template?.metadata?.labels)).map((service) => service.metadata.name);
  const hosts = objects
    .filter((object) => object.kind === 'Ingress')
    .flatMap((ingress) => ingress.spec?.rules ?? [])
    .filter((rule: Json) => (rule.http?.paths ?? []).some((entry: Json) => edgeServices.includes(entry.backend?.service?.name)))
    .map((rule: Json) => rule.host);
  if (hosts.length === 0) problems.push(`${label}: no Ingress host reaches it`);
  for (const [name, data] of configMaps) {
    const url = URL.canParse(data.MEDIA_EDGE_URL ?? '') ? new URL(data.MEDIA_EDGE_URL!) : null;
    if (!url || url.protocol !== 'https:' || !hosts.includes(url.hostname)) problems.push(`ConfigMap ${name}: MEDIA_EDGE_URL (${data.MEDIA_EDGE_URL ?? 'unset'}) is not https on the edge's Ingress host (${hosts.join(', ')})`);
    if (URL.canParse(data.PUBLIC_URL ?? '') && env.get('EDGE_ALLOW_ORIGIN') !== new URL(data.PUBLIC_URL!).origin)
      problems.push(`${label}: EDGE_ALLOW_ORIGIN (${env.get('EDGE_ALLOW_ORIGIN')}) is not the site's origin (PUBLIC_URL ${data.PUBLIC_URL})`);
  }
  return problems;
}

/** What is wrong with a rendered overlay, one line each. `readme` is k8s/README.md, which names the secrets made outside. */
function manifestProblems(objects: K8sObject[], readme: string): string[] {
  const problems: string[] = [];
  const of = (kind: string) => objects.filter((object) => object.kind === kind);
  const deployments = of('Deployment');
  const jobs = of('Job');
  const configMaps = new Map(of('ConfigMap').filter(settingsMap).map((map) => [map.metadata.name, map.data ?? {}]));
  if (of('Secret').length > 0) problems.push(`secrets with values in the repository: ${of('Secret').map((secret) => secret.metadata.name).join(', ')}`);

  const podLabels = (deployment: K8sObject): Record<string, string> => deployment.spec?.template?.metadata?.labels ?? {};
  const mainContainer = (deployment: K8sObject): Json => deployment.spec?.template?.spec?.containers?.[0] ?? {};
  const settingsOf = (container: Json): Record<string, string> => {
    const settings: Record<string, string> = {};
    for (const source of container.envFrom ?? []) Object.assign(settings, source.configMapRef ? configMaps.get(source.configMapRef.name) : {});
    for (const variable of container.env ?? []) if (variable.value !== undefined) settings[variable.name] = String(variable.value);
    return settings;
  };
  const targetOf = (deployment: K8sObject) => {
    // The media edge runs nginx, no module (no TARGET, which would mean all of them).
    if (isEdge(deployment)) return [];
    const names = targetNames(settingsOf(mainContainer(deployment)).TARGET ?? 'all');
    return typeof names === 'string' ? [] : names;
  };
  const images = new Set<string>();

  for (const workload of [...deployments, ...jobs]) {
    const label = `${workload.kind} ${workload.metadata.name}`;
    const pod = workload.spec?.template?.spec ?? {};
    const podSecurity = pod.securityContext ?? {};
    const containers: Json[] = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
    const volumes = new Map<string, Json>((pod.volumes ?? []).map((volume: Json) => [volume.name, volume]));
    for (const container of containers) {
      const where = `${label}, container ${container.name}`;
      const security = container.securityContext ?? {};
      if (!isEdge(workload)) images.add(container.image);
      if ((security.runAsNonRoot ?? podSecurity.runAsNonRoot) !== true) problems.push(`${where}: not runAsNonRoot`);
      if ((security.seccompProfile ?? podSecurity.seccompProfile)?.type !== 'RuntimeDefault') problems.push(`${where}: no RuntimeDefault seccomp profile`);
      if (security.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: the root filesystem is not read-only`);
      if (!(security.capabilities?.drop ?? []).includes('ALL')) problems.push(`${where}: capabilities are not all dropped`);
      for (const kind of ['requests', 'limits'])
        for (const resource of ['cpu', 'memory']) if (!container.resources?.[kind]?.[resource]) problems.push(`${where}: no ${resource} in resources.${kind}`);
      // A read-only root: what the process writes needs a volume (tsx's cache in /tmp, DATA_DIR).
      const writable = (dir: string) =>
        (container.volumeMounts ?? []).some((mount: Json) => mount.mountPath === dir && !mount.readOnly && (volumes.get(mount.name)?.emptyDir || volumes.get(mount.name)?.persistentVolumeClaim));
      if (!writable('/tmp')) problems.push(`${where}: /tmp is not a writable volume`);
      const settings = settingsOf(container);
      // The edge's environment is its templates' (edgeProblems), not the app's settings.
      for (const variable of isEdge(workload) ? [] : (container.env ?? [])) {
        const unknown = unknownSetting(variable.name);
        if (unknown) problems.push(`${where}: ${unknown}`);
      }
      for (const [setting, value] of Object.entries(settings)) {
        const parsed = configKeys.has(setting) ? configSchema.shape[setting as keyof typeof configSchema.shape].safeParse(value) : null;
        if (parsed && !parsed.success) problems.push(`${where}: ${setting}: ${parsed.error.issues[0]?.message}`);
      }
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef && !configMaps.has(source.configMapRef.name)) problems.push(`${where}: no ConfigMap ${source.configMapRef.name}`);
        if (source.secretRef && !readme.includes(source.secretRef.name)) problems.push(`${where}: the secret ${source.secretRef.name} is not described in k8s/README.md`);
      }
    }
    if (workload.kind !== 'Deployment') continue;
    const main = mainContainer(workload);
    if (!main.readinessProbe?.httpGet) problems.push(`${label}: no readinessProbe`);
    if (!main.livenessProbe?.httpGet) problems.push(`${label}: no livenessProbe`);
    if (isEdge(workload)) {
      problems.push(...edgeProblems(workload, objects, configMaps, (host) => deployments.filter((deployment) => of('Service').find((service) => service.metadata.name === host && selects(service.spec?.selector, podLabels(deployment)))).flatMap(targetOf)));
      continue;
    }
    const dataDir = settingsOf(main).DATA_DIR;
    const inside = (dir: string, mountPath: string) => dir === mountPath || dir.startsWith(`${mountPath}/`);
    if (!dataDir || !(main.volumeMounts ?? []).some((mount: Json) => inside(dataDir, mount.mountPath) && !mount.readOnly && volumes.get(mount.name)?.emptyDir))
      problems.push(`${label}: DATA_DIR (${dataDir ?? 'unset'}) is not a volume of the pod's own`);
    // Migrations first: an init container waits until the Job has applied what this pod's modules need.
    const target = settingsOf(main).TARGET;
    const waits = (pod.initContainers ?? []).some(
      (init: Json) => JSON.stringify(init.command ?? []).includes('scripts/migrate.ts') && (init.command ?? []).includes('--wait') && settingsOf(init).TARGET === target,
    );
    if (!waits) problems.push(`${label}: no init container waits for the migrations of TARGET=${target}`);
  }
  if (images.size !== 1) problems.push(`the containers do not all run one image: ${[...images].join(', ')}`);

  const migrated = new Set(
    jobs
      .map((job) => job.spec?.template?.spec?.containers?.[0] ?? {})
      .filter((container) => JSON.stringify(container.command ?? []).includes('scripts/migrate.ts') && !(container.command ?? []).includes('--wait'))
      .flatMap((container) => targetNames(settingsOf(container).TARGET ?? 'all')),
  );
  for (const deployment of deployments)
    for (const name of targetOf(deployment))
      if (name !== GATEWAY && !migrated.has(name)) problems.push(`Deployment ${deployment.metadata.name}: no Job applies the migrations of ${name}`);

  for (const wanted of deployable) if (!deployments.some((deployment) => targetOf(deployment).includes(wanted))) problems.push(`no Deployment runs ${wanted}`);
  for (const [module, { setting, value }] of Object.entries(offInDeployments))
    for (const [name, data] of configMaps) if (data[setting] !== value) problems.push(`ConfigMap ${name}: ${setting} is not ${value}, yet no Deployment runs ${module}`);
  for (const [name, data] of configMaps)
    for (const setting of Object.keys(data)) {
      const unknown = unknownSetting(setting);
      if (unknown) problems.push(`ConfigMap ${name}: ${unknown}`);
    }

  const services = of('Service');
  const runningService = (name: string) => {
    const service = services.find((candidate) => candidate.metadata.name === name);
    return deployments.filter((deployment) => service && selects(service.spec?.selector, podLabels(deployment)));
  };
  for (const service of services) {
    const backing = runningService(service.metadata.name);
    if (backing.length === 0) problems.push(`Service ${service.metadata.name}: selects no Deployment's pods`);
    for (const port of service.spec?.ports ?? [])
      for (const deployment of backing)
        if (typeof port.targetPort === 'string' && !(mainContainer(deployment).ports ?? []).some((named: Json) => named.name === port.targetPort))
          problems.push(`Service ${service.metadata.name}: port ${port.targetPort} is not a port of Deployment ${deployment.metadata.name}`);
  }
  for (const [name, data] of configMaps)
    for (const module of reachedByUrl) {
      const setting = `${module.toUpperCase()}_SERVICE_URL`;
      const url = URL.canParse(data[setting] ?? '') ? new URL(data[setting]!) : null;
      if (!url) problems.push(`ConfigMap ${name}: no ${setting}`);
      else if (!runningService(url.hostname).some((deployment) => targetOf(deployment).includes(module))) problems.push(`ConfigMap ${name}: ${setting} points at ${url.hostname}, which does not run ${module}`);
    }
  for (const ingress of of('Ingress'))
    for (const rule of ingress.spec?.rules ?? [])
      for (const { backend } of rule.http?.paths ?? []) {
        const backing = runningService(backend.service.name);
        if (backing.length === 0 || !(backing.every((deployment) => targetOf(deployment).join() === GATEWAY) || backing.every(isEdge)))
          problems.push(`Ingress ${ingress.metadata.name}: sends outside traffic to ${backend.service.name}, which is not the gateway nor the media edge`);
      }

  const scaled = new Map<string, string[]>();
  for (const scaler of [...of('HorizontalPodAutoscaler'), ...of('ScaledObject')]) {
    const target = scaler.spec?.scaleTargetRef?.name;
    if (!deployments.some((deployment) => deployment.metadata.name === target)) problems.push(`${scaler.kind} ${scaler.metadata.name}: scales ${target}, which is no Deployment`);
    scaled.set(target, [...(scaled.get(target) ?? []), scaler.kind]);
  }
  for (const [deployment, kinds] of [['gateway', 'HorizontalPodAutoscaler'], ['analytics', 'HorizontalPodAutoscaler'], ['transcoder', 'ScaledObject']] as const)
    if (!scaled.get(deployment)?.includes(kinds)) problems.push(`Deployment ${deployment}: no ${kinds}`);
  for (const [target, kinds] of scaled) if (kinds.length > 1) problems.push(`Deployment ${target}: scaled by ${kinds.join(' and ')} at once`);
  for (const deployment of deployments)
    if (scaled.has(deployment.metadata.name) && deployment.spec?.replicas !== undefined)
      problems.push(`Deployment ${deployment.metadata.name}: sets replicas, which every apply would reset under its autoscaler`);

  const budgets = of('PodDisruptionBudget');
  for (const budget of budgets)
    if (!deployments.some((deployment) => selects(budget.spec?.selector, podLabels(deployment)))) problems.push(`PodDisruptionBudget ${budget.metadata.name}: selects no Deployment's pods`);
  const maxReplicas = (deployment: K8sObject) =>
    Math.max(
      deployment.spec?.replicas ?? 1,
      ...[...of('HorizontalPodAutoscaler'), ...of('ScaledObject')]
        .filter((scaler) => scaler.spec?.scaleTargetRef?.name === deployment.metadata.name)
        .map((scaler) => scaler.spec.maxReplicas ?? scaler.spec.maxReplicaCount ?? 1),
    );
  for (const deployment of deployments)
    if (maxReplicas(deployment) > 1 && !budgets.some((budget) => selects(budget.spec?.selector, podLabels(deployment))))
      problems.push(`Deployment ${deployment.metadata.name}: runs more than one pod and has no PodDisruptionBudget`);

  const policies = of('NetworkPolicy').filter((policy) => (policy.spec?.policyTypes ?? ['Ingress']).includes('Ingress'));
  if (!policies.some((policy) => Object.keys(policy.spec?.podSelector ?? {}).length === 0 && (policy.spec?.ingress ?? []).length === 0))
    problems.push('no NetworkPolicy denies all ingress by default');
  /** The `from` peers of every ingress rule of the policies that select this Deployment's pods (null: a rule open to all). */
  const peersOf = (deployment: K8sObject): { peer: Json | null; policy: K8sObject }[] =>
    policies
      .filter((policy) => selects(policy.spec?.podSelector, podLabels(deployment)))
      .flatMap((policy) => (policy.spec?.ingress ?? []).flatMap((rule: Json) => (rule.from?.length ? rule.from : [null]).map((peer: Json | null) => ({ peer, policy }))));
  const letsPodsIn = (deployment: K8sObject, from: K8sObject) =>
    peersOf(deployment).some(({ peer }) => peer === null || (peer.podSelector && !peer.namespaceSelector && selects(peer.podSelector, podLabels(from))));
  // A namespace let into every pod alike is the metrics scraper's; one let into the gateway alone is outside traffic.
  // (Every pod of the app's: the media edge, nginx, has no /metrics.)
  const everyPod = (policy: K8sObject) => deployments.filter((deployment) => !isEdge(deployment)).every((deployment) => selects(policy.spec?.podSelector, podLabels(deployment)));
  const gateways = deployments.filter((deployment) => targetOf(deployment).includes(GATEWAY));
  const edges = deployments.filter(isEdge);
  for (const gateway of [...gateways, ...edges])
    if (!peersOf(gateway).some(({ peer, policy }) => peer?.namespaceSelector && !everyPod(policy))) problems.push(`Deployment ${gateway.metadata.name}: no NetworkPolicy lets the ingress controller in`);
  for (const deployment of deployments) {
    const name = `Deployment ${deployment.metadata.name}`;
    if (peersOf(deployment).length === 0) problems.push(`${name}: no NetworkPolicy lets anything in`);
    if (gateways.includes(deployment) || edges.includes(deployment)) continue;
    for (const { peer, policy } of peersOf(deployment))
      if (peer === null || peer.ipBlock || (peer.namespaceSelector && !everyPod(policy)))
        problems.push(`${name}: takes outside traffic (${peer === null ? 'from anywhere' : JSON.stringify(peer)}), which only the gateway may`);
    // Over HTTP: the gateway forwards to the modules reached by URL, and modules that need one of those call it.
    const called = targetOf(deployment).filter((module) => reachedByUrl.includes(module));
    if (called.length === 0) continue;
    for (const gateway of gateways) if (!letsPodsIn(deployment, gateway)) problems.push(`${name}: no NetworkPolicy lets the gateway in`);
    // The edge passes the master and subtitle playlists to the catalog's /media.
    if (called.includes('catalog')) for (const edge of edges) if (!letsPodsIn(deployment, edge)) problems.push(`${name}: no NetworkPolicy lets ${edge.metadata.name} in, which passes it playlists`);
    for (const caller of deployments)
      if (caller !== deployment && targetOf(caller).some((module) => registry.modules.find((entry) => entry.name === module)?.needs?.some((need) => called.includes(need))) && !letsPodsIn(deployment, caller))
        problems.push(`${name}: no NetworkPolicy lets ${caller.metadata.name} in, which calls it`);
  }
  return problems;
}

const overlays = fs.readdirSync(path.join(root, 'k8s/overlays')).sort();

describe.skipIf(!hasKubectl && !inCi)('k8s/ overlays, rendered by kubectl kustomize', () => {
  const readme = read('k8s/README.md');

  it('has a dev and a production overlay', () => {
    expect(overlays).toEqual(expect.arrayContaining(['dev', 'production']));
  });

  it.each(overlays)('%s: every module deployed, hardened, probed, autoscaled, budgeted and fenced', (overlay) => {
    expect(manifestProblems(render(overlay), readme)).toEqual([]);
  });

  it.each(overlays)('%s: a KafkaTopic for each family of events, none for a family that no longer exists', (overlay) => {
    const topics = render(overlay).filter((object) => object.kind === 'KafkaTopic');
    expect(topics.map((topic) => topic.spec.topicName).sort()).toEqual(eventTopics().sort());
    for (const topic of topics) expect(topic.spec.partitions).toBeGreaterThanOrEqual(1);
  });

  it('names the mistakes planted in a copy', () => {
    const objects = render('production');
    const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name)!;
    const podOf = (name: string) => find('Deployment', name).spec.template.spec;
    delete podOf('gateway').containers[0].readinessProbe;
    podOf('user').containers[0].securityContext.readOnlyRootFilesystem = false;
    delete podOf('unlock').containers[0].resources.limits.cpu;
    podOf('payment').containers[0].env.push({ name: 'UNKNOWN_SETTING', value: 'x' });
    podOf('catalog').initContainers = [];
    find('Service', 'catalog').spec.selector['app.kubernetes.io/component'] = 'catalogue';
    find('HorizontalPodAutoscaler', 'gateway').spec.scaleTargetRef.name = 'gateway-old';
    const withoutAnalytics = objects.filter(
      (object) =>
        !(object.kind === 'Deployment' && object.metadata.name === 'analytics') &&
        !(object.kind === 'PodDisruptionBudget' && object.metadata.name === 'transcoder') &&
        !(object.kind === 'NetworkPolicy' && object.metadata.name === 'services-from-cliffhanger'),
    );
    const configMap = objects.find((object) => object.kind === 'ConfigMap')!.metadata.name;
    expect(manifestProblems(withoutAnalytics, readme).sort()).toEqual(
      [
        'Deployment gateway: no readinessProbe',
        'Deployment user, container user: the root filesystem is not read-only',
        'Deployment unlock, container unlock: no cpu in resources.limits',
        'Deployment payment, container payment: UNKNOWN_SETTING is no setting of services/platform/src/config.ts',
        'Deployment catalog: no init container waits for the migrations of TARGET=catalog',
        // The Service catalog no longer picks the catalog's pods: the edge's playlists go nowhere.
        'Deployment edge: MEDIA_ORIGIN (http://catalog:8080) is not the catalog, which renders the master and subtitle playlists',
        "Service catalog: selects no Deployment's pods",
        `ConfigMap ${configMap}: CATALOG_SERVICE_URL points at catalog, which does not run catalog`,
        'HorizontalPodAutoscaler gateway: scales gateway-old, which is no Deployment',
        'Deployment gateway: no HorizontalPodAutoscaler',
        'no Deployment runs analytics',
        "Service analytics: selects no Deployment's pods",
        'HorizontalPodAutoscaler analytics: scales analytics, which is no Deployment',
        "PodDisruptionBudget analytics: selects no Deployment's pods",
        `ConfigMap ${configMap}: ANALYTICS_SERVICE_URL points at analytics, which does not run analytics`,
        'Deployment transcoder: runs more than one pod and has no PodDisruptionBudget',
        ...['user', 'catalog', 'unlock', 'payment'].map((name) => `Deployment ${name}: no NetworkPolicy lets the gateway in`),
        ...[
          ['catalog', 'user'],
          ['unlock', 'user'],
          ['user', 'catalog'],
          ['unlock', 'catalog'],
          ['catalog', 'unlock'],
          ['unlock', 'payment'],
          ['payment', 'user'],
        ].map(([callee, caller]) => `Deployment ${callee}: no NetworkPolicy lets ${caller} in, which calls it`),
      ].sort(),
    );
  });

  it("names the media edge's mistakes planted in a copy", () => {
    const objects = render('production');
    const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name)!;
    const edge = find('Deployment', 'edge').spec.template.spec.containers[0];
    edge.image = 'nginx:latest';
    edge.env = edge.env.filter((variable: Json) => variable.name !== 'EDGE_CACHE_DIR');
    edge.env.find((variable: Json) => variable.name === 'MEDIA_EDGE_STORE').value = 'disk';
    edge.env.find((variable: Json) => variable.name === 'MEDIA_ORIGIN').value = 'http://gateway:8080';
    const configMap = objects.find((object) => object.kind === 'ConfigMap' && settingsMap(object))!;
    configMap.data!.MEDIA_EDGE_URL = 'https://cliffhanger.tv';
    const planted = objects.filter((object) => !(object.kind === 'NetworkPolicy' && ['catalog-from-edge', 'edge-from-ingress'].includes(object.metadata.name)));
    expect(manifestProblems(planted, read('k8s/README.md')).sort()).toEqual(
      [
        'Deployment edge: runs nginx:latest, not the official nginx image pinned to a version',
        'Deployment edge: the templates name EDGE_CACHE_DIR, which the container does not set',
        "Deployment edge: EDGE_CACHE_DIR (undefined) is not a volume of the pod's own",
        'Deployment edge: MEDIA_EDGE_STORE is disk, not the bucket behind a proxy_cache (store-bucket.conf.template)',
        'Deployment edge: MEDIA_ORIGIN (http://gateway:8080) is not the catalog, which renders the master and subtitle playlists',
        `ConfigMap ${configMap.metadata.name}: MEDIA_EDGE_URL (https://cliffhanger.tv) is not https on the edge's Ingress host (media.cliffhanger.tv)`,
        'Deployment edge: no NetworkPolicy lets the ingress controller in',
        'Deployment edge: no NetworkPolicy lets anything in',
        'Deployment catalog: no NetworkPolicy lets edge in, which passes it playlists',
      ].sort(),
    );
  });

  it('names secrets, missing references, outside traffic and a missing migration Job planted in a copy', () => {
    const objects = render('production');
    const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name)!;
    objects.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cliffhanger-secrets' }, data: { ADMIN_TOKEN: 'c2VjcmV0' } });
    find('Deployment', 'payment').spec.template.spec.containers[0].envFrom[0].configMapRef.name = 'payment-config';
    find('NetworkPolicy', 'services-from-cliffhanger').spec.ingress[0].from.push({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } });
    delete find('Deployment', 'analytics').spec.template.spec.securityContext.seccompProfile;
    find('Deployment', 'user').spec.template.spec.containers[0].env.push({ name: 'TRUST_PROXY', value: 'everyone' });
    find('Deployment', 'transcoder').spec.template.spec.volumes = find('Deployment', 'transcoder').spec.template.spec.volumes.filter((volume: Json) => volume.name !== 'data');
    const planted = objects.filter((object) => object.kind !== 'Job' && object.kind !== 'ScaledObject');
    const outside = JSON.stringify({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } });
    expect(manifestProblems(planted, read('k8s/README.md')).sort()).toEqual(
      [
        'secrets with values in the repository: cliffhanger-secrets',
        'Deployment payment, container payment: no ConfigMap payment-config',
        "Deployment payment: DATA_DIR (unset) is not a volume of the pod's own",
        'Deployment analytics, container wait-for-migrations: no RuntimeDefault seccomp profile',
        'Deployment analytics, container analytics: no RuntimeDefault seccomp profile',
        "Deployment transcoder: DATA_DIR (/data/cliffhanger) is not a volume of the pod's own",
        'Deployment transcoder: no ScaledObject',
        "Deployment user, container user: TRUST_PROXY: 'everyone' is not a number of proxy hops, nor an address or subnet of a proxy",
        ...['user', 'catalog', 'unlock', 'payment', 'analytics', 'transcoder'].flatMap((name) => [
          `Deployment ${name}: takes outside traffic (${outside}), which only the gateway may`,
          `Deployment ${name}: no Job applies the migrations of ${name}`,
        ]),
      ].sort(),
    );
  });
});

describe(`${EDGE_COPIES}/: the media edge's files as edge/ has them`, () => {
  const filesOf = (dir: string) => Object.fromEntries(fs.readdirSync(path.join(root, dir)).map((file) => [file, read(`${dir}/${file}`)]));

  it('holds copies of edge/ that are the same bytes, and the ones the edge includes', () => {
    const copies = filesOf(EDGE_COPIES);
    expect(edgeCopyProblems(copies, filesOf('edge'))).toEqual([]);
    expect(Object.keys(copies).sort()).toEqual(['grant.js', 'nginx.conf.template', 'store-bucket.conf.template']);
  });

  it('names a copy that differs from edge/, and one edge/ does not have', () => {
    const copies = filesOf(EDGE_COPIES);
    copies['grant.js'] = copies['grant.js']!.replace('secret.length < 32', 'secret.length < 16');
    copies['extra.conf.template'] = '';
    expect(edgeCopyProblems(copies, filesOf('edge'))).toEqual([`${EDGE_COPIES}/grant.js: differs from edge/grant.js (copy it again)`, `${EDGE_COPIES}/extra.conf.template: no such file in edge/`]);
  });

  it('is what the ConfigMap of the edge is made from, every file of it', () => {
    const generators = (parse(read('k8s/base/kustomization.yaml')) as Json).configMapGenerator as { name: string; files?: string[] }[];
    const files = generators.find((generator) => generator.name === EDGE_NAME)?.files ?? [];
    expect(files.map((file) => path.posix.relative('edge', file)).sort()).toEqual(Object.keys(filesOf(EDGE_COPIES)).sort());
  });
});

// ---------------------------------------------------------------------------------------------
// Adding a service: every file outside a module's folder that must name it (service-checklist.ts)

/** A file's text, or undefined when the repository has no such file. */
const readIfAny = (file: string) => (fs.existsSync(path.join(root, file)) ? read(file) : undefined);

describe('adding a service (docs/architecture.md, "Adding a service")', () => {
  it('finds every module of the registry in every file outside its folder that must name it', () => {
    const checklist = serviceChecklist(registry, readIfAny);
    expect(checklist, checklistMessage(checklist)).toEqual([]);
  });

  it('names, for a throwaway module just registered, every file still missing, in the order the docs list them', () => {
    // A newcomer's first steps, in memory: the folder in the workspaces, its package.json, its line in the registry.
    const reviews = defineModule({ name: 'reviews', publicPrefixes: ['/api/review'], needs: ['catalog'], init: () => ({}) });
    const overlay: Record<string, string> = {
      'package.json': JSON.stringify({ ...JSON.parse(read('package.json')), workspaces: [...workspaces, 'services/reviews'] }),
      'services/reviews/package.json': JSON.stringify({ name: '@cliffhanger/reviews', exports: { '.': './src/index.ts' } }),
    };
    const checklist = serviceChecklist({ ...registry, modules: [...registry.modules, reviews] }, (file) => overlay[file] ?? readIfAny(file));
    expect(checklist.map((entry) => entry.module)).toEqual(['reviews']);
    const files = checklist[0]!.missing.map((place) => place.file);
    expect(files).toEqual([
      'gateway/package.json',
      'package-lock.json',
      'Dockerfile',
      'Dockerfile',
      'docker-compose.yml',
      'k8s/base/reviews.yaml',
      'k8s/base/kustomization.yaml',
      'k8s/base/network-policies.yaml',
      'k8s/base/config.env',
      'k8s/README.md',
      'docs/architecture.md',
      'README.md',
    ]);
    expect(checklistMessage(checklist).split('\n').slice(0, 4)).toEqual([
      'reviews: 12 place(s) still lack it (docs/architecture.md, "Adding a service"):',
      '  1. gateway/package.json: "@cliffhanger/reviews": "*" in "dependencies" (the registry imports it)',
      '  2. package-lock.json: run `npm install`, which links services/reviews as node_modules/@cliffhanger/reviews',
      "  3. Dockerfile: `COPY services/reviews/package.json services/reviews/` before stage build's `RUN npm ci`",
    ]);
    // The docs' list names each of these files, in the checklist's order.
    const section = read('docs/architecture.md').split('\n## Adding a service\n')[1]?.split('\n## ')[0] ?? '';
    const positions = files.map((file) => section.indexOf(`\`${file}\``));
    expect(files.filter((_file, index) => positions[index] === -1)).toEqual([]);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('names what one file lacks once the others have it', () => {
    const compose = read('docker-compose.yml').replace(/\n  analytics:\n    <<: \*app\n    environment: \{ <<: \*environment, TARGET: analytics \}\n/, '\n');
    const policies = read('k8s/base/network-policies.yaml').replace('values: [user, catalog, unlock, payment, analytics, transcoder]', 'values: [user, catalog, unlock, payment, transcoder]');
    const overlay: Record<string, string> = { 'docker-compose.yml': compose, 'k8s/base/network-policies.yaml': policies };
    expect(serviceChecklist(registry, (file) => overlay[file] ?? readIfAny(file))).toEqual([
      {
        module: 'analytics',
        missing: [
          { file: 'docker-compose.yml', add: 'a service `analytics: { <<: *app, environment: { <<: *environment, TARGET: analytics } }`' },
          { file: 'k8s/base/network-policies.yaml', add: "analytics in services-from-cliffhanger's components (the gateway and the parts call it)" },
        ],
      },
    ]);
  });
});
