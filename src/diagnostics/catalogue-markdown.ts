import { catalogue, type CatalogueEntry } from './catalogue.js';

const PHASES: [string, string][] = [
  ['1', 'Parse'],
  ['2', 'Schema and rules'],
  ['3', 'References and drift'],
  ['4', 'Projection'],
  ['5', 'Emit'],
  ['6', 'Suppressions and baselines'],
  ['7', 'Import and diff'],
  ['8', 'Authoring and hosting'],
  ['9', 'Internal'],
];

/** docs/diagnostics.md, generated from the catalogue so the two never disagree. */
export function renderCatalogueMarkdown(): string {
  const entries = Object.entries(catalogue as Record<string, CatalogueEntry>);
  const lines = [
    '# Diagnostics',
    '',
    '<!-- Generated from src/diagnostics/catalogue.ts; run `npm run docs` after changing the catalogue. -->',
    '',
    'Every finding knoc reports has a permanent code. `knoc explain CODE` prints the same text in a terminal.',
    'Severities are defaults; `rules:` in knoc.config.yaml changes them per code (`error`, `warning`, `info` or `off`).',
    '',
  ];
  for (const [digit, phase] of PHASES) {
    const group = entries.filter(([code]) => code[3] === digit);
    if (group.length === 0) continue;
    lines.push(`## ${phase} (KNO${digit}xxx)`, '', '| code | severity | title |', '| --- | --- | --- |');
    for (const [code, entry] of group) lines.push(`| [${code}](#${code.toLowerCase()}) | ${entry.severity} | ${entry.title} |`);
    lines.push('');
    for (const [code, entry] of group) {
      lines.push(`### ${code}`, '', `**${entry.title}** (${entry.severity})`, '', entry.explanation, '', `Message: ${entry.message}`, '');
      if (entry.hint) lines.push(`Fix: ${entry.hint}`, '');
    }
  }
  return lines.join('\n');
}
