/** Kinds of change that break a consumer of the card: each fails `knoc diff` unless acknowledged. */
export const BREAKING_KINDS = [
  'removed-agent',
  'moved-agent',
  'removed-skill',
  'removed-interface',
  'changed-interface-url',
  'narrowed-input-modes',
  'narrowed-output-modes',
  'added-security-requirement',
  'added-scopes',
  'changed-security-scheme',
  'required-extension',
  'removed-capability',
] as const;

/** Kinds of change no consumer can notice as a loss. */
export const SAFE_KINDS = [
  'added-agent',
  'added-skill',
  'added-interface',
  'widened-input-modes',
  'widened-output-modes',
  'relaxed-security',
  'added-extension',
  'removed-extension',
  'added-capability',
] as const;

export type BreakingKind = (typeof BREAKING_KINDS)[number];
export type SafeKind = (typeof SAFE_KINDS)[number];
export type ChangeKind = BreakingKind | SafeKind;

/** One difference between an agent's card at the base and now. */
export interface CardChange {
  /** The agent's slug now (its slug at the base when it was removed). */
  agent: string;
  kind: ChangeKind;
  breaking: boolean;
  /** One sentence: what changed, identifiers in backticks. */
  message: string;
  /** The skill the change is about, when it is about one. */
  skill?: string;
  /** The interface URL the change is about (the URL at the base when it changed or went away). */
  interface?: string;
  /** The agent's blueprint now, relative to the root; absent for a removed agent. */
  file?: string;
  /** Set when an `acknowledged_breaks` entry lets this break through: the entry's reason. */
  acknowledged?: string;
}

/** True for the kinds that break consumers. */
export function isBreakingKind(kind: ChangeKind): kind is BreakingKind {
  return (BREAKING_KINDS as readonly string[]).includes(kind);
}

/** A change of `kind` for `agent`, marked breaking or safe by its kind. */
export function createChange(agent: string, kind: ChangeKind, message: string, about: { skill?: string; interface?: string } = {}): CardChange {
  return { agent, kind, breaking: isBreakingKind(kind), message, ...(about.skill !== undefined ? { skill: about.skill } : {}), ...(about.interface !== undefined ? { interface: about.interface } : {}) };
}
