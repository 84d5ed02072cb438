import type { Severity } from './diagnostic.js';

/** One permanent diagnostic code: what it means, how it reads, how to fix it. */
export interface CatalogueEntry {
  title: string;
  severity: Severity;
  /** Message template; `{name}` placeholders are filled from the arguments. */
  message: string;
  /** Default fix, also a template; a call site may give a sharper one. */
  hint?: string;
  /** A paragraph for `knoc explain`. */
  explanation: string;
  /** The finding's range holds a secret: code frames hide it. */
  masksSource?: boolean;
}

/**
 * Every code knoc reports, grouped by phase: 1xxx parse, 2xxx schema,
 * 3xxx references and drift, 4xxx projection, 5xxx emit, 6xxx suppressions
 * and baselines, 7xxx import and diff, 8xxx authoring and hosting, 9xxx internal.
 * Codes are permanent once shipped: retire one, never reuse it.
 */
export const catalogue = {
  KNO1001: {
    title: 'YAML syntax error',
    severity: 'error',
    message: '{detail}',
    hint: 'Fix the YAML syntax at this position; indentation and unbalanced quotes or brackets are the usual causes.',
    explanation:
      'The file is not well-formed YAML 1.2, so knoc cannot read it. Nothing else in the file is checked until it parses.',
  },
  KNO1002: {
    title: 'Duplicate key',
    severity: 'error',
    message: 'Duplicate key `{key}` in a mapping, expected each key once.',
    hint: 'Remove or rename one of the two `{key}` keys; YAML keeps only one of them and which one is not obvious.',
    explanation:
      'YAML 1.2 requires mapping keys to be unique. Some parsers silently keep the last value, which hides mistakes, so knoc rejects duplicates.',
  },
  KNO1003: {
    title: 'Document is not a mapping',
    severity: 'error',
    message: 'The document is {found}, expected a mapping of keys such as `$schema`, `id` and `slug`.',
    hint: 'Start the file with `$schema: <name>@<version>` followed by the entity’s keys.',
    explanation: 'Every .kno file holds exactly one entity, written as a YAML mapping at the top level.',
  },
  KNO1004: {
    title: 'More than one YAML document',
    severity: 'error',
    message: 'The file holds more than one YAML document, expected exactly one.',
    hint: 'Split the documents into separate .kno files, one entity each, and remove the `---` separators.',
    explanation: 'A .kno file is one entity. Multi-document streams are rejected so that every entity has its own file, path and digest.',
  },
  KNO1005: {
    title: 'File cannot be read',
    severity: 'error',
    message: 'The file cannot be read: {detail}.',
    hint: 'Check that the path is a regular, readable file.',
    explanation: 'knoc could not read the bytes of a discovered file, for example because of permissions.',
  },
  KNO1006: {
    title: 'Key that is not a name',
    severity: 'error',
    message: 'A mapping key is empty or a collection, expected a plain name such as `title`.',
    hint: 'Write the key as a plain word; YAML complex keys (`? [a, b]`) and null keys (`~:`) have no place in a .kno file.',
    explanation: 'JSON, and so every card and digest knoc produces, only has string keys. A key that is a list, a mapping or null would be silently turned into text, so knoc rejects it.',
  },
  KNO1010: {
    title: 'Alias budget exceeded',
    severity: 'error',
    message: 'The YAML aliases expand past the budget of {limit}, expected a document that does not multiply itself.',
    hint: 'Write the values out instead of repeating `*alias` references; raise `limits.max_aliases` in knoc.config.yaml only if the aliases are really needed.',
    explanation:
      'A handful of anchors whose aliases refer to each other can expand into billions of nodes ("billion laughs"). knoc counts alias expansions while it reads a document and stops at `limits.max_aliases` (default 100), so such a file fails in milliseconds instead of exhausting memory.',
  },
  KNO1011: {
    title: 'File too large',
    severity: 'error',
    message: 'The file is {size}, larger than the limit of {limit}.',
    hint: 'Split the file, or raise `limits.max_file_size` (in bytes) in knoc.config.yaml if such a large entity is intended.',
    explanation:
      'knoc checks each file’s size before reading it and refuses files past `limits.max_file_size` (default 1 MiB, far above any real blueprint), so an enormous file in a pull request cannot exhaust a CI runner’s memory.',
  },
  KNO1012: {
    title: 'Nesting too deep',
    severity: 'error',
    message: 'Mappings and lists are nested deeper than {depth} levels here, expected a flatter document.',
    hint: 'Flatten the structure; raise `limits.max_depth` in knoc.config.yaml only if such depth is really needed.',
    explanation:
      'Deeply nested documents cost stack in every phase that walks them and are never needed for a blueprint. knoc refuses a document nested deeper than `limits.max_depth` (default 64) before it becomes data. `knoc import` reads a card under the same limit: a blueprint carries extension `params` as deep as the card has them, so the build would refuse it.',
  },
  KNO1013: {
    title: 'Unknown YAML tag',
    severity: 'error',
    message: '`{tag}` is not supported, expected plain YAML 1.2 values without tags.',
    hint: 'Remove the tag and write the value as a plain string, number, list or mapping.',
    explanation:
      'knoc reads YAML 1.2 with the core schema only. Tags such as `!!js/function`, `!!binary`, `!!set` or custom `!tags` ask a parser to build special objects; knoc never does, and reports the tag instead of silently turning it into text. A `%YAML 1.1` directive, which would switch such types on, is refused the same way.',
  },
  KNO1014: {
    title: 'Tab in indentation',
    severity: 'error',
    message: 'A tab is used for indentation, expected spaces.',
    hint: 'Indent with spaces (two per level is usual); set your editor to insert spaces in .kno files.',
    explanation: 'YAML forbids tabs in indentation because their width is ambiguous. Tabs inside values and after the indentation are fine.',
  },
  KNO1015: {
    title: 'Invalid UTF-8',
    severity: 'error',
    message: 'The byte {byte} at byte offset {offset} is not valid UTF-8, expected a UTF-8 text file.',
    hint: 'Save the file as UTF-8; the byte usually comes from a Latin-1 or Windows-1252 editor or a pasted binary.',
    explanation:
      'Every .kno file is UTF-8 text. Decoding invalid bytes would silently replace them with U+FFFD and change what is published, so knoc reports the first invalid byte with its line and column instead.',
  },
  KNO1016: {
    title: 'Reserved key',
    severity: 'error',
    message: 'The key `{key}` is reserved, expected an ordinary property name.',
    hint: 'Rename the key; `{key}` names a JavaScript object internal and is never valid in a .kno file.',
    explanation:
      'A key named `__proto__` is harmless in YAML but, carried as data into JavaScript, it can change the prototype of an object that a tool builds from it (prototype pollution). knoc refuses it wherever it appears, in blueprints, domains, specs and knoc.config.yaml.',
  },
  KNO1017: {
    title: 'Character not allowed in YAML',
    severity: 'error',
    message: 'The character {character} is not allowed in a YAML file, expected printable text.',
    hint: 'Remove the character; to put a control character in a value, write it as an escape inside double quotes, such as `"\\t"`.',
    explanation:
      'YAML 1.2 allows only printable characters in a file: no NUL, no other C0 or C1 control character but tab, line feed, carriage return and NEL, no DEL. A raw NUL or terminal escape in a pull request could cut a value short in another tool or rewrite a CI log, so knoc refuses the file at the first such character, before parsing it.',
  },
  KNO1018: {
    title: 'Too many keys in one mapping',
    severity: 'error',
    message: 'This mapping has more than {limit} keys, expected at most {limit}.',
    hint: 'Split the mapping, or raise `limits.max_keys` in knoc.config.yaml if so many keys are really needed.',
    explanation:
      'Checking a mapping for duplicate keys compares each key with the ones before it, so the cost grows with the square of the number of keys: a file of 100,000 keys would hold a build for minutes. knoc counts the keys of every mapping in one linear pass before parsing and refuses a mapping past `limits.max_keys` (default 1000, far above any real blueprint). `knoc import` reads a card under the same limit.',
  },
  KNO1019: {
    title: 'Unsafe file name',
    severity: 'error',
    message: 'The path {detail}, expected a plain name every platform can check out.',
    hint: 'Rename the file or folder: printable UTF-8, no `< > : " | ? * \\`, no Windows device name such as `con` or `aux`, no trailing dot or space, at most 255 bytes a name and 32 folders deep, and not the same as another name but for case.',
    explanation:
      'A source path appears in every report, in CI annotations and in SARIF. A control character or an invalid byte in a name could rewrite a log line or break those tools; a Windows device name, a reserved character, a trailing dot or two names that differ only in case make a repository that cannot be checked out on Windows or macOS, where the two names are one file. knoc reports such a path and does not read it.',
  },
  KNO1020: {
    title: 'No knoc repository',
    severity: 'error',
    message: '`{path}` holds neither a knoc.config.yaml nor a content/ folder, expected the root of a knoc repository.',
    hint: 'Run knoc in the repository’s root folder or pass `--root DIR`; `knoc init` starts a new repository.',
    explanation: 'A build reads content/**/*.kno and knoc.config.yaml under its root. A folder with neither (a mistyped `--root`, or a subfolder of a repository such as content/agent-blueprints/) would build an empty fleet from nothing, so `knoc build`, `knoc check`, `knoc watch` and `knoc serve --watch` stop there, write nothing and make no cache folder. `knoc domains`, `knoc agents` and `knoc diff` stop there too, rather than answer for or compare an empty fleet, and so does `knoc schema`, rather than write schemas that offer no domain where no editor reads them. `knoc import` stops in a folder inside a repository’s content/, where it would nest a second content/ among the sources.',
  },
  KNO1021: {
    title: 'Carriage return without line feed',
    severity: 'error',
    message: 'A line ends with a carriage return alone, expected a line feed (LF) or a carriage return and line feed (CRLF).',
    hint: 'Save the file with LF or CRLF line endings (your editor’s line-ending setting); a carriage return alone is the line ending of classic Mac OS, and a doubled one before a line feed comes from converting line endings twice.',
    explanation:
      'The YAML parser knoc uses breaks lines at LF and CRLF only, so a file whose lines end with a carriage return alone reads as one long line: an empty document when it starts with a comment, or a syntax error at the first key. knoc refuses such a file before parsing it and says why, instead of reporting either.',
  },
  KNO1022: {
    title: 'Source extension in another case',
    severity: 'warning',
    message: 'The file `{name}` is not read: its extension is `{extension}`, expected `.kno` in lower case.',
    hint: 'Rename it to `{renamed}`, or move it out of content/ and specs/ if it is not a source.',
    explanation:
      'knoc reads content/**/*.kno and specs/*.kno, matching the extension in lower case on every file system, so a build reads the same files on Linux, macOS and Windows. A file named `agent.KNO` or `agent.Kno` looks like a source, and on a file system that ignores case it opens as `agent.kno`, but knoc does not read it; instead of leaving it out unseen, knoc names it. Renaming it to `.kno` makes it a source.',
  },
  KNO2001: {
    title: 'Missing `$schema`',
    severity: 'error',
    message: 'The entity has no `$schema`, expected `$schema: <name>@<version>` such as `{example}`.',
    hint: 'Add `$schema: {example}` as the first key.',
    explanation: 'The `$schema` key selects which schema, and which version of it, validates the entity. Without it knoc cannot tell what the file is.',
  },
  KNO2002: {
    title: 'Unknown schema',
    severity: 'error',
    message: 'Unknown schema `{found}`, expected one of {known}.',
    hint: 'Use a known `<name>@<version>`, or add a spec entity for it to specs/.',
    explanation:
      'The `$schema` value names a schema that neither knoc’s built-in specs nor the repository’s specs/ folder defines. Repositories can add or override versions with their own `specs/*.kno` entities. A schema that a spec entity defines but knoc refused is not unknown: selecting it is KNO2031, which names the spec.',
  },
  KNO2003: {
    title: 'Missing required property',
    severity: 'error',
    message: 'Missing required property `{property}` in {where}.',
    hint: 'Add `{property}` to {where}.',
    explanation: 'The schema requires this property. The diagnostic points at the mapping that lacks it.',
  },
  KNO2004: {
    title: 'Unknown property',
    severity: 'error',
    message: 'Unknown property `{property}` in {where}, expected one of {expected}.',
    hint: 'Remove `{property}`, or prefix it with `x-` at the top level to keep private data.',
    explanation:
      'The schema lists every property a block may have, so that a misspelled key is caught rather than silently ignored. Top-level keys starting with `x-` are allowed for private data.',
  },
  KNO2005: {
    title: 'Wrong type',
    severity: 'error',
    message: '{what} is {found}, expected {expected}.',
    explanation: 'The value has a different YAML type than the schema expects, for example a single string where a list is required.',
  },
  KNO2006: {
    title: 'Value not allowed',
    severity: 'error',
    message: '{what} is `{found}`, expected {expected}.',
    explanation: 'The value is not one of the values the schema allows.',
  },
  KNO2007: {
    title: 'Malformed value',
    severity: 'error',
    message: '`{found}` is not a valid {what}.',
    explanation:
      'The value does not have the required form: a ULID, a kebab-case slug, a semantic version, a MIME type, an absolute URL, an entity reference or a boundary that starts with MUST NOT or SHOULD NOT.',
  },
  KNO2008: {
    title: 'Value out of range',
    severity: 'error',
    message: '{what} is {found}, expected {expected}.',
    explanation: 'The number lies outside the range the schema allows, for example a token budget below 1 or a percentage above 1.',
  },
  KNO2009: {
    title: 'Too few or too many items',
    severity: 'error',
    message: '{what} has {found}, expected {expected}.',
    explanation: 'A list or mapping has fewer or more entries than the schema allows, for example an empty `skills` list.',
  },
  KNO2010: {
    title: 'Schema violation',
    severity: 'error',
    message: '{what} {detail}.',
    explanation: 'The value breaks a schema rule that has no more specific code.',
  },
  KNO2020: {
    title: 'Duplicate goal id',
    severity: 'error',
    message: 'Goal id `{id}` is used more than once in this blueprint, expected unique goal ids.',
    hint: 'Rename one of the goals; goal ids identify goals in reports and budgets.',
    explanation: 'Goal ids are kebab-case and unique within a blueprint.',
  },
  KNO2021: {
    title: 'Goal needs exactly one target',
    severity: 'error',
    message: 'Goal `{id}` has {found}, expected exactly one of `target` or `target_query`.',
    hint: 'Keep `target` for a fixed value or `target_query` for a computed one, not both.',
    explanation: 'A goal is measured against either a fixed `target` or a `target_query` that computes it, never both and never neither.',
  },
  KNO2022: {
    title: 'Tenant ownership without possibility',
    severity: 'error',
    message: 'Ownership context is `tenant` but `possibility_slug` is missing, expected the tenant’s possibility slug.',
    hint: 'Add `possibility_slug: <tenant-slug>` under `ownership`, or set `context: platform`.',
    explanation: 'A tenant-owned agent must name the tenant possibility it belongs to.',
  },
  KNO2023: {
    title: 'Duplicate skill id',
    severity: 'error',
    message: 'Skill id `{id}` is used more than once in this blueprint, expected unique skill ids.',
    hint: 'Rename one of the skills; clients select skills by id.',
    explanation: 'Skill ids are unique within an agent card, and pricing keys refer to them.',
  },
  KNO2024: {
    title: 'Extension knoc writes itself',
    severity: 'error',
    message: 'Extension `{uri}` is {owner}, expected an extension that knoc does not write itself.',
    hint: 'Remove this entry: knoc writes the provenance and fleet extensions itself, and builds the service-class and settlement extensions from `persona.service_class` and `a2a_projection.settlement`.',
    explanation:
      'knoc writes four extensions on cards: service-class (from `persona.service_class`), settlement (from `a2a_projection.settlement`), its provenance extension (the blueprint’s ULID and digest, on every card) and its fleet extension (on the fleet card). A client looks an extension up by its URI and reads one entry, so a declared copy would forge the provenance or contradict the declared class or prices, depending on which entry it reads first. URIs are compared as a URL parser reads them, so a change of case in the scheme or host is the same URI.',
  },
  KNO2025: {
    title: 'Duplicate extension URI',
    severity: 'error',
    message: 'Extension `{uri}` is declared more than once in `a2a_projection.extensions`, expected each URI once.',
    hint: 'Merge the entries into one: clients look an extension up by its URI and read only one of them.',
    explanation:
      'An extension is identified by its URI, and A2A clients find the one they support by that URI. With two entries for one URI, which `params` and which `required` apply depends on the client, so the card is ambiguous; knoc refuses it rather than publish it. URIs are compared as a URL parser reads them, so a change of case in the scheme or host is the same URI.',
  },
  KNO2030: {
    title: 'Invalid spec entity',
    severity: 'error',
    message: 'The spec entity is invalid: {detail}.',
    hint: 'A spec entity needs `spec.name`, `spec.version` and a JSON Schema 2020-12 under `spec.schema`.',
    explanation: 'Files in specs/ define schemas. They are validated before any entity that uses them, and a broken one is reported here: for example one that is not a JSON Schema, one whose `$schema` names another dialect (knoc compiles specs as JSON Schema 2020-12, the only dialect it holds, so a draft-07 or 2019-09 schema would be read by rules it was not written for), one with a `format` knoc does not check (knoc asserts formats, so it refuses one it cannot check rather than let every string through), one with a `$ref` that resolves to nothing in the spec (knoc never fetches a schema from the network or from another file), or one whose `$ref` leads back to the same schema without descending into the data, so that validating against it would never end.',
  },
  KNO2031: {
    title: 'Schema cannot be used',
    severity: 'error',
    message: 'Schema `{found}` is defined in `{spec}` but does not compile, so this entity cannot be validated.',
    hint: 'Fix the spec entity (its own {cause} finding says how); this entity is checked again once it compiles.',
    explanation: 'A spec in specs/ defines this schema, but knoc refused the spec, so the schema cannot be used: for example because the spec has no `spec.schema` or one that is not a JSON Schema, or a `$ref` that resolves to nothing in the spec or leads back to the same schema without descending into the data (KNO2030), a pattern that cannot run in linear time (KNO2083) or more subschemas than knoc compiles (KNO2084); or ajv could not compile it. The spec’s own finding, whose code the hint names, says why and where. Entities that select the schema stay unvalidated, and so unpublished, until the spec is fixed: the schema is not unknown (KNO2002), only unusable. A refused spec in specs/ that has the `name@version` of a built-in one still overrides it, so the built-in schema is not used in its place.',
  },
  KNO2040: {
    title: 'Invalid configuration',
    severity: 'error',
    message: '{detail}',
    hint: 'See the `knoc.config.yaml` section of the README for the allowed settings.',
    explanation: 'knoc.config.yaml has its own schema; an unknown or mistyped setting is reported rather than ignored.',
  },
  KNO2050: {
    title: 'Blueprint without goals',
    severity: 'warning',
    message: 'Blueprint `{slug}` declares no goals, expected at least one entry in `persona.goals`.',
    hint: 'Add a goal with an `id`, a `description` and a `target`, so the agent’s success can be measured.',
    explanation: 'Goals say what an agent is for and how to tell that it works. A blueprint without them cannot be evaluated. Turn this off with `rules: { KNO2050: off }` in knoc.config.yaml.',
  },
  KNO2051: {
    title: 'Skill without examples',
    severity: 'warning',
    message: 'Skill `{id}` has no examples, expected at least one entry in `examples`.',
    hint: 'Add `examples: ["<a request this skill handles>"]`; clients show them to people choosing an agent.',
    explanation: 'A2A clients and registries show skill examples to help people and agents choose a skill. Turn this off with `rules: { KNO2051: off }` in knoc.config.yaml.',
  },
  KNO2080: {
    title: 'URL unsafe to publish',
    severity: 'error',
    message: 'URL `{url}` uses {found}, expected an `https:` URL (or `http:` on localhost).',
    hint: 'Use the `https://` address; `javascript:`, `data:` and `file:` URLs are never published.',
    explanation:
      'Cards and pages are served to the public, and every URL in them is followed by clients and people. knoc publishes `https:` URLs, and `http:` only for `localhost`, `127.0.0.1` and `[::1]`; a `javascript:`, `data:`, `file:` or plain-http URL to another host is refused. Extension URIs and gRPC endpoints are identifiers, so only schemes that run code or read files are refused there.',
  },
  KNO2081: {
    title: 'URL with credentials',
    severity: 'error',
    message: 'URL `{url}` carries a user name or password, expected a URL without credentials.',
    hint: 'Remove the `user:password@` part and rotate the password: it would be published in the card.',
    explanation: 'A URL of the form `https://user:password@host/` publishes the credentials to everyone who reads the card or the page. knoc refuses it and never prints the credentials in its report.',
  },
  KNO2082: {
    title: 'Credential in a published value',
    severity: 'error',
    message: 'The value looks like {kind} (`{masked}`), expected no credentials in `a2a_projection`, which is published.',
    hint: 'Remove the value and rotate the credential; declare how clients authenticate under `security_schemes` instead of embedding a secret.',
    explanation:
      'Everything under `a2a_projection` ends up in a public agent card. knoc looks for private-key blocks, bearer tokens, cloud and chat access keys (AWS, GitHub, Slack, Google, Stripe), JSON Web Tokens, `password: …`-style values and random-looking values of keys such as `password` or `token`, and refuses them. The report shows only the first characters, and the code frame hides the value, so the secret is not copied into CI logs.',
    masksSource: true,
  },  KNO2083: {
    title: 'Pattern that cannot run in linear time',
    severity: 'error',
    message: 'The pattern `{pattern}` cannot run on knoc’s linear-time engine: {reason}.',
    hint: 'Rewrite the pattern without lookahead, lookbehind or backreferences (and with repetition counts up to 1000); most can be written as plain alternatives and classes.',
    explanation:
      'A regular expression in a repository’s own specs/ (a `pattern`, a `patternProperties` key, a pattern under `propertyNames`) is code that a pull request can change, and a backtracking engine can take centuries on one string (`^(a+)+$` against 30 `a`s and a `!`). knoc runs such patterns on RE2, whose time is linear in the input whatever the pattern, as Google’s and Cloudflare’s services do for patterns they do not control. RE2 leaves out the features that need backtracking; a pattern that uses them is reported here, and its spec is not used. Patterns in knoc’s built-in specs run natively.',
  },  KNO2084: {
    title: 'Schema too large to compile',
    severity: 'error',
    message: 'The schema has more than {limit} subschemas, expected at most {limit}.',
    hint: 'Split the spec, or describe the values with fewer alternatives (an `enum` instead of an `anyOf` of constants, one `pattern` instead of many).',
    explanation:
      'knoc compiles a repository’s own specs/ into validation code, and the time that takes grows faster than the schema: a schema of 5,000 patterns under one `allOf` takes half a minute to compile. A schema with more than 1000 objects (subschemas, property definitions and the like; knoc’s largest built-in spec has under 200) is refused, so a pull request cannot stall a build with one.',
  },


  KNO3001: {
    title: 'Unknown perception domain',
    severity: 'error',
    message: 'Unknown perception domain `{slug}`, expected a slug from content/perception-domains/.',
    hint: 'Create content/perception-domains/{slug}.kno or use an existing slug.',
    explanation:
      'Every slug in `persona.perception.domains` must name a perception-domain entity. A typo here would silently drop the agent from the domain index, so it is an error.',
  },
  KNO3002: {
    title: 'Duplicate id',
    severity: 'error',
    message: 'Id `{id}` is already used by {other}, expected every entity to have its own ULID.',
    hint: 'Give one of the entities a fresh ULID (`knoc new` makes one); ids are permanent birth identities.',
    explanation: 'An entity’s `id` is its immutable identity across renames. Two entities with one id make references and provenance ambiguous.',
  },
  KNO3003: {
    title: 'Duplicate slug',
    severity: 'error',
    message: 'Slug `{slug}` is already used by another {kind} in {other}, expected slugs to be unique per kind.',
    hint: 'Rename one of the slugs; cards and indexes are addressed by slug.',
    explanation: 'Slugs name output paths such as dist/agents/<slug>/, so two entities of one kind cannot share a slug.',
  },
  KNO3004: {
    title: 'Domain slug does not match file name',
    severity: 'error',
    message: 'Domain slug `{slug}` differs from the file name `{base}`, expected them to be equal.',
    hint: 'Rename the file to {slug}.kno or set `slug: {base}`.',
    explanation: 'A perception domain is found by its file name, so its slug and base name must agree.',
  },
  KNO3005: {
    title: 'Unresolved reference',
    severity: 'error',
    message: 'Reference `{xri}` does not resolve, expected `kno://<collection>/<slug or id>` naming an existing entity.',
    hint: 'Check the collection ({collections}) and the slug.',
    explanation: 'Every `composes[].xri` and `relationships.*[].xri` must name an entity in the repository.',
  },
  KNO3006: {
    title: 'Pricing for an unknown skill',
    severity: 'error',
    message: 'Pricing key `{key}` names no skill of this blueprint, expected one of {skills}.',
    hint: 'Rename the pricing key to a skill id, or remove it.',
    explanation: 'Settlement pricing is per skill; a key that names no skill would price nothing.',
  },
  KNO3007: {
    title: 'Deprecated domain',
    severity: 'warning',
    message: 'Perception domain `{slug}` is deprecated{replacement}.',
    hint: 'Replace `{slug}` with `{replacedBy}`.',
    explanation: 'The domain is marked `deprecated: true`. Agents should move to its `replaced_by` domain.',
  },
  KNO3008: {
    title: 'Orphan domain',
    severity: 'warning',
    message: 'No agent perceives domain `{slug}`, expected at least one blueprint to list it.',
    hint: 'Add `{slug}` to an agent’s `persona.perception.domains`, or delete the domain.',
    explanation: 'A domain that no agent perceives is usually left over from a rename. A domain marked `deprecated: true` is not reported: agents moving off it is what deprecating it asks for. Configure it with `rules: { KNO3008: off }` in knoc.config.yaml.',
  },
  KNO3009: {
    title: 'Unknown replacement domain',
    severity: 'error',
    message: 'Domain `{slug}` is replaced by `{replacedBy}`, which is not a known perception domain.',
    hint: 'Point `replaced_by` at an existing domain slug.',
    explanation: 'A deprecated domain’s `replaced_by` must name a domain that exists.',
  },
  KNO3010: {
    title: 'Undeclared security scheme',
    severity: 'error',
    message: 'Security requirement names scheme `{name}`, which is not declared in `security_schemes`, expected one of {declared}.',
    hint: 'Declare `{name}` under `a2a_projection.security_schemes`, or fix the name.',
    explanation: 'A requirement can only name schemes the card declares; clients would otherwise not know how to authenticate.',
  },
  KNO3011: {
    title: 'Entity in the wrong folder',
    severity: 'error',
    message: 'This {kind} is in `{found}`, expected it {where}.',
    hint: 'Move the file to {folder}, or fix its `$schema`.',
    explanation:
      'Each kind of entity has its own folder: agent blueprints under content/agent-blueprints/ and perception domains under content/perception-domains/, each also its `kno://` collection, and spec entities (`$schema: spec@…`) in specs/ at the repository root, beside content/, never under it. A file elsewhere is usually a copy-paste slip: a blueprint saved among domains, say, or a spec saved with the content.',
  },
  KNO3012: {
    title: 'Replacement that leads back',
    severity: 'error',
    message: 'Domain `{slug}` is replaced by {path}, expected {expected}.',
    hint: 'Point `replaced_by` at the domain that takes over from `{slug}`, or remove it.',
    explanation:
      'A domain’s `replaced_by` names the domain agents should move to. A domain cannot be replaced by itself, and replacements cannot go round in a circle (`a` replaced by `b`, `b` replaced by `a`): following them never reaches a domain to move to, and the deprecation warnings (KNO3007) would send agents from one to the other. Each domain on the circle is reported at its `replaced_by`, with the others as related locations.',
  },
  KNO4001: {
    title: 'No interface URL',
    severity: 'error',
    message: 'Agent `{slug}` has no interface URL, expected `a2a_projection.interfaces` or a `base_url`.',
    hint: 'Set `base_url` in knoc.config.yaml (or pass `--base-url`), or list `a2a_projection.interfaces`.',
    explanation:
      'A2A v1.0 cards must list at least one supported interface. knoc takes it from `a2a_projection.interfaces` or derives `<base_url>/agents/<slug>`; with neither it reports this rather than emit an invalid card.',
  },
  KNO4002: {
    title: 'No fleet interface URL',
    severity: 'error',
    message: 'The fleet card has no interface URL, expected `base_url` in knoc.config.yaml or `--base-url`.',
    hint: 'Set `base_url: https://agents.example.org` in knoc.config.yaml.',
    explanation: 'The fleet card at /.well-known/agent-card.json is itself an A2A v1.0 card and needs an interface URL.',
  },
  KNO4003: {
    title: 'Card would not be valid A2A',
    severity: 'error',
    message: 'Agent `{slug}` would get a card without {fields}, which A2A v1.0 requires.',
    hint: 'Add the missing fields to the blueprint; a repository spec that overrides `agent-blueprint` must still require them.',
    explanation: 'knoc never publishes a card that breaks A2A v1.0. The built-in schema guarantees the required fields; a repository’s own spec may not, so projection checks them again.',
  },
  KNO4004: {
    title: 'Slug unsafe as a path',
    severity: 'error',
    message: 'Agent slug `{slug}` cannot name an output path, expected kebab-case letters and digits.',
    hint: 'Use a slug such as `drift-sentinel`; slugs become folder names under dist/agents/.',
    explanation: 'Each card is written to dist/agents/<slug>/. A slug with dots, slashes or other characters could escape that folder or collide with another file, so it is refused before any path is built.',
  },
  KNO4005: {
    title: 'Card value of a type A2A does not allow',
    severity: 'error',
    message: 'Agent `{slug}` would get a card whose `{path}` is {found}, expected {expected} as A2A v1.0 requires.',
    hint: 'Write the value as {expected}; a repository spec that overrides `agent-blueprint` should check its type too.',
    explanation:
      'knoc never publishes a card that breaks A2A v1.0. The built-in schema checks the type of every value a card carries; a repository’s own spec may not, and a number, `null` or a mapping where the card holds a string (a mode, a tag, an interface URL), or a string where it holds `true` or `false`, would reach the card as text such as `5` or `[object Object]`, or be dropped. Projection checks them again and publishes no card for the blueprint until they are fixed.',
  },
  KNO4010: {
    title: 'Signing key cannot be read',
    severity: 'error',
    message: 'The signing key `{file}` cannot be read: {detail}.',
    hint: 'Pass the path of a readable private key file to `--sign-key`.',
    explanation: '`knoc build --sign-key FILE` signs every card with the private key in FILE. The file could not be read, so nothing was signed and nothing was written.',
  },
  KNO4011: {
    title: 'Signing key not usable',
    severity: 'error',
    message: 'The signing key `{file}` cannot sign cards: {detail}.',
    hint: 'Use an EC P-256 key (ES256: `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem`) or an Ed25519 key (EdDSA: `openssl genpkey -algorithm ed25519 -out key.pem`), as an unencrypted PEM or a private JWK.',
    explanation: 'knoc signs cards with ES256 (ECDSA over P-256) or EdDSA (Ed25519), chosen from the key, as A2A v1.0 §8.4 describes. Other key types, public keys and encrypted keys are refused, and nothing is written.',
  },
  KNO4012: {
    title: 'Card signed twice for the A2A SDKs',
    severity: 'info',
    message: 'Card `{path}` holds empty values ({pointers}) that a2a-python and @a2a-js/sdk drop before they check a signature, so it carries a second signature over their reading, which does not cover those values.',
    hint: 'Nothing to fix. To have one signature that covers everything, give the empty value content (scopes for a requirement, for instance) or leave it out.',
    explanation: 'A2A v1.0 §8.4.1 drops only Protocol Buffer default values before canonicalizing a card; the official SDKs also drop every empty string, list and object, REQUIRED or not (an open question of the specification). For a card without empty values the two readings agree byte for byte and knoc writes one signature. Otherwise it writes one signature over each reading, with the same header, so verifiers of both kinds accept the card; a verifier that uses the SDK reading cannot tell whether those empty values were changed.',
  },
  KNO4030: {
    title: 'Slug names a Windows device',
    severity: 'error',
    message: 'Agent slug `{slug}` is a name Windows reserves for a device, expected a slug that is a folder name everywhere.',
    hint: 'Choose another slug, such as `{slug}-agent`; `con`, `prn`, `aux`, `nul`, `com1`-`com9` and `lpt1`-`lpt9` cannot be folder names on Windows.',
    explanation:
      'Each card is written to dist/agents/<slug>/. On Windows a folder named after a device (`CON`, `NUL`, `COM1`, `LPT1` and the rest, in any case and with any extension) cannot be created, and copying or checking out the output there fails or writes to the device. knoc refuses such slugs before any path is built. Other unsafe slugs (dots, slashes, capitals, spaces) are refused by the schema or KNO4004, so no two slugs can differ only in case.',
  },
  KNO5001: {
    title: 'Output cannot be written',
    severity: 'error',
    message: 'The output folder cannot be written: {detail}.',
    hint: 'Check permissions and free space; the previous output was left untouched.',
    explanation: 'knoc stages the new output beside the output folder and swaps it in. This reports a failure of that step; the previous output stays as it was. A failure after a small change’s journal was committed is KNO5025 instead.',
  },
  KNO5002: {
    title: 'Output folder not allowed',
    severity: 'error',
    message: 'The output folder `{out}` {reason}.',
    hint: 'Choose an output folder such as `dist` outside content/ and specs/.',
    explanation: 'knoc replaces its output folder as a whole, so it refuses folders that hold sources or the repository itself. It also refuses a folder that is, or lies inside, a symbolic link, since the output would land wherever the link points, and one under a file, which could never be made. Missing parent folders are fine: they are made.',
  },
  KNO5003: {
    title: 'Stale output',
    severity: 'error',
    message: 'Output `{path}` {state}, expected it to match what the sources produce.',
    hint: 'Run `knoc build` and commit or deploy the new output.',
    explanation: '`knoc build --check` compiles in memory and compares with the output folder, for repositories that commit or deploy dist/. Any difference means the published output no longer matches the sources.',
  },
  KNO5004: {
    title: 'Output does not match its manifest',
    severity: 'error',
    message: 'Output `{path}` {state}.',
    hint: 'Rebuild with `knoc build`; if the folder was copied or deployed, copy it again as a whole.',
    explanation: '`knoc verify` recomputes the sha256 and size of every file in the output folder and compares them with manifest.json. A difference means the folder was changed after knoc wrote it, or only partly copied.',
  },
  KNO5005: {
    title: 'Nondeterministic output',
    severity: 'error',
    message: 'Output `{path}` differs between two builds of the same sources.',
    hint: 'This is a bug in knoc or in a spec that injects varying data; please report it with the sources.',
    explanation: '`knoc build --verify-determinism` compiles twice from scratch, without the cache, and compares every byte. Any difference breaks content addressing.',
  },
  KNO5010: {
    title: 'Card signature does not verify',
    severity: 'error',
    message: 'Signature {index} of `{path}` does not verify: {reason}.',
    hint: 'Rebuild with `knoc build --sign-key` and publish the folder as a whole, or check that `--key`/`--jwks` holds the signer’s public key.',
    explanation: '`knoc verify --key FILE` or `--jwks FILE` checks each card’s signatures as A2A v1.0 §8.4.3 describes: the protected header names `alg` and `kid`, the payload is the card without `signatures` and without default values in RFC 8785 canonical JSON, and the signature must match with the public key. A card passes when one of its signatures verifies.',
  },
  KNO5011: {
    title: 'Unsigned card',
    severity: 'error',
    message: '`{path}` has no signature, expected one that the key given to `knoc verify` checks.',
    hint: 'Build with `knoc build --sign-key KEY`, or run `knoc verify` without `--key`/`--jwks` to check the manifest only.',
    explanation: 'With a key, `knoc verify` expects every card to be signed: an unsigned card among signed ones is how a swapped card would look.',
  },
  KNO5012: {
    title: 'Verification key cannot be used',
    severity: 'error',
    message: 'The verification key `{file}` cannot be used: {detail}.',
    hint: 'Pass a PEM public key (or a JWK) with `--key`, or a JWK set `{"keys": [...]}` with `--jwks`.',
    explanation: '`knoc verify` takes public keys from the file given to `--key` or `--jwks`; it never fetches a `jku`. The file could not be read or holds no usable key.',
  },
  KNO5013: {
    title: 'Card cannot be read',
    severity: 'error',
    message: 'Card `{path}` cannot be read as JSON: {detail}.',
    hint: 'Check the path; an agent card is one JSON object.',
    explanation: '`knoc verify` reads every agent card to check its signatures; this one is missing, unreadable or not JSON.',
  },
  KNO5014: {
    title: 'Not an agent card',
    severity: 'error',
    message: '`{path}` is not an agent card: {detail}, expected a JSON object with `name`, `description`, `version`, `capabilities` and `skills`.',
    hint: 'Give agent card files (`agent-card.json`), or the output folder a build wrote to check every card in it.',
    explanation: '`knoc verify CARD.json` checks the signatures of agent cards. Every A2A agent card, in v1.0 and before it, is a JSON object with `name`, `description`, `version`, `capabilities` and `skills`; a JSON file without them, such as manifest.json, an index or any other JSON, is not a card, so there are no card signatures to check in it, and knoc says so instead of counting it as an unsigned card. knoc does not validate the card beyond that: it checks signatures, whatever else the card holds.',
  },
  KNO5020: {
    title: 'Disk full',
    severity: 'error',
    message: 'The output folder `{out}` cannot be written: the disk is full.',
    hint: 'Free some space (or raise the quota) and build again; the previous output and the cache were left as they were.',
    explanation:
      'knoc writes the new output beside the old one and swaps it in only when every file is written. When the disk fills up part way, the partial new tree is removed and the previous output stays complete and in place, so a server or a deploy step never sees half a build. A disk that fills up after a small change’s journal was committed is KNO5025 instead.',
  },
  KNO5021: {
    title: 'Output folder not writable',
    severity: 'error',
    message: 'The output folder `{out}` cannot be written: {reason}.',
    hint: 'Make the output folder and the folder that holds it writable for this user, or choose another one with `--out`; nothing was changed.',
    explanation:
      'Publishing creates a staging folder beside the output folder and renames it into place, so both the output folder and its parent must be writable. On a read-only file system or without permission, knoc changes nothing and reports this once instead of failing file by file. A refusal after a small change’s journal was committed is KNO5025 instead.',
  },
  KNO5022: {
    title: 'Another build is publishing',
    severity: 'error',
    message: 'The output folder `{out}` is being published by another build: {detail}.',
    hint: 'Wait for the other `knoc build` to finish and run again; if no other build is running, delete the `.knoc-lock-*` file beside the output folder.',
    explanation:
      'Two builds that publish the same output folder at once take turns through a lock file beside it, which names the owner’s process id. A build waits up to ten seconds for the other to finish; a lock whose process has died is taken over, so a killed build never blocks the next one.',
  },
  KNO5023: {
    title: 'Output path outside the output folder',
    severity: 'error',
    message: 'An output path would land outside `{out}`: {detail}.',
    hint: 'This is a guard behind the slug checks; report the input that reached it as a bug.',
    explanation:
      'Every path knoc writes is joined under the output folder and checked to stay inside it, as a last guard behind the slug rules (KNO4004, KNO4030). A path that would escape is refused before anything is written.',
  },
  KNO5024: {
    title: 'Recovery file knoc did not write',
    severity: 'error',
    message: 'A file beside the output folder `{out}` has a name knoc keeps for its own but is not knoc’s: {detail}.',
    hint: 'Delete it if no knoc build is running (never commit `.knoc-*` files); nothing was written, moved or removed.',
    explanation:
      'A build killed while publishing leaves a journal (`.knoc-journal-<folder>`) naming the files it had staged (`.knoc-stage-<folder>-…`), and the next build completes it before anything else. knoc follows only a journal that names one of its own stages beside the output folder, a real folder, with plain relative paths in it reached through folders rather than links. Anything else under such a name was not written by a build (it may have come with the repository or a copy of it), and following it could move or delete files elsewhere, so the build stops and leaves it for you to remove. A link under the name of a parked or staged folder is left alone the same way.',
  },
  KNO5025: {
    title: 'Output partly published',
    severity: 'error',
    message: 'The new output was committed to `{out}` but only partly moved into place: {reason}.',
    hint: 'Until the next `knoc build` (or watch’s next rebuild) completes the publish, `{out}/` is incomplete, part new output and part previous, and `knoc verify` reports it; remove the cause (free space, fix permissions) and build again.',
    explanation:
      'A small change is published through a journal: the changed files are staged beside the output folder (`.knoc-stage-<folder>-…`), a journal naming them is committed by rename (`.knoc-journal-<folder>`), and each file is then renamed into place, manifest.json last. Once the journal is committed the previous output can no longer be put back, only completed. When a rename, or a folder it needs, fails after the commit, knoc tries once more at once; when that fails too, the output folder holds some new files and some previous ones, and the journal and its stage stay beside it. The next build, or watch’s next rebuild, completes the journal before anything else, so the folder ends as one complete build. Before the commit the same failures leave the previous output whole (KNO5020, KNO5021, KNO5001).',
  },
  KNO6001: {
    title: 'Malformed suppression',
    severity: 'error',
    message: 'The suppression comment {problem}, expected `# knoc-disable-next-line KNO1234 -- reason`.',
    hint: 'Name one or more codes (`knoc explain` lists them) and give the reason after `--`, for example `# knoc-disable-next-line KNO3008 -- kept for the Q3 migration`.',
    explanation: 'Suppressions need accountability: every `knoc-disable-next-line` comment names the codes it silences and says why. A malformed one silences nothing.',
  },
  KNO6002: {
    title: 'Unused suppression',
    severity: 'warning',
    message: 'The suppression of `{code}` matches no finding on the next line.',
    hint: 'Remove `{code}` from the comment; the problem it silenced is gone.',
    explanation: 'A suppression that no longer silences anything hides nothing today but would hide a new problem tomorrow, so knoc reports it. One in a file that does not parse or fit its schema is not reported: that file was checked no further, so nothing was looked for.',
  },
  KNO6003: {
    title: 'Stale baseline entry',
    severity: 'warning',
    message: 'The baseline entry for `{code}` in `{file}` matches no finding any more.',
    hint: 'Run `knoc check --update-baseline` to drop fixed findings from the baseline.',
    explanation: 'A baseline records findings accepted at one point in time; when a finding is fixed its entry becomes stale and should be removed so the baseline only shrinks. An entry whose finding the run could not look for is not reported, and `--update-baseline` keeps it: one in a file that does not parse or fit its schema, and one of the findings that read other files (such as KNO3007 and KNO3008) while a file in content/ does not parse. Nor are KNO4001 and KNO4002 reported while knoc.config.yaml does not parse; meanwhile `--update-baseline` writes nothing (KNO6004).',
  },
  KNO6004: {
    title: 'Unreadable baseline',
    severity: 'error',
    message: 'The baseline file cannot be used: {detail}.',
    hint: 'Regenerate it with `knoc check --update-baseline`.',
    explanation: 'The baseline is a JSON file written by `knoc check --update-baseline`. It could not be read or does not have the expected shape. An update that cannot write it reports this too and leaves the previous file as it was: one whose path is a source file, and one while knoc.config.yaml does not parse or fit its schema, since the severities its `rules` set are then unknown and findings a rule turns off would be recorded, then called stale (KNO6003) once the config is fixed.',
  },
  KNO7001: {
    title: 'Card is not valid JSON',
    severity: 'error',
    message: 'The card is not valid JSON: {detail}.',
    hint: 'Fix the JSON at this position; an agent card is one JSON object per file.',
    explanation: '`knoc import` reads agent cards as JSON (RFC 8259). A file that does not parse cannot be imported; nothing is written for it, and the other cards of the run are still imported.',
  },
  KNO7002: {
    title: 'Card is not an object',
    severity: 'error',
    message: 'The card is {found}, expected a JSON object with `name`, `description` and `skills`.',
    hint: 'Import the agent card itself, not a list of cards or a document that wraps one.',
    explanation: 'An A2A agent card is a JSON object. A list, a string or a number at the top level is not a card, and neither is an object without any key an agent card of some A2A version has (knoc’s own manifest.json, an index), so nothing is written for it.',
  },
  KNO7003: {
    title: 'Key not carried',
    severity: 'warning',
    message: 'Key `{key}` is not part of an A2A {where}, so the blueprint does not carry it.',
    hint: 'Move what it says into the blueprint by hand (its `purpose`, or an `x-` key at the top level), or drop it.',
    explanation: 'Import maps every key of A2A v1.0 (and v0.3) cards onto the blueprint format. Keys neither version defines, such as `_note` or a pre-0.2 `authentication`, have no place in a valid card, so they are reported and left out.',
  },
  KNO7004: {
    title: 'Mode that is not a MIME type',
    severity: 'warning',
    message: 'Mode `{mode}` is not a MIME type; {action}.',
    hint: 'Check that the modes the blueprint lists are the media types the agent accepts and returns.',
    explanation: 'A2A lists input and output modes as media types such as `text/plain`. Some cards write `text`; import writes the media type it stands for (`text` -> `text/plain`, `json` -> `application/json`) and drops modes it cannot map.',
  },
  KNO7005: {
    title: 'Skill without tags',
    severity: 'warning',
    message: 'Skill `{id}` has no tags, which A2A v1.0 requires; the blueprint tags it `{tag}`.',
    hint: 'Replace `{tag}` with tags that say what the skill is about.',
    explanation: 'Every A2A v1.0 skill needs at least one tag, and so does every blueprint skill. Import derives a placeholder from the skill id so the blueprint builds; the placeholder is rarely what clients should search for.',
  },
  KNO7006: {
    title: 'URL that is not absolute',
    severity: 'warning',
    message: 'URL `{url}` is not absolute, so the blueprint does not carry it; {action}.',
    hint: 'Write the absolute URL (with `https://` and the host) into the blueprint.',
    explanation: 'A card is fetched from one host and used from anywhere, so A2A needs absolute URLs. A relative URL such as `/api/a2a` depends on where the card was served and cannot be carried.',
  },
  KNO7007: {
    title: 'Blueprint already exists',
    severity: 'error',
    message: 'Blueprint `{path}` already exists, so the card is not imported; import never overwrites a file.',
    hint: 'Move or delete the existing file, or import into another folder with `--out`.',
    explanation: '`knoc import` creates new blueprint files only. A file at the target path (from an earlier import, by hand, or from another card of the same run with the same name) is left as it is.',
  },
  KNO7008: {
    title: 'Interface protocol version',
    severity: 'warning',
    message: 'The card declares A2A `{version}` for {what}; {action}.',
    hint: 'Check that the endpoint speaks A2A 1.0 before you publish the rebuilt card.',
    explanation: 'knoc emits A2A v1.0 cards whose interfaces speak protocol version 1.0. An interface that a card declares for another version (a v0.3 card, or a `0.3` entry beside a `1.0` one) is written as version 1.0, or dropped when it only repeats another interface.',
  },
  KNO7009: {
    title: 'Value of the wrong type',
    severity: 'warning',
    message: 'Value `{key}` is {found}, expected {expected}; the blueprint does not carry it.',
    hint: 'Add the value to the blueprint by hand in the expected form.',
    explanation: 'A value whose JSON type differs from what A2A defines (a capability written as a string, a tag that is a number) cannot be carried into a blueprint that would build.',
  },
  KNO7010: {
    title: 'Required field missing',
    severity: 'warning',
    message: 'The card has no {field}; {action}.',
    hint: 'Check what the message says the blueprint has instead, and give the real value there if import’s choice is not right.',
    explanation: 'A2A v1.0 requires a name, a description, a version, at least one skill with an id, a name and a description, and interfaces it can call. When a card lacks one, import writes a placeholder or a default, or leaves the part out, so that the blueprint builds, and says which here.',
  },
  KNO7011: {
    title: 'Signatures not carried',
    severity: 'info',
    message: 'The card’s signatures ({count}) are not carried: a rebuilt card is new bytes, which they no longer sign.',
    hint: 'Sign the built cards again with `knoc build --sign-key`.',
    explanation: 'A card signature covers the card’s exact canonical JSON. The card knoc builds adds its provenance extension and may order fields differently, so an old signature would no longer verify.',
  },
  KNO7012: {
    title: 'More than one OAuth flow',
    severity: 'warning',
    message: 'Security scheme `{scheme}` lists {count} OAuth flows and A2A v1.0 allows one; the blueprint keeps `{kept}` and drops {dropped}.',
    hint: 'Declare another scheme for each other flow the agent accepts, and list it in the security requirements.',
    explanation: 'A2A v0.3 let one OAuth 2 scheme list several flows; in v1.0 `flows` is a oneof, so a scheme has exactly one. Import keeps the first of authorization code, client credentials, device code, implicit and password.',
  },
  KNO7013: {
    title: 'Security scheme not carried',
    severity: 'warning',
    message: 'Security scheme `{scheme}` {problem}, so the blueprint does not carry it.',
    hint: 'Declare the scheme in `a2a_projection.security_schemes` by hand, as one of the v1.0 wrappers.',
    explanation: 'Import converts v1.0 scheme wrappers and v0.3 `type:` schemes (`apiKey`, `http`, `oauth2`, `openIdConnect`, `mutualTLS`). A scheme of another type, or one that lacks a field A2A requires, cannot be carried; requirements that name it are dropped too.',
  },
  KNO7014: {
    title: 'Security requirement not carried',
    severity: 'warning',
    message: 'A security requirement {problem}, so the blueprint does not carry it.',
    hint: 'Write the requirement in `security_requirements` by hand once its scheme is declared.',
    explanation: 'A requirement names declared schemes and the scopes each needs. One that names a scheme the card does not declare (or that import could not carry), or that names none, would not build.',
  },
  KNO7015: {
    title: 'Version that is not semver',
    severity: 'warning',
    message: 'Version `{version}` is not a semantic version; the blueprint has `{written}`.',
    hint: 'Check the version in the blueprint; blueprints use MAJOR.MINOR.PATCH.',
    explanation: 'A2A lets a card’s version be any string, but blueprint versions are semantic versions. Import completes a short version (`1.0` -> `1.0.0`), drops a leading `v`, and otherwise writes `0.1.0`.',
  },
  KNO7016: {
    title: 'Card cannot be read',
    severity: 'error',
    message: 'The card cannot be read: {detail}.',
    hint: 'Check the path; `knoc import` takes card files such as `agent-card.json`.',
    explanation: 'A file named on the command line could not be read, so nothing is imported from it. The other cards of the run are still imported.',
  },
  KNO7017: {
    title: 'Skill id used twice',
    severity: 'warning',
    message: 'Skill id `{id}` is used by an earlier skill too; the blueprint leaves this one out.',
    hint: 'Give the skill its own id and add it to the blueprint by hand.',
    explanation: 'Skill ids are unique within a card, and settlement prices and clients refer to skills by id. A second skill with the same id cannot be told apart from the first.',
  },
  KNO7018: {
    title: 'knoc extension not carried',
    severity: 'warning',
    message: 'Extension `{uri}` {problem}, so the blueprint does not carry it.',
    hint: 'Set the blueprint field knoc builds it from (`persona.service_class` or `a2a_projection.settlement`) by hand, in a form that fits it.',
    explanation: 'knoc writes the service-class, settlement and fleet extensions on cards itself, and a blueprint may not declare them (KNO2024). Import maps the service-class and settlement extensions back to `persona.service_class` and `a2a_projection.settlement` when their params fit those fields; otherwise, and for a fleet card’s fleet extension, it leaves the extension out and says so here, so the blueprint still builds.',
  },
  KNO7019: {
    title: 'Slug already taken',
    severity: 'error',
    message: 'Slug `{slug}` is already used by blueprint `{path}`, so the card is not imported.',
    hint: 'Give one of the two agents another slug: rename the existing blueprint’s `slug`, or change the card’s `name` before importing it.',
    explanation: 'Slugs are unique per kind (KNO3003): they name each agent’s card path. `knoc import` derives the slug from the card’s name and writes nothing when a blueprint of the repository (in any folder under content/) already has it, so an import never leaves a repository that no longer builds.',
  },
  KNO7020: {
    title: 'Acknowledgement that matches nothing',
    severity: 'warning',
    message: 'The acknowledged break `{kind}` for agent `{agent}`{about} matches no breaking change against the base.',
    hint: 'Remove the entry from `acknowledged_breaks` once the break it was written for has landed, or fix its agent, kind, skill or interface.',
    explanation: '`knoc diff` lets a breaking change through when an `acknowledged_breaks` entry in knoc.config.yaml names its agent and kind (and skill or interface, when given). An entry that names no break of this comparison either outlived its break or has a typo; it is reported so acknowledgements do not pile up and silently cover a later break.',
  },
  KNO7021: {
    title: 'Base does not build',
    severity: 'warning',
    message: 'The sources at `{against}` do not build ({detail}); agents without a card there are compared as new.',
    hint: 'Compare against a ref or folder that builds, or check the agents reported as added by hand.',
    explanation: '`knoc diff` compiles the sources at the base like `knoc check` does. A blueprint with an error has no card, so the comparison cannot tell what changed for that agent: it shows up as added, which is never breaking.',
  },
  KNO7022: {
    title: 'Published card cannot be read',
    severity: 'warning',
    message: 'A card the base’s manifest lists cannot be used: {detail}.',
    hint: 'Compare against a complete build (`knoc verify DIR` checks one), or against the sources it was built from.',
    explanation: 'When `--against` names an output folder, `knoc diff` reads the agent cards its manifest.json lists. A card that is missing or not JSON is left out of the comparison, so that agent shows up as added.',
  },
  KNO7023: {
    title: 'Extension URI used twice',
    severity: 'warning',
    message: 'Extension `{uri}` is declared by an earlier entry too; the blueprint leaves this one out.',
    hint: 'If the agent means this entry rather than the first, write its values into the blueprint by hand in place of the first one’s.',
    explanation: 'An extension is identified by its URI, and a blueprint declares each URI once (KNO2025): clients look an extension up by its URI and read one entry. Import keeps the first entry of a URI, the one such a client reads, and leaves out the rest. URIs are compared as a URL parser reads them, so a change of case in the scheme or host is the same URI.',
  },
  KNO7024: {
    title: 'Blueprint folder refused',
    severity: 'error',
    message: 'Blueprints cannot go to `{out}`: {reason}, so no card is imported.',
    hint: 'Replace the link with the folder itself, or import into another folder under content/agent-blueprints/ with `--out`.',
    explanation:
      '`knoc import` writes blueprints for the next build to read, so `--out` must name content/agent-blueprints/ (the default) or a folder under it. Elsewhere the build would not read them (outside content/), would refuse them as an agent in another kind\'s folder (KNO3011) or a path Windows cannot check out (KNO1019), or would refuse to publish at all (a file in the output folder that knoc did not write, KNO5002). When the folder, or a folder on the way to it, is a symbolic link, a blueprint would land wherever the link points, perhaps outside the repository, and the build would not read it (KNO1005). In each case nothing is imported.',
  },
  KNO7025: {
    title: 'Blueprint too large',
    severity: 'error',
    message: 'The blueprint would be {size}, larger than the limit of {limit} the build reads, so the card is not imported.',
    hint: 'This is the card’s longest value: shorten it before importing, or raise `limits.max_file_size` (in bytes) in knoc.config.yaml if such a large blueprint is intended.',
    explanation:
      'The build refuses a file larger than `limits.max_file_size` (default 1 MiB, far above any real blueprint; KNO1011), so `knoc import` does not write such a blueprint: it would leave a repository that no longer builds. A blueprint repeats the card’s name as its title, so a card with a name of megabytes makes a blueprint several times that size. The finding points at the card’s longest value.',
  },
  KNO7026: {
    title: 'URL the build does not publish',
    severity: 'warning',
    message: 'URL `{url}` uses {found}, which the build refuses to publish, so the blueprint does not carry it; {action}.',
    hint: 'Write the `https://` address into the blueprint, if the agent has one.',
    explanation:
      'knoc publishes `https:` URLs, and plain `http:` only for `localhost`, `127.0.0.1` and `[::1]`; another scheme, plain http to another host, or a user name or password in the URL is refused as KNO2080 or KNO2081. A blueprint that carried such a URL from a card would not build, and credentials would end up committed with it, so import leaves the URL out (with the interface, provider or extension it belongs to) and says where it was. Extension URIs and gRPC endpoints are identifiers: there, only schemes that run code or read files, and credentials, are refused.',
  },
  KNO8001: {
    title: 'File already exists',
    severity: 'error',
    message: '`{path}` already exists, so nothing was written; knoc never overwrites a file it scaffolds.',
    hint: 'Choose another slug or folder, or move the existing file away first.',
    explanation: '`knoc init` and `knoc new` only create files. When a file they would write is already there, or a file stands where they would make a folder (`content` as a file), they stop before writing anything, so your work is never replaced and no repository is left half made.',
  },
  KNO8002: {
    title: 'Slug already used',
    severity: 'error',
    message: 'The {kind} slug `{slug}` is already used by `{other}`, expected a new slug.',
    hint: 'Pick another slug, or edit the existing file.',
    explanation: 'Slugs are unique per kind: they name output paths such as dist/agents/<slug>/. `knoc new` refuses a slug that another file already declares, even when that file has another name.',
  },
  KNO8003: {
    title: 'Unknown domain on the command line',
    severity: 'error',
    message: 'Perception domain `{slug}` does not exist, expected a slug from content/perception-domains/.',
    hint: 'Create it first with `knoc new domain {slug}`, or use an existing slug (`knoc domains` lists them).',
    explanation: 'A domain slug given to a command must name a domain in content/perception-domains/. `knoc new agent --domains a,b` checks every domain before it writes the blueprint, so the new file builds at once; `knoc domains <slug>` and `knoc agents --domain <slug>` exit 1 rather than answer "no agents" for a typo. A misspelled slug gets the nearest existing one as a suggestion.',
  },
  KNO8004: {
    title: 'Folder already holds a knoc repository',
    severity: 'error',
    message: '`{path}` already holds {what}, so `knoc init` wrote nothing.',
    hint: 'Add agents and domains with `knoc new agent <slug>` and `knoc new domain <slug>` instead, or run `knoc init` in an empty folder.',
    explanation: '`knoc init` starts a new repository. In a folder that already has blueprints or a knoc.config.yaml it stops before writing, so an existing repository is never mixed with the example files; so it does in a folder inside another repository’s content/, where every file it writes would become one of that repository’s sources.',
  },
  KNO8005: {
    title: 'Not a knoc repository',
    severity: 'error',
    message: '`{path}` holds neither a knoc.config.yaml nor a content/ folder, so `knoc new` wrote nothing.',
    hint: 'Run `knoc init` there first, or point --root at the repository.',
    explanation: '`knoc new` adds a blueprint or a domain to an existing repository. In a folder that has neither a knoc.config.yaml nor a content/ folder (a mistyped --root, or the wrong working directory) the new file would not build, so it stops before writing anything.',
  },
  KNO8006: {
    title: 'Symbolic link in the way',
    severity: 'error',
    message: '`{path}` is a symbolic link, so nothing was written; knoc never writes through a link.',
    hint: 'Replace the link with the file or folder itself, or remove it, then run the command again.',
    explanation:
      '`knoc init`, `knoc new`, `knoc schema` and `--update-baseline` write into the repository: the scaffolded files, the .gitignore, the editor schemas in .knoc/schemas/, the baseline file (knoc-baseline.json, or the one `--baseline` names). When one of those files, or a folder on the way to it, is a symbolic link, a write would land wherever the link points, perhaps outside the repository, so they stop before writing anything. The build does not follow links either: a linked content folder is reported as KNO1005 and not read.',
  },
  KNO8030: {
    title: 'URL that pages cannot link',
    severity: 'warning',
    message: 'URL `{url}` is not an http or https URL, so pages show it as text instead of a link.',
    hint: 'Use an absolute `https://` URL; A2A clients reading the card expect one too.',
    explanation:
      'The human pages knoc writes link a URL from a blueprint only when it is an absolute http(s) URL; anything else is shown as plain text, so that a page can never run or open something unexpected. Under the shipped blueprint schema a provider or documentation URL never gets this far: one with another scheme (`javascript:`, `data:`, `file:`, `ftp:`, `mailto:`) is refused as KNO2080, and a relative one as KNO2007. This warning is for a repository whose own spec in `specs/` lets such a value through, such as a relative path (`docs/watcher`): the card still carries it as written, where clients are likely to reject it.',
  },
  KNO9001: {
    title: 'Internal error',
    severity: 'error',
    message: 'knoc failed unexpectedly: {detail}.',
    hint: 'This is a bug in knoc; please report it with the file that triggered it (set KNOC_DEBUG=1 for a stack trace).',
    explanation: 'An invariant inside knoc broke. The input may be unusual, but this is never the author’s fault. The run exits with code 2 and writes nothing; under `knoc watch` (or `knoc serve --watch`) only that build stops, and the next change builds again.',
  },
} as const satisfies Record<string, CatalogueEntry>;

/** A code knoc can report. */
export type DiagnosticCode = keyof typeof catalogue;

/** Looks up a code, or undefined when it is not in the catalogue. */
export function lookupCode(code: string): CatalogueEntry | undefined {
  return Object.hasOwn(catalogue, code) ? (catalogue as Record<string, CatalogueEntry>)[code] : undefined;
}

/**
 * Parse and schema errors leave an entity unreadable, and a duplicate slug
 * leaves two entities on one output path, so no rule, suppression or baseline
 * may silence them: an entity would vanish from the output unseen, or two
 * would be published as one.
 */
export function isStructural(code: string): boolean {
  const entry = lookupCode(code);
  return entry !== undefined && entry.severity === 'error' && (code.startsWith('KNO1') || code.startsWith('KNO2') || code === 'KNO3003');
}
