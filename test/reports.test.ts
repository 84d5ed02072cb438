import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { sarifSchemaErrors } from './support/sarif-schema.js';
import { copyRepo, makeTempDir, repoRoot } from './support/temp-repo.js';

const happy = path.join(repoRoot, 'test', 'fixtures', 'build', 'happy');

/** A copy of the happy fixture with one error (a misspelled domain) and one warning (a skill without examples). */
function brokenRepo(): string {
  const root = copyRepo(happy);
  const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
  writeFileSync(file, readFileSync(file, 'utf8').replace('domains: [schemas, api-surface]', 'domains: [schemaz, api-surface]').replace('      examples: ["Check the orders API for drift"]\n', ''));
  return root;
}

interface Finding {
  code: string;
  file: string;
  line: number;
  column: number;
}
const key = (f: Finding) => `${f.code} ${f.file}:${f.line}:${f.column}`;

describe('reports in every format, from one run', () => {
  let root: string;
  let json: { summary: { errors: number; warnings: number; failed: boolean }; diagnostics: { code: string; file: string; range: { start: { line: number; column: number } } }[] };
  let sarif: { runs: { tool: { driver: { rules: { id: string; help: { text: string } }[] } }; results: { ruleId: string; ruleIndex: number; partialFingerprints: Record<string, string>; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }[] }[] }[] };
  let github: string;
  let junit: string;
  let status: number | null;
  let stderr: string;

  beforeAll(() => {
    root = brokenRepo();
    const reports = path.join(root, 'reports');
    const run = runCli(['check', '--root', root, '--format', 'stylish', '--format', `sarif=${reports}/knoc.sarif`, '--format', `json=${reports}/knoc.json`, '--format', `junit=${reports}/junit.xml`, '--format', 'github']);
    status = run.status;
    stderr = run.stderr;
    github = run.stdout;
    json = JSON.parse(readFileSync(path.join(reports, 'knoc.json'), 'utf8'));
    sarif = JSON.parse(readFileSync(path.join(reports, 'knoc.sarif'), 'utf8'));
    junit = readFileSync(path.join(reports, 'junit.xml'), 'utf8');
  });

  it('exits 1 and prints stylish to stderr', () => {
    expect(status).toBe(1);
    expect(stderr).toContain('content/agent-blueprints/drift-sentinel.kno:15:15  error  KNO3001');
    expect(stderr).toContain('warning  KNO2051');
  });

  it('writes a JSON report that matches its documented schema', () => {
    const schema = JSON.parse(readFileSync(path.join(repoRoot, 'docs', 'json-report.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(json.summary).toMatchObject({ errors: 1, warnings: 1, failed: true });
  });

  it('writes SARIF 2.1.0 that passes the official schema, with rules and stable fingerprints', () => {
    expect(sarifSchemaErrors(sarif)).toEqual([]);
    const [run] = sarif.runs;
    for (const result of run!.results) {
      expect(run!.tool.driver.rules[result.ruleIndex]!.id).toBe(result.ruleId);
      expect(result.partialFingerprints['knoc/v1']).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('gives each SARIF rule its fix with placeholders shown as <name>, as knoc explain does', () => {
    const rules = sarif.runs[0]!.tool.driver.rules;
    for (const rule of rules) expect(rule.help.text, rule.id).not.toMatch(/\{\w+\}/);
    expect(rules.find((r) => r.id === 'KNO1002')!.help.text).toBe('Remove or rename one of the two `<key>` keys; YAML keeps only one of them and which one is not obvious.');
    expect(rules.find((r) => r.id === 'KNO2001')!.help.text).toBe('Add `$schema: <example>` as the first key.');
  });

  it('carries the same findings in JSON, SARIF, GitHub annotations and JUnit', () => {
    const fromJson = json.diagnostics.map((d) => key({ code: d.code, file: d.file, line: d.range.start.line, column: d.range.start.column })).sort();
    const fromSarif = sarif.runs[0]!.results
      .map((r) => {
        const { artifactLocation, region } = r.locations[0]!.physicalLocation;
        return key({ code: r.ruleId, file: artifactLocation.uri, line: region.startLine, column: region.startColumn });
      })
      .sort();
    const fromGithub = github
      .trim()
      .split('\n')
      .map((line) => {
        const match = /^::(error|warning|notice) (.*?)::(.*)$/.exec(line)!;
        const props = Object.fromEntries(match[2]!.split(',').map((p) => p.split('=') as [string, string]));
        return key({ code: decodeURIComponent(props.title!).split(' ')[0]!, file: props.file!, line: Number(props.line), column: Number(props.col) });
      })
      .sort();
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit);
    const suites = [xml.testsuites.testsuite].flat();
    const fromJunit = suites
      .flatMap((s: { name: string; testcase: unknown }) => [s.testcase].flat().map((c) => ({ file: s.name, name: (c as { name: string }).name })))
      .map(({ file, name }) => {
        const [code, at] = name.split(' ');
        const [line, column] = at!.split(':').map(Number);
        return key({ code: code!, file, line: line!, column: column! });
      })
      .sort();
    expect(fromJson).toHaveLength(2);
    expect(fromSarif).toEqual(fromJson);
    expect(fromGithub).toEqual(fromJson);
    expect(fromJunit).toEqual(fromJson);
    expect(xml.testsuites.failures).toBe('1');
  });

  it('gives a SARIF region that spans lines the end column where the range ends, not the start column', () => {
    const spanning = copyRepo(happy);
    const file = path.join(spanning, 'content/agent-blueprints/drift-sentinel.kno');
    // A folded boundary that does not start with MUST NOT: the finding covers the whole block scalar, lines 24 to 27:1.
    writeFileSync(file, readFileSync(file, 'utf8').replace('    - MUST NOT modify .kno files directly\n', '    - MUST NOT modify .kno files directly\n    - >-\n        Should not modify\n        .kno files\n'));
    const run = runCli(['check', '--root', spanning, '--format', 'json', '--format', `sarif=${spanning}/knoc.sarif`]);
    const finding = JSON.parse(run.stdout).diagnostics.find((d: { code: string }) => d.code === 'KNO2007');
    expect(finding.range).toMatchObject({ start: { line: 24, column: 7 }, end: { line: 27, column: 1 } });
    const log = JSON.parse(readFileSync(path.join(spanning, 'knoc.sarif'), 'utf8')) as typeof sarif;
    expect(sarifSchemaErrors(log)).toEqual([]);
    const result = log.runs[0]!.results.find((r) => r.ruleId === 'KNO2007')!;
    expect(result.locations[0]!.physicalLocation.region).toEqual({ startLine: 24, startColumn: 7, endLine: 27, endColumn: 1 });
  });

  it('keeps SARIF fingerprints stable when unrelated lines move the finding', () => {
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('purpose:', '# a new comment line\n# and another\npurpose:'));
    const again = JSON.parse(runCli(['check', '--root', root, '--format', 'sarif']).stdout) as typeof sarif;
    const fingerprints = (log: typeof sarif) => log.runs[0]!.results.map((r) => r.partialFingerprints['knoc/v1']).sort();
    expect(fingerprints(again)).toEqual(fingerprints(sarif));
    expect(again.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine).not.toBe(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine);
  });
});

describe('gating', () => {
  /** The happy fixture plus one warning and no error. */
  function warningRepo(): string {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('      examples: ["Check the orders API for drift"]\n', ''));
    return root;
  }

  it.each([
    [[], 0, /; checked\n$/],
    [['--fail-severity', 'warning'], 1, /; checked; failed: warnings fail the run with --fail-severity warning\n$/],
    [['--max-warnings', '0'], 1, /; checked; failed: 1 warning, more than --max-warnings 0 allows\n$/],
    [['--max-warnings', '1'], 0, /; checked\n$/],
  ])('a run with one warning and %j exits %i, and its summary says why it failed', (flags, code, summary) => {
    const run = runCli(['check', '--root', warningRepo(), ...flags]);
    expect(run.status).toBe(code);
    expect(run.stderr).toContain('KNO2051');
    expect(run.stderr).toMatch(summary);
  });

  it.each([
    [['--max-warnings', '0'], 1, 1],
    [['--fail-severity', 'warning'], 1, 1],
    [['--max-warnings', '1'], 0, 0],
    [[], 0, 0],
  ])('with one warning and %j (exit %i), JUnit counts %i failure, as the exit code does', (flags, code, failures) => {
    const run = runCli(['check', '--root', warningRepo(), '--format', 'junit', ...flags]);
    expect(run.status).toBe(code);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(run.stdout);
    expect(xml.testsuites.failures).toBe(String(failures));
    expect(xml.testsuites.testsuite.failures).toBe(String(failures));
    const testcase = xml.testsuites.testsuite.testcase;
    expect(testcase.name).toMatch(/^KNO2051 /);
    expect(testcase.failure !== undefined).toBe(failures === 1);
  });

  it('does not write dist/ when warnings fail the build', () => {
    const root = warningRepo();
    expect(runCli(['build', '--root', root, '--fail-severity', 'warning']).status).toBe(1);
    expect(() => readFileSync(path.join(root, 'dist', 'manifest.json'))).toThrow();
  });

  it.each([
    [['--fail-severity', 'info']],
    [['--max-warnings', '-1']],
    [['--format', 'sarif=']],
  ])('rejects %j as a usage error (exit 2)', (flags) => {
    expect(runCli(['check', '--root', happy, '--no-cache', ...flags]).status).toBe(2);
  });

  it('prints only a one-line summary for a clean repository', () => {
    const run = runCli(['check', '--root', happy, '--no-cache']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; checked\n$/);
  });

  it('uses colour only when forced or on a TTY', () => {
    const root = warningRepo();
    expect(runCli(['check', '--root', root]).stderr).not.toContain('\u001b[');
    expect(runCli(['check', '--root', root], { NO_COLOR: undefined, FORCE_COLOR: '1' }).stderr).toContain('\u001b[');
  });
});

describe('suppressions', () => {
  it('silences a finding with an inline comment that gives a reason, and reports unused ones', () => {
    const root = brokenRepo();
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace('    domains: [schemaz, api-surface]', '    # knoc-disable-next-line KNO3001 -- the schemaz domain lands next week\n    domains: [schemaz, api-surface]')
        .replace('    refresh: on-change', '    # knoc-disable-next-line KNO3007 -- nothing to silence here\n    refresh: on-change'),
    );
    const run = runCli(['check', '--root', root, '--format', 'json']);
    const report = JSON.parse(run.stdout);
    const codes = report.diagnostics.map((d: { code: string }) => d.code).sort();
    expect(codes).toEqual(['KNO2051', 'KNO6002']);
    expect(report.summary.suppressed).toBe(1);
    expect(run.status).toBe(0);
  });

  it('does not call a suppression unused while its file does not parse, in a full build or an edit of one', () => {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    const text = readFileSync(file, 'utf8').replace('      examples: ["Review the change to orders.schema.json"]\n', '').replace('    - id: review', '    # knoc-disable-next-line KNO2051 -- examples come with the next release\n    - id: review');
    writeFileSync(file, text);
    expect(runCli(['build', '--root', root]).stderr).toMatch(/0 errors, 0 warnings \(1 suppressed\)/);
    writeFileSync(file, `${text}zz: [\n`);
    // The build after a clean one re-reads only the changed blueprint; the check reads every file.
    const edit = runCli(['build', '--root', root, '--format', 'json', '--verbose']);
    expect(edit.stderr).toContain('incremental: only 1 changed blueprint parsed');
    const full = runCli(['check', '--root', root, '--format', 'json']);
    for (const run of [edit, full]) {
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO1001 content/agent-blueprints/schema-reviewer.kno']);
    }
  });

  // The goal's description ends right above the line with the error, so a directive inside it would name that line.
  const PERSONA = '  perception:\n    domains: [schemas, api-surface]\n    refresh: on-change\n  goals:\n    - id: drift-detection\n      description: No unresolved drift older than 7 days\n      metric: drift_findings_per_sweep\n      target: "0"\n';
  const DIRECTIVE = '# knoc-disable-next-line KNO3001 -- not a comment';
  it.each([
    ['a block scalar, read by the fast reader', `  goals:\n    - id: drift-detection\n      target: "0"\n      description: |\n        Keep it tidy.\n        ${DIRECTIVE}\n  perception: {domains: [schemas, api-surface, no-such-domain], refresh: on-change}\n`],
    ['a block scalar, in a file the full parser reads', `  goals:\n    - id: drift-detection\n      target: &zero "0"\n      description: |\n        Keep it tidy.\n        ${DIRECTIVE}\n  perception: {domains: [schemas, api-surface, no-such-domain], refresh: on-change}\n`],
    ['a double-quoted string over two lines', `  goals:\n    - id: drift-detection\n      target: "0"\n      description: "Keep it tidy.\n        ${DIRECTIVE}"\n  perception: {domains: [schemas, api-surface, no-such-domain], refresh: on-change}\n`],
    ['a quoted value on the line above', `  goals:\n    - id: drift-detection\n      target: "0"\n      description: "Keep it tidy. ${DIRECTIVE}"\n  perception: {domains: [schemas, api-surface, no-such-domain], refresh: on-change}\n`],
  ])('silences nothing with a directive inside %s', (_, persona) => {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(PERSONA);
    writeFileSync(file, text.replace(PERSONA, persona));
    const run = runCli(['build', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.diagnostics.map((d: { code: string; range: { start: { line: number } } }) => `${d.code} ${d.range.start.line}`)).toEqual([`KNO3001 ${persona.split('\n').length + 12}`]);
    expect(report.summary.suppressed).toBe(0);
    expect(existsSync(path.join(root, 'dist'))).toBe(false);
  });

  it.each([
    ['a comment line, in a file the full parser reads', `  goals:\n    - id: drift-detection\n      target: &zero "0"\n      description: |\n        Keep it tidy.\n  ${DIRECTIVE}\n  perception: {domains: [schemas, api-surface, no-such-domain], refresh: on-change}\n`],
    ['a comment after a value', `  goals:\n    - id: drift-detection\n      target: "0"\n      description: Keep it tidy. ${DIRECTIVE}\n  perception: {domains: [schemas, api-surface, no-such-domain], refresh: on-change}\n`],
  ])('silences the next line with a directive in %s', (_, persona) => {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace(PERSONA, persona));
    const run = runCli(['build', '--root', root, '--format', 'json']);
    expect(run.stderr).toMatch(/0 errors, 0 warnings \(1 suppressed\)/);
    expect(run.status).toBe(0);
  });

  it('accepts today\'s findings with --update-baseline, then fails only on new ones and reports stale entries', () => {
    const root = brokenRepo();
    const update = runCli(['check', '--root', root, '--update-baseline']);
    expect(update.stderr).toContain('baseline written to knoc-baseline.json');
    const baseline = JSON.parse(readFileSync(path.join(root, 'knoc-baseline.json'), 'utf8'));
    expect(baseline.entries.map((e: { code: string }) => e.code).sort()).toEqual(['KNO2051', 'KNO3001']);

    const accepted = runCli(['check', '--root', root]);
    expect(accepted.status).toBe(0);
    expect(accepted.stderr).toMatch(/0 errors, 0 warnings \(2 suppressed\)/);

    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('lifecycle: bounded', 'lifecycle: bounde'));
    const fresh = runCli(['check', '--root', root, '--format', 'json']);
    expect(fresh.status).toBe(1);
    expect(JSON.parse(fresh.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO2006 content/agent-blueprints/schema-reviewer.kno']);

    const sentinel = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(sentinel, readFileSync(sentinel, 'utf8').replace('schemaz', 'schemas'));
    const stale = JSON.parse(runCli(['check', '--root', root, '--format', 'json']).stdout);
    expect(stale.diagnostics.map((d: { code: string }) => d.code).sort()).toEqual(['KNO2006', 'KNO6003']);
  });

  it('does not call a baseline entry or suppression of an orphan domain (KNO3008) stale while a broken file skips that check', () => {
    const root = copyRepo(happy);
    const domain = (slug: string, id: string, before = '') => `$schema: perception-domain@0.1.0\nid: ${id}\n${before}slug: ${slug}\ntitle: T\npurpose: P.\ncategory: structural\nsources: [x]\n`;
    writeFileSync(path.join(root, 'content/perception-domains/billing.kno'), domain('billing', '01JQ0000000000000000000D71'));
    writeFileSync(path.join(root, 'content/perception-domains/ledger.kno'), domain('ledger', '01JQ0000000000000000000D72', '# knoc-disable-next-line KNO3008 -- an agent perceives it next week\n'));
    expect(runCli(['check', '--root', root, '--update-baseline']).status).toBe(0);
    const accepted = runCli(['check', '--root', root]);
    expect(accepted.status).toBe(0);
    expect(accepted.stderr).toMatch(/0 errors, 0 warnings \(2 suppressed\)/);
    // One blueprint that does not parse: it may perceive either domain, so no domain is called an orphan.
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nzz: [\n`);
    const broken = runCli(['check', '--root', root, '--format', 'json']);
    expect(broken.status).toBe(1);
    expect(JSON.parse(broken.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO1001 content/agent-blueprints/schema-reviewer.kno']);
  });

  /**
   * A copy of the happy fixture whose baseline accepts four warnings: an orphan domain (KNO3008, billing), a deprecated
   * domain drift-sentinel perceives (KNO3007, legacy) and a skill without examples in each blueprint (KNO2051).
   */
  function acceptedRepo(): string {
    const root = copyRepo(happy);
    const domain = (slug: string, id: string, more = '') => `$schema: perception-domain@0.1.0\nid: ${id}\nslug: ${slug}\ntitle: T\npurpose: P.\ncategory: structural\nsources: [x]\n${more}`;
    writeFileSync(path.join(root, 'content/perception-domains/billing.kno'), domain('billing', '01JQ0000000000000000000D71'));
    writeFileSync(path.join(root, 'content/perception-domains/legacy.kno'), domain('legacy', '01JQ0000000000000000000D72', 'deprecated: true\n'));
    const sentinel = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(sentinel, readFileSync(sentinel, 'utf8').replace('domains: [schemas, api-surface]', 'domains: [schemas, api-surface, legacy]').replace('      examples: ["Check the orders API for drift"]\n', ''));
    const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(reviewer, readFileSync(reviewer, 'utf8').replace('      examples: ["Review the change to orders.schema.json"]\n', ''));
    const update = runCli(['check', '--root', root, '--update-baseline']);
    expect(update.status, update.stderr).toBe(0);
    expect(update.stderr).toMatch(/; baseline written to knoc-baseline\.json\n$/);
    expect(baselineEntries(root)).toEqual(ACCEPTED);
    return root;
  }
  const ACCEPTED = ['KNO2051 content/agent-blueprints/drift-sentinel.kno', 'KNO2051 content/agent-blueprints/schema-reviewer.kno', 'KNO3007 content/agent-blueprints/drift-sentinel.kno', 'KNO3008 content/perception-domains/billing.kno'];
  const baselineEntries = (root: string): string[] =>
    (JSON.parse(readFileSync(path.join(root, 'knoc-baseline.json'), 'utf8')) as { entries: { code: string; file: string }[] }).entries.map((e) => `${e.code} ${e.file}`).sort();

  it('keeps the entries --update-baseline cannot check while a blueprint does not parse, dropping only the findings it proves gone', () => {
    const root = acceptedRepo();
    const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    const text = readFileSync(reviewer, 'utf8');
    writeFileSync(reviewer, `${text}\nzz: [\n`);
    // Fixed meanwhile, in a blueprint that parses: that finding is proven gone.
    const sentinel = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(sentinel, readFileSync(sentinel, 'utf8').replace('      tags: [schemas, api]\n', '      tags: [schemas, api]\n      examples: ["Check the orders API for drift"]\n'));
    const update = runCli(['check', '--root', root, '--update-baseline', '--format', 'json']);
    expect(update.status).toBe(1);
    expect(JSON.parse(update.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO3007 content/agent-blueprints/drift-sentinel.kno', 'KNO1001 content/agent-blueprints/schema-reviewer.kno']);
    expect(update.stderr).toMatch(/; baseline written to knoc-baseline\.json, keeping 2 earlier entries whose findings this run could not check\n$/);
    // The unparsed blueprint's own finding and the orphan domain it might perceive stay accepted.
    expect(baselineEntries(root)).toEqual(['KNO2051 content/agent-blueprints/schema-reviewer.kno', 'KNO3007 content/agent-blueprints/drift-sentinel.kno', 'KNO3008 content/perception-domains/billing.kno']);
    // Nor does a run that applies the baseline call them stale (KNO6003) meanwhile.
    const meanwhile = runCli(['check', '--root', root, '--format', 'json']);
    expect(JSON.parse(meanwhile.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO1001 content/agent-blueprints/schema-reviewer.kno']);

    writeFileSync(reviewer, text);
    const fixed = runCli(['check', '--root', root]);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).toMatch(/0 errors, 0 warnings \(3 suppressed\)/);

    // With every file checked, an update drops what is gone and keeps nothing unchecked.
    rmSync(path.join(root, 'content/perception-domains/billing.kno'));
    const complete = runCli(['check', '--root', root, '--update-baseline']);
    expect(complete.status, complete.stderr).toBe(0);
    expect(complete.stderr).toMatch(/; baseline written to knoc-baseline\.json\n$/);
    expect(baselineEntries(root)).toEqual(['KNO2051 content/agent-blueprints/schema-reviewer.kno', 'KNO3007 content/agent-blueprints/drift-sentinel.kno']);
  });

  it('keeps the entries --update-baseline cannot check while a domain does not parse: the deprecated use of it elsewhere and the orphan domains', () => {
    const root = acceptedRepo();
    const legacy = path.join(root, 'content/perception-domains/legacy.kno');
    const text = readFileSync(legacy, 'utf8');
    writeFileSync(legacy, text.replace('title: T', 'title: [T'));
    const update = runCli(['check', '--root', root, '--update-baseline']);
    expect(update.status).toBe(1);
    expect(update.stderr).toContain('content/perception-domains/legacy.kno:4:8  error  KNO1001');
    expect(update.stderr).toMatch(/; baseline written to knoc-baseline\.json, keeping 2 earlier entries whose findings this run could not check\n$/);
    expect(baselineEntries(root)).toEqual(ACCEPTED);
    const meanwhile = runCli(['check', '--root', root, '--format', 'json']);
    expect(JSON.parse(meanwhile.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO1001 content/perception-domains/legacy.kno']);

    writeFileSync(legacy, text);
    const fixed = runCli(['check', '--root', root]);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).toMatch(/0 errors, 0 warnings \(4 suppressed\)/);
  });

  it('drops with --update-baseline a fixed finding that reads other files while a blueprint only does not fit its schema, which hides none', () => {
    const root = brokenRepo();
    expect(runCli(['check', '--root', root, '--update-baseline']).status).toBe(1);
    expect(baselineEntries(root)).toEqual(['KNO2051 content/agent-blueprints/drift-sentinel.kno', 'KNO3001 content/agent-blueprints/drift-sentinel.kno']);
    const sentinel = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(sentinel, readFileSync(sentinel, 'utf8').replace('schemaz', 'schemas'));
    const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(reviewer, readFileSync(reviewer, 'utf8').replace('lifecycle: bounded', 'lifecycle: bounde'));
    const update = runCli(['check', '--root', root, '--update-baseline']);
    expect(update.status).toBe(1);
    expect(update.stderr).toMatch(/; baseline written to knoc-baseline\.json\n$/);
    expect(baselineEntries(root)).toEqual(['KNO2051 content/agent-blueprints/drift-sentinel.kno']);
  });

  it('keeps the missing-URL entries (KNO4001, KNO4002) while knoc.config.yaml does not parse', () => {
    const root = copyRepo(happy);
    const config = path.join(root, 'knoc.config.yaml');
    const text = readFileSync(config, 'utf8').replace('base_url: https://agents.example.test/\n', '');
    writeFileSync(config, text);
    expect(runCli(['check', '--root', root, '--update-baseline']).status).toBe(1);
    const accepted = ['KNO4001 content/agent-blueprints/schema-reviewer.kno', 'KNO4002 knoc.config.yaml'];
    expect(baselineEntries(root)).toEqual(accepted);
    writeFileSync(config, `${text}zz: [\n`);
    const update = runCli(['check', '--root', root, '--update-baseline']);
    expect(update.status).toBe(1);
    expect(update.stderr).not.toContain('baseline written');
    expect(baselineEntries(root)).toEqual(accepted);
    const meanwhile = runCli(['check', '--root', root, '--format', 'json']);
    expect(JSON.parse(meanwhile.stdout).diagnostics.map((d: { code: string; file: string }) => d.code)).toEqual(['KNO1001']);
    writeFileSync(config, text);
    const fixed = runCli(['check', '--root', root]);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).toMatch(/0 errors, 0 warnings \(2 suppressed\)/);
  });

  it.each([
    { command: 'check', broken: 'zz: [\n', why: 'does not parse' },
    { command: 'build', broken: 'zz: [\n', why: 'does not parse' },
    { command: 'check', broken: 'fleet_name: X\n', why: 'does not fit its schema' },
  ])('knoc $command --update-baseline leaves the baseline as it was while knoc.config.yaml $why, its `rules` unknown (KNO6004, exit 1)', ({ command, broken }) => {
    const root = copyRepo(happy);
    writeFileSync(path.join(root, 'content/perception-domains/billing.kno'), '$schema: perception-domain@0.1.0\nid: 01JQ0000000000000000000D71\nslug: billing\ntitle: T\npurpose: P.\ncategory: structural\nsources: [x]\n');
    const config = path.join(root, 'knoc.config.yaml');
    const text = `${readFileSync(config, 'utf8')}rules: { KNO3008: "off" }\n`;
    writeFileSync(config, text);
    expect(runCli(['check', '--root', root, '--update-baseline']).status).toBe(0);
    const baseline = path.join(root, 'knoc-baseline.json');
    const before = readFileSync(baseline, 'utf8');
    expect(baselineEntries(root)).toEqual([]);
    // Without its rules the orphan domain (KNO3008) is a warning: recorded, the fixed config would turn it off and call it stale.
    writeFileSync(config, `${text}${broken}`);
    const update = runCli([command, '--root', root, '--update-baseline', '--format', 'json']);
    expect(update.status).toBe(1);
    expect(update.stderr).not.toContain('baseline written');
    const refusal = (JSON.parse(update.stdout) as { diagnostics: { code: string; file: string; message: string }[] }).diagnostics.find((d) => d.code === 'KNO6004');
    expect(refusal?.file).toBe('knoc-baseline.json');
    expect(refusal?.message).toContain('knoc.config.yaml does not parse or fit its schema');
    expect(refusal?.message).toContain('the baseline file is left as it was');
    expect(readFileSync(baseline, 'utf8')).toBe(before);
    writeFileSync(config, text);
    const fixed = runCli(['check', '--root', root]);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).toMatch(/0 errors, 0 warnings/);
  });

  it('knoc check --update-baseline writes no baseline file while knoc.config.yaml does not parse and there is none yet', () => {
    const root = copyRepo(happy);
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}zz: [\n`);
    const update = runCli(['check', '--root', root, '--update-baseline']);
    expect(update.status).toBe(1);
    expect(update.stderr).toContain('KNO6004');
    expect(update.stderr).toContain('no baseline file is written');
    expect(existsSync(path.join(root, 'knoc-baseline.json'))).toBe(false);
  });

  it('records with --update-baseline the findings of projecting a blueprint whose other error it accepts, so the next run passes', () => {
    const root = copyRepo(happy);
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('base_url: https://agents.example.test/\n', ''));
    const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(reviewer, readFileSync(reviewer, 'utf8').replace('domains: [schemas]', 'domains: [schemas, billing]'));
    expect(runCli(['check', '--root', root, '--update-baseline']).status).toBe(1);
    // The unknown domain (KNO3001) and the missing interface URL found only by projecting the card (KNO4001).
    expect(baselineEntries(root)).toEqual(['KNO3001 content/agent-blueprints/schema-reviewer.kno', 'KNO4001 content/agent-blueprints/schema-reviewer.kno', 'KNO4002 knoc.config.yaml']);
    const next = runCli(['check', '--root', root]);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/0 errors, 0 warnings \(3 suppressed\)/);
  });

  it.each([
    { command: 'check', linked: 'knoc-baseline.json', baseline: 'knoc-baseline.json' },
    { command: 'build', linked: 'knoc-baseline.json', baseline: 'knoc-baseline.json' },
    { command: 'check', linked: 'accepted', baseline: 'accepted/baseline.json' },
  ])('knoc $command --update-baseline refuses to write through a symbolic link at $linked (KNO8006, exit 1), leaving what it points to alone', ({ command, linked, baseline }) => {
    // A clean repository: the link is the only reason to fail, and a build would otherwise publish.
    const root = copyRepo(happy);
    const elsewhere = path.join(makeTempDir(), 'elsewhere');
    if (linked === baseline) writeFileSync(elsewhere, '{"version": 1, "entries": []}\n');
    else mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(root, linked));
    const run = runCli([command, '--root', root, '--no-cache', '--update-baseline', ...(linked === baseline ? [] : ['--baseline', baseline])]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${linked}  error  KNO8006  \`${linked}\` is a symbolic link, so nothing was written; knoc never writes through a link.`);
    expect(run.stderr).toContain('hint: Replace the link with the file or folder itself, or remove it, then run the command again.');
    expect(run.stderr).not.toContain('baseline written');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    if (linked === baseline) expect(readFileSync(elsewhere, 'utf8')).toBe('{"version": 1, "entries": []}\n');
    else expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(path.join(root, 'dist'))).toBe(false);
  });

  it('replaces the baseline file by a rename, never rewriting the old file in place', () => {
    const root = brokenRepo();
    const baseline = path.join(root, 'knoc-baseline.json');
    writeFileSync(baseline, '{"version": 1, "entries": []}\n');
    // A second name for the old file: a rename leaves its bytes alone, a write in place would change them.
    const other = path.join(makeTempDir(), 'old-baseline.json');
    linkSync(baseline, other);
    const run = runCli(['check', '--root', root, '--no-cache', '--update-baseline']);
    expect(run.stderr).toContain('baseline written to knoc-baseline.json');
    expect(readFileSync(other, 'utf8')).toBe('{"version": 1, "entries": []}\n');
    expect(JSON.parse(readFileSync(baseline, 'utf8')).entries.map((e: { code: string }) => e.code).sort()).toEqual(['KNO2051', 'KNO3001']);
    expect(readdirSync(root).filter((name) => name.startsWith('knoc-baseline'))).toEqual(['knoc-baseline.json']);
  });

  it('refuses to suppress a parse or schema error, inline or by baseline', () => {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('ownership:', '# knoc-disable-next-line KNO2004 -- legacy key\nbogus: 1\nownership:'));
    const report = JSON.parse(runCli(['check', '--root', root, '--format', 'json']).stdout);
    expect(report.diagnostics.map((d: { code: string }) => d.code).sort()).toEqual(['KNO2004', 'KNO6001']);
    expect(report.diagnostics.find((d: { code: string }) => d.code === 'KNO6001').message).toContain('cannot be suppressed');
    runCli(['check', '--root', root, '--update-baseline']);
    expect(JSON.parse(readFileSync(path.join(root, 'knoc-baseline.json'), 'utf8')).entries).toEqual([]);
  });

  it('refuses to turn off or suppress a duplicate slug, which would publish two cards on one path', () => {
    const root = copyRepo(happy);
    const first = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    const twin = path.join(root, 'content/agent-blueprints/schema-reviewer-twin.kno');
    writeFileSync(twin, readFileSync(first, 'utf8').replace(/^id: .*$/m, 'id: 01M80P61HEDVEMH4Q180FF4C9Y').replace(/^slug: (.*)$/m, '# knoc-disable-next-line KNO3003 -- the same agent twice\nslug: $1'));
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}\nrules:\n  KNO3003: off\n`);
    const run = runCli(['build', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const codes = JSON.parse(run.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`).sort();
    expect(codes).toEqual(['KNO2040 knoc.config.yaml', 'KNO3003 content/agent-blueprints/schema-reviewer.kno', 'KNO6001 content/agent-blueprints/schema-reviewer-twin.kno']);
  });

  it('reports every problem with `rules` in one run: a code that cannot change, an unknown code and an unknown level', () => {
    const root = copyRepo(happy);
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}\nrules:\n  KNO1001: off\n  KNO9999: warning\n  KNO3008: loud\n`);
    const run = runCli(['check', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    const found = JSON.parse(run.stdout).diagnostics.map((d: { code: string; pointer: string; message: string }) => [d.code, d.pointer, d.message]);
    expect(found).toEqual([
      ['KNO2040', '/rules/KNO1001', expect.stringContaining('cannot be changed or turned off')],
      ['KNO2040', '/rules/KNO9999', expect.stringContaining('not a knoc diagnostic code')],
      ['KNO2040', '/rules/KNO3008', expect.stringContaining('`loud`')],
    ]);
  });

  it('gives a finding about the run itself (not a repository) a SARIF location, at knoc.config.yaml, as GitHub code scanning requires of every result', () => {
    const run = runCli(['check', '--root', makeTempDir(), '--format', 'sarif']);
    expect(run.status).toBe(1);
    const log = JSON.parse(run.stdout) as { runs: { results: { ruleId: string; locations: unknown }[] }[] };
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0]!.results.map((r) => [r.ruleId, r.locations])).toEqual([['KNO1020', [{ physicalLocation: { artifactLocation: { uri: 'knoc.config.yaml', uriBaseId: '%SRCROOT%' } } }]]]);
  });

  it('refuses two reports on stdout, which no reader could parse', () => {
    const run = runCli(['check', '--root', happy, '--no-cache', '--format', 'json', '--format', 'sarif']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('only one report can go to stdout');
  });

  it('prints a report named twice for the terminal once', () => {
    const root = brokenRepo();
    const once = runCli(['check', '--root', root, '--no-cache', '--format', 'stylish']);
    const twice = runCli(['check', '--root', root, '--no-cache', '--format', 'stylish', '--format', 'stylish']);
    expect(twice.status).toBe(1);
    expect(twice.stderr.split('error  KNO3001').length - 1).toBe(1);
    expect(twice.stderr.split('warning  KNO2051').length - 1).toBe(1);
    expect(twice.stderr.replace(/ in \d+ ms;/, '')).toBe(once.stderr.replace(/ in \d+ ms;/, ''));
    const json = runCli(['check', '--root', root, '--no-cache', '--format', 'json', '--format', 'stylish', '--format', 'json']);
    expect(json.status, json.stderr).toBe(1);
    expect(JSON.parse(json.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['KNO3001', 'KNO2051']);
    expect(json.stderr.split('error  KNO3001').length - 1).toBe(1);
  });

  it('writes a report named twice for one file, however its path is spelled, once', () => {
    const root = brokenRepo();
    const reports = path.join(makeTempDir(), 'reports');
    const run = runCli(['check', '--root', root, '--no-cache', '--format', `json=${reports}/knoc.json`, '--format', `json=${reports}/../reports/./knoc.json`]);
    expect(run.status, run.stderr).toBe(1);
    expect(JSON.parse(readFileSync(path.join(reports, 'knoc.json'), 'utf8')).diagnostics.map((d: { code: string }) => d.code)).toEqual(['KNO3001', 'KNO2051']);
    expect(readdirSync(reports)).toEqual(['knoc.json']);
  });

  it('reports a missing --baseline file instead of ignoring it', () => {
    const run = runCli(['check', '--root', happy, '--no-cache', '--baseline', 'nope.json']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('nope.json  error  KNO6004  The baseline file cannot be used: there is no such file.');
    expect(run.stderr).toContain('hint: Check the path given to --baseline, or record today’s findings there with `knoc check --update-baseline` and the same --baseline.');
  });
});
