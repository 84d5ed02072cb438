import type { AgentCard } from './a2a-types.js';

const nonEmpty = (value: unknown) => typeof value === 'string' && value.length > 0;

/**
 * The A2A v1.0 REQUIRED fields a projected card lacks, as dotted paths. The
 * built-in schema already guarantees them; a repository's own spec may not.
 */
export function missingCardFields(card: AgentCard): string[] {
  const missing: string[] = [];
  for (const field of ['name', 'description', 'version'] as const) if (!nonEmpty(card[field])) missing.push(field);
  if (card.supportedInterfaces.length === 0 || !card.supportedInterfaces.every((i) => nonEmpty(i.url))) missing.push('supportedInterfaces');
  if (card.defaultInputModes.length === 0) missing.push('defaultInputModes');
  if (card.defaultOutputModes.length === 0) missing.push('defaultOutputModes');
  if (card.skills.length === 0) missing.push('skills');
  card.skills.forEach((skill, i) => {
    for (const field of ['id', 'name', 'description'] as const) if (!nonEmpty(skill[field])) missing.push(`skills[${i}].${field}`);
    if (skill.tags.length === 0) missing.push(`skills[${i}].tags`);
  });
  return missing;
}

/** A slug that is safe as one path segment: kebab-case, as the built-in schema requires. */
export function isSafeSlug(slug: string | undefined): slug is string {
  return slug !== undefined && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) && slug.length <= 64;
}

/** Names Windows reserves for devices, with or without an extension: a folder named so cannot be created or copied there. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;

/** True when a slug, safe on Unix, names a Windows device (`con`, `nul`, `com1`, `lpt9`, ...). */
export function isReservedName(slug: string): boolean {
  return WINDOWS_DEVICE.test(slug);
}
