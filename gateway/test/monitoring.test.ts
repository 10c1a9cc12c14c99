// k8s/monitoring/: the PrometheusRule's groups pass `promtool check rules` (Debian's prometheus
// package; CI fails without it, elsewhere the check is skipped with a message), every alert links
// its section of docs/runbooks.md, and every query of the alerts and the Grafana dashboards names a
// metric the code registers. Each check also runs on a copy with one mistake planted in it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createMetrics } from '@cliffhanger/platform';
import { inCi } from './k8s-render.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

type Json = any;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const monitoring = 'k8s/monitoring';
const kustomization = parse(read(`${monitoring}/kustomization.yaml`)) as Json;
const rule = parse(read(`${monitoring}/prometheus-rules.yaml`)) as Json;
const dashboardFiles: string[] = kustomization.configMapGenerator.flatMap((generator: Json) => generator.files);
const dashboards = () => dashboardFiles.map((file) => ({ file, json: JSON.parse(read(`${monitoring}/${file}`)) as Json }));

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const hasPromtool = !promtool.error && promtool.status === 0;
if (!hasPromtool && !inCi) console.warn('monitoring: promtool is not installed (apt-get install -y prometheus), so the alert rules are not checked by it (in CI this fails)');

/** What promtool says of a PrometheusRule's groups, or null when it finds them sound. */
function promtoolProblems(prometheusRule: Json): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rules-'));
  try {
    const file = path.join(dir, 'rules.yaml');
    fs.writeFileSync(file, stringify(prometheusRule.spec));
    const result = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    return result.status === 0 ? null : `${result.stdout}${result.stderr}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every metric the code registers, with a histogram's `_bucket`, `_sum` and `_count`: prom-client's
 * default ones and the platform's HTTP pair from a real registry, the others from the sources'
 * `new Counter|Gauge|Histogram({ name: '…' })`; and Prometheus's own `up`.
 */
async function registeredMetrics(): Promise<Set<string>> {
  const names = new Set(['up']);
  const add = (name: string, histogram: boolean) => {
    names.add(name);
    if (histogram) for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  };
  for (const metric of await createMetrics('test').registry.getMetricsAsJSON()) add(metric.name, String(metric.type) === 'histogram');
  const sourceDirs = [...fs.readdirSync(path.join(root, 'services')).map((service) => `services/${service}/src`), 'gateway/src'].filter((dir) => fs.existsSync(path.join(root, dir)));
  const sources = sourceDirs.flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).map((file) => `${dir}/${file}`));
  for (const file of sources)
    for (const [, kind, name] of read(file).matchAll(/new (Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-zA-Z_:][a-zA-Z0-9_:]*)'/g)) add(name!, kind === 'Histogram' || kind === 'Summary');
  return names;
}

const keywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: not functions, label matchers, grouping labels, strings or durations. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  return [...bare.matchAll(/(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:])(?!\s*\()/g)].map((match) => match[1]!).filter((word) => !keywords.has(word.toLowerCase()));
}

/** What is wrong with the alerts and dashboards, one line each. */
function monitoringProblems(prometheusRule: Json, boards: { file: string; json: Json }[], metrics: Set<string>, runbooks: string): string[] {
  const problems: string[] = [];
  const anchors = new Set([...runbooks.matchAll(/^#{2,3} (.+)$/gm)].map((match) => match[1]!.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));
  const unknown = (expr: string) => metricsOf(expr).filter((name) => !metrics.has(name));
  for (const group of prometheusRule.spec.groups)
    for (const alert of group.rules) {
      for (const name of unknown(alert.expr)) problems.push(`alert ${alert.alert}: ${name} is no metric the code registers`);
      const runbook = /^docs\/runbooks\.md#(.+)$/.exec(alert.annotations?.runbook_url ?? '');
      if (!runbook) problems.push(`alert ${alert.alert}: no runbook_url in docs/runbooks.md`);
      else if (!anchors.has(runbook[1]!)) problems.push(`alert ${alert.alert}: docs/runbooks.md has no section #${runbook[1]}`);
    }
  for (const { file, json } of boards)
    for (const panel of json.panels ?? [])
      for (const target of panel.targets ?? []) for (const name of unknown(target.expr ?? '')) problems.push(`${file}, panel "${panel.title}": ${name} is no metric the code registers`);
  return problems;
}

describe('alerts and dashboards', () => {
  it('every query names a registered metric, and every alert its runbook', async () => {
    expect(monitoringProblems(rule, dashboards(), await registeredMetrics(), read('docs/runbooks.md'))).toEqual([]);
  });

  it('a query of a metric nobody registers, or an alert without its runbook section, is named', async () => {
    const planted = structuredClone(rule);
    planted.spec.groups[0].rules[0].expr = 'sum(rate(http_request_total[5m])) > 1';
    planted.spec.groups[0].rules[1].annotations.runbook_url = 'docs/runbooks.md#nowhere';
    const boards = dashboards();
    boards[0]!.json.panels[0].targets[0].expr = 'sum by (route) (rate(http_requests_count{status="500"}[5m]))';
    expect(monitoringProblems(planted, boards, await registeredMetrics(), read('docs/runbooks.md'))).toEqual([
      `alert ${planted.spec.groups[0].rules[0].alert}: http_request_total is no metric the code registers`,
      `alert ${planted.spec.groups[0].rules[1].alert}: docs/runbooks.md has no section #nowhere`,
      `${boards[0]!.file}, panel "${boards[0]!.json.panels[0].title}": http_requests_count is no metric the code registers`,
    ]);
  });

  it('the dashboards are Grafana JSON: a uid, a title and panels with queries', () => {
    for (const file of dashboardFiles) {
      const json = JSON.parse(read(`${monitoring}/${file}`)) as Json;
      expect({ file, uid: typeof json.uid, title: typeof json.title, panels: json.panels.length > 0 }).toEqual({ file, uid: 'string', title: 'string', panels: true });
      for (const panel of json.panels) expect(panel.targets.length, `${file}: panel ${panel.title}`).toBeGreaterThan(0);
    }
  });

  it('the monitoring is part of the base every overlay renders', () => {
    expect(parse(read('k8s/base/kustomization.yaml')).resources).toContain('../monitoring');
  });
});

if (!hasPromtool && inCi)
  describe('promtool', () => {
    it('runs in CI', () => {
      throw new Error('promtool not found (apt-get install -y prometheus): the alert rules cannot be checked');
    });
  });

describe.skipIf(!hasPromtool)('promtool check rules', () => {
  it('passes the PrometheusRule', () => {
    expect(promtoolProblems(rule)).toBeNull();
  });

  it('names a broken expression', () => {
    const planted = structuredClone(rule);
    planted.spec.groups[0].rules[0].expr = 'sum(rate(http_requests_total[5m]) > ';
    expect(promtoolProblems(planted)).toMatch(/parse error/);
  });
});
