// Adding a service, checked: for each module of a registry, every file outside its folder that must
// name it, and what to add where one does not, in the order docs/architecture.md ("Adding a service")
// lists them. A pure function of a registry and a file reader, so deploy-manifests.test.ts runs it on
// the repository as it is and on an overlay with a throwaway module, and a script could print it.
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseTarget, type Registry, type ServiceModule } from '@cliffhanger/platform';
import { selects, type K8sObject } from './k8s-render.ts';

type Json = any;

/** One place that lacks a module: the file, and what to add to it. */
export interface Missing {
  file: string;
  add: string;
}

/** A file's text from the repository's root, or undefined when there is no such file. */
export type Reader = (file: string) => string | undefined;

/**
 * Modules that get no container of their own, and the setting that keeps them off in every
 * container: the demo catalog is `npm start`'s, seeded from inside the catalog's process.
 */
export const offInDeployments: Record<string, { setting: string; value: string }> = { demo: { setting: 'DEMO', value: '0' } };

/** The modules the gateway reaches over HTTP: each one's public prefixes are forwarded, and the identity module answers who calls. */
export const modulesReachedByUrl = (registry: Registry): string[] =>
  registry.modules.filter((module) => (module.publicPrefixes?.length ?? 0) > 0 || module.name === registry.identity).map((module) => module.name);

// ---------------------------------------------------------------------------------------------
// The Dockerfile, read as docker does (shared with deploy-manifests.test.ts's deeper checks).

interface Instruction {
  keyword: string;
  args: string;
}
export interface Stage {
  name: string;
  instructions: Instruction[];
}

/** The Dockerfile's instructions by stage, continuation lines joined and comments left out. */
export function dockerStages(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (!pending && !line)) continue;
    pending = `${pending} ${line.replace(/\\$/, '')}`.trim();
    if (line.endsWith('\\')) continue;
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(pending) ?? [];
    pending = '';
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: /\sAS\s+(\S+)$/i.exec(args)?.[1] ?? String(stages.length), instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** Where a stage's COPY puts each source, relative to its WORKDIR: `{ from, source, placed }`. */
export function copies(stage: Stage, until = stage.instructions.length) {
  let workdir = '/';
  const placed: { from: string | null; source: string; placed: string }[] = [];
  for (const instruction of stage.instructions.slice(0, until)) {
    if (instruction.keyword === 'WORKDIR') workdir = path.posix.resolve(workdir, instruction.args);
    if (instruction.keyword !== 'COPY') continue;
    const tokens = instruction.args.split(/\s+/);
    const from = tokens.find((token) => token.startsWith('--from='))?.slice('--from='.length) ?? null;
    const paths = tokens.filter((token) => !token.startsWith('--'));
    const destination = paths.at(-1)!;
    const sources = paths.slice(0, -1);
    for (const source of sources) {
      const into = destination.endsWith('/') || sources.length > 1 ? path.posix.join(destination, path.posix.basename(source)) : destination;
      placed.push({ from, source: source.replace(/\/$/, ''), placed: path.posix.relative(workdir, path.posix.resolve(workdir, into)) });
    }
  }
  return placed;
}

/** A compose service's environment as a map, whichever of its two forms it is written in. */
export function environmentOf(service: Json): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) return Object.fromEntries(environment.map((entry: string) => [entry.split('=')[0], entry.slice(entry.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, String(value)]));
}

// ---------------------------------------------------------------------------------------------
// The checklist

const json = (text: string | undefined): Json => (text === undefined ? undefined : JSON.parse(text));
const yamlDocuments = (text: string | undefined): K8sObject[] => (text === undefined ? [] : parseAllDocuments(text).map((document) => document.toJS() as K8sObject).filter(Boolean));

/** Whether a TARGET value runs this module, under this registry. */
function runs(registry: Registry, target: string | undefined, name: string): boolean {
  try {
    return target !== undefined && parseTarget(registry, target).modules.some((module) => module.name === name);
  } catch {
    return false;
  }
}

/** Every place outside its folder that lacks one module of the registry, in docs/architecture.md's order. */
export function missingPlaces(registry: Registry, module: ServiceModule<any>, read: Reader): Missing[] {
  const { name } = module;
  const folder = `services/${name}`;
  const pkg = `@cliffhanger/${name}`;
  const setting = `${name.toUpperCase()}_SERVICE_URL`;
  const reached = modulesReachedByUrl(registry).includes(name);
  const deployed = !(name in offInDeployments);
  const labels = { 'app.kubernetes.io/name': 'cliffhanger', 'app.kubernetes.io/component': name };
  const missing: Missing[] = [];
  const lacks = (file: string, add: string) => missing.push({ file, add });

  if (!(json(read('package.json'))?.workspaces ?? []).includes(folder)) lacks('package.json', `"${folder}" in "workspaces"`);
  if (json(read(`${folder}/package.json`))?.name !== pkg) lacks(`${folder}/package.json`, `"name": "${pkg}", "exports": { ".": "./src/index.ts" }`);
  if (!json(read('gateway/package.json'))?.dependencies?.[pkg]) lacks('gateway/package.json', `"${pkg}": "*" in "dependencies" (the registry imports it)`);
  const lock = json(read('package-lock.json'))?.packages ?? {};
  if (!lock[folder] || lock[`node_modules/${pkg}`]?.resolved !== folder) lacks('package-lock.json', `run \`npm install\`, which links ${folder} as node_modules/${pkg}`);

  for (const stage of dockerStages(read('Dockerfile') ?? '')) {
    const ci = stage.instructions.findIndex((instruction) => instruction.keyword === 'RUN' && /\bnpm ci\b/.test(instruction.args));
    if (ci !== -1 && !copies(stage, ci).some((copy) => copy.from === null && copy.placed === `${folder}/package.json`))
      lacks('Dockerfile', `\`COPY ${folder}/package.json ${folder}/\` before stage ${stage.name}'s \`RUN npm ci\``);
  }

  if (deployed) {
    const services: Record<string, Json> = parse(read('docker-compose.yml') ?? '{}', { merge: true })?.services ?? {};
    const app = Object.entries(services).filter(([, service]) => service.build !== undefined && service.restart !== 'no');
    const gateway = app.find(([, service]) => environmentOf(service).TARGET === 'gateway');
    const compose = [
      ...(app.some(([, service]) => runs(registry, environmentOf(service).TARGET, name)) ? [] : [`a service \`${name}: { <<: *app, environment: { <<: *environment, TARGET: ${name} } }\``]),
      ...(reached && !environmentOf(gateway?.[1] ?? {})[setting] ? [`\`${setting}: http://${name}:8080\` in x-app's environment`] : []),
      ...(gateway && !gateway[1].depends_on?.[name] ? [`\`${name}: { condition: service_healthy }\` in the gateway's depends_on`] : []),
    ];
    if (compose.length > 0) lacks('docker-compose.yml', compose.join('; '));

    const manifest = `k8s/base/${name}.yaml`;
    const objects = yamlDocuments(read(manifest));
    const deployment = objects.find((object) => object.kind === 'Deployment' && (object.spec?.template?.spec?.containers?.[0]?.env ?? []).some((variable: Json) => variable.name === 'TARGET' && runs(registry, variable.value, name)));
    const pods = deployment?.spec?.template?.metadata?.labels;
    const kinds = [
      ...(deployment ? [] : [`a Deployment with TARGET ${name}, labelled app.kubernetes.io/component: ${name}, its keys from the secret cliffhanger-${name}`]),
      ...(objects.some((object) => object.kind === 'Service' && object.metadata.name === name && selects(object.spec?.selector, pods)) ? [] : [`a Service ${name} selecting its pods`]),
      ...(objects.some((object) => object.kind === 'PodDisruptionBudget' && selects(object.spec?.selector, pods)) ? [] : ['a PodDisruptionBudget']),
      ...(objects.some((object) => ['HorizontalPodAutoscaler', 'ScaledObject'].includes(object.kind) && object.spec?.scaleTargetRef?.name === deployment?.metadata.name)
        ? []
        : ['a HorizontalPodAutoscaler (or a ScaledObject for a worker)']),
    ];
    if (kinds.length > 0) lacks(manifest, `${kinds.join(', ')} (k8s/base/unlock.yaml is the model)`);

    const resources: string[] = parse(read('k8s/base/kustomization.yaml') ?? '{}')?.resources ?? [];
    if (!resources.includes(`${name}.yaml`)) lacks('k8s/base/kustomization.yaml', `\`${name}.yaml\` in resources`);

    const policies = yamlDocuments(read('k8s/base/network-policies.yaml'));
    const selected = (policy: string) => selects(policies.find((object) => object.kind === 'NetworkPolicy' && object.metadata.name === policy)?.spec?.podSelector, labels);
    const fences = [
      ...(selected('services-from-cliffhanger') ? [] : [`${name} in services-from-cliffhanger's components (the gateway and the parts call it)`]),
      ...((module.needs?.length ?? 0) > 0 && !selected('egress-to-services') ? [`${name} in egress-to-services' components (it calls ${module.needs!.join(', ')})`] : []),
    ];
    if (fences.length > 0) lacks('k8s/base/network-policies.yaml', fences.join('; '));

    if (reached && !new RegExp(`^${setting}=`, 'm').test(read('k8s/base/config.env') ?? '')) lacks('k8s/base/config.env', `${setting}=http://${name}:8080`);
    if (!(read('k8s/README.md') ?? '').includes(`\`cliffhanger-${name}\``)) lacks('k8s/README.md', `a row of the secrets table: \`cliffhanger-${name}\` and the keys it reads`);
  }

  const snippet = (read('docs/architecture.md') ?? '').split('\n## The module registry\n')[1]?.split('\n## ')[0] ?? '';
  if (!(/modules: \[([^\]]*)\]/.exec(snippet)?.[1] ?? '').split(',').some((entry) => entry.trim() === `${name}Module`))
    lacks('docs/architecture.md', `\`${name}Module\` in the registry snippet under "The module registry", in the registry's order`);
  if (!(read('README.md') ?? '').includes(`| \`${folder}/\` |`)) lacks('README.md', `a row \`${folder}/\` in "Where things live": what it owns`);
  return missing;
}

/** Every module's missing places, module by module in the registry's order. */
export function serviceChecklist(registry: Registry, read: Reader): { module: string; missing: Missing[] }[] {
  return registry.modules.map((module) => ({ module: module.name, missing: missingPlaces(registry, module, read) })).filter((entry) => entry.missing.length > 0);
}

/** The checklist as a failure message: what to add, file by file. */
export function checklistMessage(checklist: { module: string; missing: Missing[] }[]): string {
  return checklist
    .map(
      ({ module, missing }) =>
        `${module}: ${missing.length} place(s) still lack it (docs/architecture.md, "Adding a service"):\n${missing.map((place, index) => `  ${index + 1}. ${place.file}: ${place.add}`).join('\n')}`,
    )
    .join('\n');
}
