// Secrets each part needs and no more (issue 26), checked on every k8s/ overlay as kustomize renders
// it: each Deployment takes the keys it reads, one by one, from a secret of its own (the scraper's
// token from the one secret Prometheus reads), and lets traffic out only to what it calls. Every
// check also runs on a copy with mistakes planted in it, and must name each one.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GATEWAY, parseTarget } from '@cliffhanger/platform';
import { registry } from '../src/registry.ts';
import { hasKubectl, inCi, isEdge, render, selects, settingsMap, type K8sObject } from './k8s-render.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

type Json = any;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

// ---------------------------------------------------------------------------------------------
// What each part reads (services/*/src/module.ts and what the platform builds for it).

type Need = 'required' | 'optional';
/** The settings that are secrets: none of them may be written in a manifest, each comes from a secret. */
const METRICS_SECRET = { name: 'cliffhanger-metrics', key: 'METRICS_TOKEN' };
const secretSettings = new Set([
  'DATABASE_URL',
  'INTERNAL_TOKEN',
  'METRICS_TOKEN',
  'ADMIN_TOKEN',
  'MEDIA_SECRET',
  'SMTP_URL',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PUBLISHABLE_KEY',
  'FACEBOOK_CAPI_TOKEN',
  'TIKTOK_EVENTS_TOKEN',
  'GOOGLE_CLIENT_ID',
  'GOOGLE_CLIENT_SECRET',
  'GOOGLE_ISSUER',
  'FACEBOOK_CLIENT_ID',
  'FACEBOOK_CLIENT_SECRET',
  'FACEBOOK_ISSUER',
]);
const bucketKeys = { S3_ACCESS_KEY_ID: 'optional', S3_SECRET_ACCESS_KEY: 'optional' } as const;
/** The media edge (nginx, k8s/base/edge.yaml) checks playback grants and reads the bucket without keys: MEDIA_SECRET alone. */
const edgeSecrets: Record<string, Need> = { MEDIA_SECRET: 'required' };

/** The secrets a running part reads, given the ConfigMap's settings (the payment provider chooses some). */
function secretsRead(names: string[], settings: Record<string, string>): Record<string, Need> {
  const stripe = settings.PAYMENT_PROVIDER !== 'sandbox';
  const byPart: Record<string, Record<string, Need>> = {
    // statics.png's address hash (analytics' edge, answered by every gateway), the bus's dead letters, the page's CSP.
    [GATEWAY]: { MEDIA_SECRET: 'required', ADMIN_TOKEN: 'required', ...(stripe ? { STRIPE_PUBLISHABLE_KEY: 'required' } : {}) },
    // Reset links by mail, social sign-in's clients (a pair or neither).
    user: {
      SMTP_URL: 'required',
      ...Object.fromEntries(['GOOGLE', 'FACEBOOK'].flatMap((provider) => ['CLIENT_ID', 'CLIENT_SECRET', 'ISSUER'].map((part) => [`${provider}_${part}`, 'optional' as const]))),
    },
    // Playback grants, the admin API of uploads, the bucket (or a cloud identity instead of keys).
    catalog: { MEDIA_SECRET: 'required', ADMIN_TOKEN: 'required', ...bucketKeys },
    transcoder: { ...bucketKeys },
    analytics: { ADMIN_TOKEN: 'required', FACEBOOK_CAPI_TOKEN: 'optional', TIKTOK_EVENTS_TOKEN: 'optional' },
    unlock: {},
    // Receipts by mail, the plans' admin; Stripe's keys, or the sandbox's webhook key derived from MEDIA_SECRET.
    payment: {
      SMTP_URL: 'required',
      ADMIN_TOKEN: 'required',
      ...(stripe ? { STRIPE_SECRET_KEY: 'required', STRIPE_WEBHOOK_SECRET: 'required', STRIPE_PUBLISHABLE_KEY: 'required' } : { MEDIA_SECRET: 'required' }),
    },
  };
  const read: Record<string, Need> = { DATABASE_URL: 'required', INTERNAL_TOKEN: 'required', METRICS_TOKEN: 'required' };
  for (const name of names) for (const [key, need] of Object.entries(byPart[name] ?? {})) if (read[key] !== 'required') read[key] = need;
  return read;
}

// ---------------------------------------------------------------------------------------------
// Helpers over a rendered overlay.

function inspect(objects: K8sObject[]) {
  const of = (kind: string) => objects.filter((object) => object.kind === kind);
  const configMaps = new Map(of('ConfigMap').filter(settingsMap).map((map) => [map.metadata.name, map.data ?? {}]));
  const settingsOf = (container: Json): Record<string, string> => {
    const settings: Record<string, string> = {};
    for (const source of container.envFrom ?? []) Object.assign(settings, source.configMapRef ? configMaps.get(source.configMapRef.name) : {});
    for (const variable of container.env ?? []) if (variable.value !== undefined) settings[variable.name] = String(variable.value);
    return settings;
  };
  const podLabels = (workload: K8sObject): Record<string, string> => workload.spec?.template?.metadata?.labels ?? {};
  const mainContainer = (workload: K8sObject): Json => workload.spec?.template?.spec?.containers?.[0] ?? {};
  const namesOf = (workload: K8sObject): string[] => {
    try {
      const parsed = parseTarget(registry, settingsOf(mainContainer(workload)).TARGET ?? 'all');
      return [...(parsed.gateway ? [GATEWAY] : []), ...parsed.modules.map((module) => module.name)];
    } catch {
      return [];
    }
  };
  return { of, settingsOf, podLabels, mainContainer, namesOf, workloads: [...of('Deployment'), ...of('Job')] };
}

/** Whether a container is the wait for migrations (an init container) or the migration Job: they read the database alone. */
const migrates = (container: Json) => JSON.stringify(container.command ?? []).includes('scripts/migrate.ts');

// ---------------------------------------------------------------------------------------------
// Secrets

/** What is wrong with the overlay's secrets, one line each. `readme` is k8s/README.md, which lists every secret's keys. */
function secretProblems(objects: K8sObject[], readme: string): string[] {
  const problems: string[] = [];
  const { of, settingsOf, mainContainer, namesOf, workloads } = inspect(objects);
  for (const workload of workloads) {
    const label = `${workload.kind} ${workload.metadata.name}`;
    const own = `cliffhanger-${workload.metadata.name}`;
    const pod = workload.spec?.template?.spec ?? {};
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const where = `${label}, container ${container.name}`;
      const settings = settingsOf(container);
      const wanted: Record<string, Need> = isEdge(workload) ? edgeSecrets : migrates(container) ? { DATABASE_URL: 'required' } : secretsRead(namesOf(workload), settings);
      const held = new Set<string>();
      for (const source of container.envFrom ?? [])
        if (source.secretRef) problems.push(`${where}: envFrom takes the whole secret ${source.secretRef.name}, whose keys cannot be told apart: name each key`);
      for (const variable of container.env ?? []) {
        if (variable.value !== undefined && secretSettings.has(variable.name)) problems.push(`${where}: ${variable.name} is written in the manifest`);
        const ref = variable.valueFrom?.secretKeyRef;
        if (!ref) continue;
        held.add(variable.name);
        if (ref.key !== variable.name) problems.push(`${where}: ${variable.name} holds the key ${ref.key}`);
        const from = variable.name === METRICS_SECRET.key ? METRICS_SECRET.name : own;
        if (ref.name !== from) problems.push(`${where}: ${variable.name} comes from ${ref.name}, not ${from}`);
        if (!wanted[variable.name]) problems.push(`${where}: holds ${variable.name}, which it does not read`);
        else if (wanted[variable.name] === 'required' && ref.optional) problems.push(`${where}: ${variable.name} is optional, yet it does not start without it`);
        if (!readme.includes(`\`${ref.name}\``)) problems.push(`${where}: the secret ${ref.name} is not described in k8s/README.md`);
      }
      for (const [key, need] of Object.entries(wanted))
        if (need === 'required' && !held.has(key) && settings[key] === undefined) problems.push(`${where}: lacks ${key}`);
    }
  }
  for (const monitor of of('ServiceMonitor'))
    for (const endpoint of monitor.spec?.endpoints ?? []) {
      const token = endpoint.bearerTokenSecret ?? endpoint.authorization?.credentials;
      if (token?.name !== METRICS_SECRET.name || token?.key !== METRICS_SECRET.key)
        problems.push(`ServiceMonitor ${monitor.metadata.name}: scrapes with ${token ? `${token.name}/${token.key}` : 'no token'}, not ${METRICS_SECRET.name}/${METRICS_SECRET.key}`);
    }
  // The edge has no /metrics (nginx), and no METRICS_TOKEN.
  for (const deployment of of('Deployment').filter((deployment) => !isEdge(deployment)))
    if (!(mainContainer(deployment).env ?? []).some((variable: Json) => variable.name === 'METRICS_TOKEN'))
      problems.push(`Deployment ${deployment.metadata.name}: no METRICS_TOKEN, so Prometheus cannot scrape it`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Egress

const DNS = 'DNS';
/** Ports given by name in a policy: the parts' own port. */
const namedPorts: Record<string, number> = { http: 8080 };
const portOf = (url: string | undefined, fallback: number) => (url && URL.canParse(url) && new URL(url).port ? Number(new URL(url).port) : fallback);
/** What lies outside the cluster: an address block that leaves out the private ranges and the cloud's metadata address. */
const outside = (peer: Json) => {
  const except: string[] = peer.ipBlock?.except ?? [];
  return peer.ipBlock?.cidr === '0.0.0.0/0' && ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'].every((range) => except.includes(range));
};

/** Where a part must be let out to, and no more: `protocol/port` and why. */
function egressWanted(workload: K8sObject, names: string[], settings: Record<string, string>): Map<string, string> {
  const wanted = new Map<string, string>([
    ['UDP/53', DNS],
    ['TCP/53', DNS],
    ['TCP/5432', 'the database'],
  ]);
  if (workload.kind === 'Job') return wanted;
  if (isEdge(workload)) {
    // The media edge: DNS, the bucket it caches (MEDIA_BUCKET_URL), the catalog's playlists (MEDIA_ORIGIN); not the database.
    wanted.delete('TCP/5432');
    const bucket = settings.MEDIA_BUCKET_URL;
    wanted.set(`TCP/${portOf(bucket, bucket?.startsWith('http:') ? 80 : 443)}`, 'the bucket');
    wanted.set(`TCP/${portOf(settings.MEDIA_ORIGIN, 80)}`, 'the catalog');
    return wanted;
  }
  wanted.set(`TCP/${portOf(settings.REDIS_URL, 6379)}`, 'Redis');
  for (const broker of (settings.KAFKA_BROKERS ?? '').split(',').filter(Boolean)) wanted.set(`TCP/${portOf(`kafka://${broker.trim()}`, 9092)}`, 'Kafka');
  const calls = names.includes(GATEWAY) || names.some((name) => (registry.modules.find((module) => module.name === name)?.needs ?? []).length > 0);
  if (calls) wanted.set('TCP/8080', 'the services it calls');
  const https = (why: string) => wanted.set('TCP/443', wanted.has('TCP/443') ? `${wanted.get('TCP/443')}, ${why}` : why);
  if (names.includes('catalog') || names.includes('transcoder')) {
    const endpoint = settings.S3_ENDPOINT;
    const port = portOf(endpoint, endpoint?.startsWith('http:') ? 80 : 443);
    if (port === 443) https('the bucket');
    else wanted.set(`TCP/${port}`, 'the bucket');
  }
  if (names.includes('payment') && settings.PAYMENT_PROVIDER !== 'sandbox') https('the payment API');
  if (names.includes('analytics')) https("the ad platforms' APIs");
  if (names.includes('user')) https('social sign-in');
  if (names.includes('user') || names.includes('payment')) for (const port of [587, 465]) wanted.set(`TCP/${port}`, 'mail');
  return wanted;
}

/** What is wrong with the overlay's egress, one line each. */
function egressProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const { of, settingsOf, podLabels, mainContainer, namesOf, workloads } = inspect(objects);
  const policies = of('NetworkPolicy').filter((policy) => (policy.spec?.policyTypes ?? []).includes('Egress'));
  if (!policies.some((policy) => Object.keys(policy.spec?.podSelector ?? {}).length === 0 && (policy.spec?.egress ?? []).length === 0))
    problems.push('no NetworkPolicy denies all egress by default');
  for (const policy of policies)
    for (const rule of policy.spec?.egress ?? []) if (!rule.ports?.length) problems.push(`NetworkPolicy ${policy.metadata.name}: lets pods out on every port`);

  const ourPods = (peer: Json) => peer.podSelector && !peer.namespaceSelector && !peer.ipBlock && selects(peer.podSelector, { 'app.kubernetes.io/name': 'cliffhanger' });
  // The edge's calls to the catalog reach the catalog's pods and no other part's.
  const catalogPods = (peer: Json) => {
    if (!peer.podSelector || peer.namespaceSelector || peer.ipBlock) return false;
    const picked = of('Deployment').filter((deployment) => selects(peer.podSelector, podLabels(deployment)));
    return picked.length > 0 && picked.every((deployment) => namesOf(deployment).join() === 'catalog');
  };
  const dnsPods = (peer: Json) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'kube-system' && peer.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns';
  for (const workload of workloads) {
    const label = `${workload.kind} ${workload.metadata.name}`;
    const wanted = egressWanted(workload, namesOf(workload), settingsOf(mainContainer(workload)));
    /** Each `protocol/port` this pod may reach, with the peers (null: anywhere). */
    const allowed = new Map<string, (Json | null)[]>();
    for (const policy of policies.filter((candidate) => selects(candidate.spec?.podSelector, podLabels(workload))))
      for (const rule of policy.spec?.egress ?? [])
        for (const port of rule.ports ?? []) {
          const key = `${port.protocol ?? 'TCP'}/${namedPorts[port.port] ?? port.port}`;
          allowed.set(key, [...(allowed.get(key) ?? []), ...(rule.to?.length ? rule.to : [null])]);
        }
    for (const [key, why] of wanted) if (!allowed.has(key)) problems.push(`${label}: cannot reach ${why} (${key})`);
    for (const [key, peers] of allowed) {
      const why = wanted.get(key);
      if (!why) {
        problems.push(`${label}: may reach ${key}, which it does not call`);
        continue;
      }
      // The parts' own port reaches this deployment's pods, DNS the cluster's, HTTPS the world outside the cluster.
      const fits = why === DNS ? dnsPods : why === 'the catalog' ? catalogPods : key === 'TCP/8080' ? ourPods : key === 'TCP/443' ? outside : null;
      const beyond = why === DNS ? "the cluster's DNS" : why === 'the catalog' ? "the catalog's pods" : key === 'TCP/8080' ? "this deployment's pods" : 'the outside';
      if (fits && !peers.every((peer) => peer !== null && fits(peer)))
        problems.push(`${label}: ${key} (${why}) reaches ${JSON.stringify(peers.find((peer) => peer === null || !fits(peer)) ?? 'anywhere')}, beyond ${beyond}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

const overlays = fs.readdirSync(path.join(root, 'k8s/overlays')).sort();
const readme = read('k8s/README.md');
const of = (objects: K8sObject[], kind: string) => objects.filter((object) => object.kind === kind);

describe.skipIf(!hasKubectl && !inCi)('k8s/ overlays: secrets each part reads, traffic out only to what it calls', () => {
  it.each(overlays)('%s: one secret per part with only its keys, METRICS_TOKEN for the scraper, egress fenced', (overlay) => {
    const objects = render(overlay);
    expect(secretProblems(objects, readme)).toEqual([]);
    expect(egressProblems(objects)).toEqual([]);
  });

  it('names the secrets planted where they do not belong, and the ones missing', () => {
    const objects = render('production');
    const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name)!;
    const mainOf = (name: string) => find('Deployment', name).spec.template.spec.containers[0];
    mainOf('transcoder').env.push({ name: 'ADMIN_TOKEN', valueFrom: { secretKeyRef: { name: 'cliffhanger-transcoder', key: 'ADMIN_TOKEN' } } });
    mainOf('user').env = mainOf('user').env.filter((variable: Json) => variable.name !== 'SMTP_URL');
    mainOf('catalog').env.find((variable: Json) => variable.name === 'DATABASE_URL').valueFrom.secretKeyRef.name = 'cliffhanger-secrets';
    mainOf('unlock').envFrom.push({ secretRef: { name: 'cliffhanger-secrets' } });
    mainOf('gateway').env.push({ name: 'INTERNAL_TOKEN', value: 'written-in-the-manifest' });
    mainOf('analytics').env = mainOf('analytics').env.filter((variable: Json) => variable.name !== 'METRICS_TOKEN');
    find('Deployment', 'payment').spec.template.spec.initContainers[0].env.push({ name: 'STRIPE_SECRET_KEY', valueFrom: { secretKeyRef: { name: 'cliffhanger-payment', key: 'STRIPE_SECRET_KEY' } } });
    find('ServiceMonitor', 'cliffhanger').spec.endpoints[0].bearerTokenSecret = { name: 'cliffhanger-secrets', key: 'ADMIN_TOKEN' };
    expect(secretProblems(objects, readme).sort()).toEqual(
      [
        'Deployment transcoder, container transcoder: holds ADMIN_TOKEN, which it does not read',
        'Deployment user, container user: lacks SMTP_URL',
        'Deployment catalog, container catalog: DATABASE_URL comes from cliffhanger-secrets, not cliffhanger-catalog',
        'Deployment catalog, container catalog: the secret cliffhanger-secrets is not described in k8s/README.md',
        'Deployment unlock, container unlock: envFrom takes the whole secret cliffhanger-secrets, whose keys cannot be told apart: name each key',
        'Deployment gateway, container gateway: INTERNAL_TOKEN is written in the manifest',
        'Deployment analytics, container analytics: lacks METRICS_TOKEN',
        'Deployment analytics: no METRICS_TOKEN, so Prometheus cannot scrape it',
        'Deployment payment, container wait-for-migrations: holds STRIPE_SECRET_KEY, which it does not read',
        'ServiceMonitor cliffhanger: scrapes with cliffhanger-secrets/ADMIN_TOKEN, not cliffhanger-metrics/METRICS_TOKEN',
      ].sort(),
    );
  });

  it('names the egress planted where it does not belong, and the egress missing', () => {
    const objects = render('production');
    const find = (name: string) => objects.find((object) => object.kind === 'NetworkPolicy' && object.metadata.name === name)!;
    find('egress-smtp').spec.podSelector.matchExpressions[1].values.push('unlock');
    delete find('egress-bucket').spec.egress[0].ports;
    find('egress-to-services').spec.egress[0].to = [{ namespaceSelector: {} }];
    const planted = objects.filter((object) => !(object.kind === 'NetworkPolicy' && ['egress-dns', 'egress-ad-apis'].includes(object.metadata.name)));
    const toServices = JSON.stringify({ namespaceSelector: {} });
    expect(egressProblems(planted).sort()).toEqual(
      [
        'NetworkPolicy egress-bucket: lets pods out on every port',
        'Deployment catalog: cannot reach the bucket (TCP/443)',
        'Deployment transcoder: cannot reach the bucket (TCP/443)',
        'Deployment edge: cannot reach the bucket (TCP/443)',
        'Deployment unlock: may reach TCP/587, which it does not call',
        'Deployment unlock: may reach TCP/465, which it does not call',
        "Deployment analytics: cannot reach the ad platforms' APIs (TCP/443)",
        ...['gateway', 'user', 'catalog', 'unlock', 'payment'].map((name) => `Deployment ${name}: TCP/8080 (the services it calls) reaches ${toServices}, beyond this deployment's pods`),
        ...['gateway', 'user', 'catalog', 'unlock', 'payment', 'analytics', 'transcoder', 'edge'].flatMap((name) => ['UDP/53', 'TCP/53'].map((key) => `Deployment ${name}: cannot reach DNS (${key})`)),
        ...['UDP/53', 'TCP/53'].map((key) => `Job migrate: cannot reach DNS (${key})`),
      ].sort(),
    );
    expect(egressProblems(objects.filter((object) => object.metadata.name !== 'default-deny-egress'))).toContain('no NetworkPolicy denies all egress by default');
  });

  it.each(overlays)('%s: the media edge holds MEDIA_SECRET alone and reaches the bucket, the catalog and DNS alone', (overlay) => {
    const objects = render(overlay);
    const edge = objects.find((object) => object.kind === 'Deployment' && isEdge(object));
    expect(edge?.metadata.name).toBe('edge');
    const secrets = (edge!.spec.template.spec.containers as Json[]).flatMap((container) => (container.env ?? []).filter((variable: Json) => variable.valueFrom?.secretKeyRef));
    expect(secrets.map((variable: Json) => `${variable.valueFrom.secretKeyRef.name}/${variable.valueFrom.secretKeyRef.key}`)).toEqual(['cliffhanger-edge/MEDIA_SECRET']);
    const out = of(objects, 'NetworkPolicy').filter((policy) => (policy.spec?.policyTypes ?? []).includes('Egress') && selects(policy.spec?.podSelector, edge!.spec.template.metadata.labels));
    expect(out.map((policy) => policy.metadata.name).sort()).toEqual(['default-deny-egress', 'egress-bucket', 'egress-dns', 'egress-edge-to-catalog']);
  });

  it("names the media edge's planted secrets and egress", () => {
    const objects = render('production');
    const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name)!;
    const edge = find('Deployment', 'edge').spec.template.spec.containers[0];
    edge.env.push({ name: 'ADMIN_TOKEN', valueFrom: { secretKeyRef: { name: 'cliffhanger-edge', key: 'ADMIN_TOKEN' } } });
    edge.env.push({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'cliffhanger-edge', key: 'DATABASE_URL' } } });
    edge.env.find((variable: Json) => variable.name === 'MEDIA_SECRET').valueFrom.secretKeyRef.name = 'cliffhanger-catalog';
    expect(secretProblems(objects, readme).sort()).toEqual(
      [
        'Deployment edge, container edge: holds ADMIN_TOKEN, which it does not read',
        'Deployment edge, container edge: holds DATABASE_URL, which it does not read',
        'Deployment edge, container edge: MEDIA_SECRET comes from cliffhanger-catalog, not cliffhanger-edge',
      ].sort(),
    );
    // Let out to the database like a part, to every part's pods, and no longer to the bucket.
    find('NetworkPolicy', 'egress-database').spec.podSelector = { matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: ['cliffhanger', 'cliffhanger-edge'] }] };
    find('NetworkPolicy', 'egress-edge-to-catalog').spec.egress[0].to = [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cliffhanger' } } }];
    find('NetworkPolicy', 'egress-bucket').spec.podSelector.matchExpressions[1].values = ['catalog', 'transcoder'];
    expect(egressProblems(objects).sort()).toEqual(
      [
        'Deployment edge: may reach TCP/5432, which it does not call',
        `Deployment edge: TCP/8080 (the catalog) reaches ${JSON.stringify({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cliffhanger' } } })}, beyond the catalog's pods`,
        'Deployment edge: cannot reach the bucket (TCP/443)',
      ].sort(),
    );
  });
});
