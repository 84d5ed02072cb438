/** `--against` names nothing knoc can compare with (an unknown ref, no git repository, an empty folder): a usage error. */
export class AgainstError extends Error {}
