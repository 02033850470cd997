// The Grafana dashboard and the Prometheus alerts in docs/grafana (docs/operations.md "Dashboard and
// alerts"): every metric their PromQL names exists in the real app's GET /metrics, every alert has
// what an operator needs, every panel reads the dashboard's data source variable, and the table of
// alerts in docs/operations.md lists the same alerts as the rules file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buyer, useTestApp } from './helpers/app.ts';

const TOKEN = 'dashboard-token-for-the-tests-0123456789';
const { t, database } = useTestApp({ env: { METRICS_TOKEN: TOKEN } });

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8');

// Prometheus's own, never in an exposition.
const PROMETHEUS = new Set(['up']);

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id?: number;
  type: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
  datasource?: { type?: string; uid?: string };
}
interface Dashboard {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
}
interface Rule {
  alert?: string;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown };
}

const dashboard = JSON.parse(read('docs/grafana/portage-dashboard.json')) as Dashboard;
const rules = (
  parseYaml(read('docs/grafana/alerts.yml')) as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((g) => g.rules);

/** Every panel, a row's own panels included (a collapsed row holds its panels). */
const allPanels = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);

/** The metric names a PromQL expression reads: strings, label matchers, groupings and ranges left out. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const names = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return names.filter((n) => /^(?:portage|nodejs|process)_/.test(n) || PROMETHEUS.has(n));
}

const dashboardExprs = [
  ...allPanels(dashboard.panels).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? '')),
  ...dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => (typeof v.query === 'string' ? v.query : (v.query?.query ?? ''))),
];
const alertExprs = rules.map((r) => String(r.expr ?? ''));

/** Metric families of an exposition, by name: `# TYPE name type`. */
function families(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) found.set(m[1]!, m[2]!);
  return found;
}

describe('the metrics the dashboard and the alerts read', () => {
  it('are read out of the expressions', () => {
    expect(metricNames('sum by (le, route) (rate(portage_x_bucket{route=~"a|b", job="up"}[5m]))')).toEqual([
      'portage_x_bucket',
    ]);
    expect(metricNames('up{job="portage"} == 0 and portage_nodejs_y > 0.2')).toEqual([
      'up',
      'portage_nodejs_y',
    ]);
    expect(dashboardExprs.flatMap(metricNames)).toContain('portage_orders_total');
    expect(alertExprs.flatMap(metricNames)).toContain('up');
  });

  it('all exist in the real GET /metrics after a request', async () => {
    expect((await t.api.get('/livez')).status).toBe(200);
    // A transaction, for its histogram's series (a labelled metric has none until observed).
    await buyer(t.api, 'dashboard');
    const res = await t.api.get('/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    const exposed = families(res.body as string);
    // The pool exists with DATABASE_URL only (docs/operations.md "Metrics"): absent on PGlite.
    const absentHere = database.kind === 'postgres' ? [] : ['portage_db_pool_connections'];

    const used = new Set([...dashboardExprs, ...alertExprs].flatMap(metricNames));
    const missing = [...used].filter((name) => {
      if (PROMETHEUS.has(name)) return false;
      const base = name.replace(/_(?:bucket|sum|count)$/, '');
      if (absentHere.includes(base)) return false;
      if (exposed.has(name)) return false;
      // A histogram's series: its family is the name without the suffix.
      return !(base !== name && exposed.get(base) === 'histogram');
    });
    expect(missing).toEqual([]);
  });
});

describe('the alerts', () => {
  it('each have a name, an expression, a duration, a severity, a summary and a description', () => {
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      const where = rule.alert ?? JSON.stringify(rule);
      expect(rule.alert, where).toMatch(/^Portage[A-Za-z0-9]+$/);
      expect(typeof rule.expr === 'string' && rule.expr.trim() !== '', where).toBe(true);
      expect(rule.for, where).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning'], where).toContain(rule.labels?.severity);
      expect(typeof rule.annotations?.summary === 'string' && rule.annotations.summary !== '', where).toBe(
        true,
      );
      expect(
        typeof rule.annotations?.description === 'string' && rule.annotations.description !== '',
        where,
      ).toBe(true);
    }
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
  });

  it('are the ones docs/operations.md lists', () => {
    const doc = read('docs/operations.md');
    const section = doc.slice(doc.indexOf('### Dashboard and alerts'), doc.indexOf('\n## Logs'));
    const listed = [...section.matchAll(/^\| `(Portage\w+)` \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(rules.map((r) => r.alert).sort());
  });
});

describe('the dashboard', () => {
  const panels = allPanels(dashboard.panels);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template
  const variable = { type: 'prometheus', uid: '${datasource}' };

  it('has a Prometheus data source variable and an instance variable', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(vars.get('instance')).toMatchObject({ type: 'query', datasource: variable });
  });

  it('gives each panel its own id', () => {
    const ids = panels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads every panel and query from the data source variable', () => {
    const graphs = panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThan(0);
    for (const panel of graphs) {
      expect(panel.datasource, panel.title).toEqual(variable);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource, panel.title).toEqual(variable);
        expect(target.expr, panel.title).toMatch(/\S/);
      }
    }
  });
});
