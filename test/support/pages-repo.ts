import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyRepo } from './temp-repo.js';

/** The happy build fixture: two agents, two domains, one fleet. */
export const happyFixture = fileURLToPath(new URL('../fixtures/build/happy/', import.meta.url));

/** Markup in a blueprint that must reach the pages as text, never as markup. */
export const HOSTILE_DESCRIPTION = `<script>alert("pwned")</script><img src=x onerror=alert(2)> Finds drift`;

/** An https documentation URL that tries to break out of the `href` attribute it lands in. */
export const HOSTILE_URL = "https://example.org/docs?a=1&b='onmouseover='alert(3)'";

/**
 * A copy of the happy fixture whose Drift Sentinel describes itself with a
 * `<script>` and links its documentation with a URL that tries to close its
 * attribute, plus a private blueprint that must appear on no page. (A
 * `javascript:` URL never gets this far: validation refuses it, KNO2080.)
 */
export function hostilePagesRepo(): string {
  const root = copyRepo(happyFixture);
  const drift = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
  const text = readFileSync(drift, 'utf8')
    .replace(/^ {2}description: Finds drift.*$/m, `  description: '${HOSTILE_DESCRIPTION}'`)
    .replace('  capabilities:', `  documentation_url: "${HOSTILE_URL}"\n  capabilities:`);
  writeFileSync(drift, text);
  const reviewer = readFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), 'utf8');
  writeFileSync(
    path.join(root, 'content/agent-blueprints/secret-agent.kno'),
    reviewer
      .replace('01JQ0000000000000000000A02', '01JQ0000000000000000000A03')
      .replace('slug: schema-reviewer', 'slug: secret-agent\nvisibility: private')
      .replace(/name: Schéma-Prüfer.*$/m, 'name: Classified Watcher'),
  );
  return root;
}
