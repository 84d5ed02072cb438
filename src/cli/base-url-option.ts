import { checkPublishedUrl, displayUrl } from '../model/safe-url.js';
import { uri } from '../validate/formats.js';
import { UsageError } from './command.js';

/**
 * Checks the value of `--base-url` as the config's `base_url` is checked
 * (KNO2080, KNO2081): every card's interface URLs start with it, so it must be
 * an absolute `https:` URL (`http:` only on the local machine) with no user
 * name or password.
 */
export function checkBaseUrlOption(value: string | undefined): void {
  if (value === undefined) return;
  // The pattern and format base_url's schema gives (config-schema.ts), plus a host.
  if (!/^https?:\/\/[^\s/?#]+[^?#]*$/.test(value) || !uri(value)) throw new UsageError(`--base-url must be an absolute http(s) URL without a query or fragment, got \`${displayUrl(value)}\``);
  const problem = checkPublishedUrl(value, true);
  if (problem?.kind === 'credentials') throw new UsageError(`--base-url \`${displayUrl(value)}\` carries a user name or password, which every card would publish; give the URL without them`);
  if (problem) throw new UsageError(`--base-url \`${value}\` uses plain \`http:\` to another machine; cards are public, so give an \`https:\` URL (\`http:\` only on localhost)`);
}
