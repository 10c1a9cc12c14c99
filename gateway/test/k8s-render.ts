// The k8s/ overlays as `kubectl apply -k` would send them, and what the checks of
// deploy-manifests.test.ts and deploy-least-privilege.test.ts share: label selectors and the objects.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

type Json = any;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Json;
  data?: Record<string, string>;
}
export interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/** Whether a label selector (a Service's plain map, or matchLabels and matchExpressions) picks these labels. */
export function selects(selector: Selector | Record<string, string> | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  const structured = 'matchLabels' in selector || 'matchExpressions' in selector;
  const matchLabels = (structured ? (selector as Selector).matchLabels : (selector as Record<string, string>)) ?? {};
  const expressions = structured ? ((selector as Selector).matchExpressions ?? []) : [];
  return (
    Object.entries(matchLabels).every(([key, value]) => labels[key] === value) &&
    expressions.every(({ key, operator, values = [] }) =>
      operator === 'In' ? values.includes(labels[key]!) : operator === 'NotIn' ? !values.includes(labels[key]!) : operator === 'Exists' ? key in labels : !(key in labels),
    )
  );
}

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
export const hasKubectl = !kubectl.error && kubectl.status === 0;
export const inCi = process.env.CI === 'true';
if (!hasKubectl && !inCi) console.warn('deploy manifests: kubectl is not installed, so the k8s/ overlays are not checked (in CI this fails)');

/** An overlay as `kubectl apply -k` would send it. */
export function render(overlay: string): K8sObject[] {
  if (!hasKubectl) throw new Error(`kubectl (with kustomize v5) is needed to render k8s/overlays/${overlay}: ${kubectl.error?.message ?? kubectl.stderr}`);
  const result = spawnSync('kubectl', ['kustomize', path.join(root, 'k8s/overlays', overlay)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize k8s/overlays/${overlay}: ${result.stderr}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as K8sObject).filter(Boolean);
}

/** The media edge's label (k8s/base/edge.yaml): nginx, not a part of the app, on its pods and its files' ConfigMap. */
export const EDGE_NAME = 'cliffhanger-edge';

/** Whether a workload is the media edge (its pods labelled cliffhanger-edge): the official nginx image, no TARGET. */
export const isEdge = (workload: K8sObject): boolean => workload.spec?.template?.metadata?.labels?.['app.kubernetes.io/name'] === EDGE_NAME;

/**
 * A ConfigMap of settings (envFrom), not one of Grafana's dashboards (k8s/monitoring, labelled
 * grafana_dashboard) nor the media edge's templates (labelled cliffhanger-edge).
 */
export const settingsMap = (map: K8sObject): boolean => !map.metadata.labels?.grafana_dashboard && map.metadata.labels?.['app.kubernetes.io/name'] !== EDGE_NAME;
