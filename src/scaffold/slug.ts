import { isReservedName, isSafeSlug } from '../project/check-card.js';

/** What a good slug looks like, for messages. */
export const SLUG_RULE = 'lowercase letters and digits separated by single hyphens, at most 64 characters, such as `drift-sentinel`';

/** Why `slug` cannot be a slug, or undefined when it can. */
export function slugProblem(slug: string): string | undefined {
  // In any case: the build refuses such a file (KNO1019) or card folder (KNO4030), since Windows cannot check it out.
  if (isReservedName(slug)) return 'it is a name Windows reserves for a device (`con`, `prn`, `aux`, `nul`, `com1`-`com9`, `lpt1`-`lpt9`), which cannot name a file or folder there, so the build would refuse it';
  if (isSafeSlug(slug as string | undefined)) return undefined;
  if (slug === '') return 'it is empty';
  if (/[\\/]/.test(slug)) return 'it is a path; give the slug alone, and knoc new chooses the folder and the file name';
  if (slug.length > 64) return `it is ${slug.length} characters long`;
  if (/[A-Z]/.test(slug)) return /[^A-Za-z0-9-]/.test(slug) ? 'it has uppercase letters, and characters other than letters, digits and hyphens' : 'it has uppercase letters';
  if (/^-|-$/.test(slug)) return 'it starts or ends with a hyphen';
  if (/--/.test(slug)) return 'it has two hyphens in a row';
  if (/\.kno$/.test(slug)) return 'it ends in `.kno`; give the slug alone';
  return 'it has characters other than lowercase letters, digits and hyphens';
}

/** The nearest valid slug to some text (`Drift_Sentinel` -> `drift-sentinel`, `content/agent-blueprints/drift.kno` -> `drift`), or undefined when nothing is left. */
export function slugify(text: string): string | undefined {
  const slug = (text.split(/[\\/]/).filter((part) => part !== '').pop() ?? '')
    .replace(/\.kno$/, '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug === '' ? undefined : slug;
}

/** A title for a slug: `drift-sentinel` -> `Drift Sentinel`. */
export function titleOf(slug: string): string {
  return slug
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}
