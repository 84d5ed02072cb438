import { isReservedName } from '../project/check-card.js';

/** A kebab-case slug for a name: `FAFA — the Voice of FAF` -> `fafa-the-voice-of-faf`; empty when nothing is left. */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 64)
    .replace(/^-+|-+$/g, '');
}

/**
 * The slug of an imported agent: from the card's name, else its file name,
 * else `imported-agent`. A name Windows reserves for a device (`CON` -> `con`)
 * would make the build refuse the file (KNO1019), so it gets `-agent` after
 * it, as `knoc new` suggests.
 */
export function agentSlugOf(name: string, fileName: string): string {
  const slug = slugOf(name) || slugOf(fileName) || 'imported-agent';
  return isReservedName(slug) ? `${slug}-agent` : slug;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** A semantic version for a card's version string: kept when it is one, completed (`1.0` -> `1.0.0`, `v2` -> `2.0.0`), else undefined. */
export function semverOf(version: string): string | undefined {
  if (SEMVER.test(version)) return version;
  const short = /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?$/.exec(version.trim());
  if (short) return `${short[1]}.${short[2] ?? 0}.${short[3] ?? 0}`;
  const prefixed = version.trim().replace(/^v/, '');
  return SEMVER.test(prefixed) ? prefixed : undefined;
}
