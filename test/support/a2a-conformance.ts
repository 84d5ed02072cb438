// Checks A2A v1.0 agent cards two independent ways: the published JSON Schema
// (types and unknown keys, but no `required`) and the proto's REQUIRED fields.
// Both reference files are read at run time from ../shared/reference/a2a/,
// which CI checks out beside the repository; they must not be copied in.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

type JsonObject = Record<string, unknown>;

interface ProtoField {
  readonly name: string;
  readonly jsonName: string;
  readonly type: string;
  readonly label: 'single' | 'repeated' | 'map';
  readonly required: boolean;
  readonly oneof: string | undefined;
}

type ProtoIndex = ReadonlyMap<string, readonly ProtoField[]>;

// Resolved from this file, not the cwd, so the helper works from any working directory.
const REFERENCE_DIR = new URL('../../../shared/reference/a2a/', import.meta.url);
// The bundle has no $id; one is needed so the retargeted `#/definitions/...` refs resolve.
const SCHEMA_ID = 'https://a2a-protocol.org/v1.0.1/spec/a2a.json';
const CARD_MESSAGE = 'AgentCard';
// Open-ended in the proto, but these are the only bindings the spec defines.
const PROTOCOL_BINDINGS: ReadonlySet<string> = new Set(['JSONRPC', 'GRPC', 'HTTP+JSON']);
const PROTOCOL_VERSION = '1.0';

let cachedValidator: ValidateFunction | undefined;
let cachedProto: ProtoIndex | undefined;

/** Lists every way `card` departs from A2A v1.0, each prefixed with a JSON pointer (URI fragment form); empty means conforming. */
export function checkA2aCard(card: unknown): string[] {
  return [...schemaProblems(card), ...requiredProblems(card), ...v1Problems(card)];
}

/** Throws an Error listing every problem `checkA2aCard` finds, for use inside tests. */
export function expectValidA2aCard(card: unknown, label = 'agent card'): void {
  const problems = checkA2aCard(card);
  if (problems.length === 0) return;
  const list = problems.map((problem) => `  - ${problem}`).join('\n');
  throw new Error(`${label} is not a conforming A2A v1.0 card (${problems.length} problems):\n${list}`);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function problem(pointer: string, message: string): string {
  const fragment = pointer.split('/').map((segment) => encodeURIComponent(segment)).join('/');
  return `#${fragment}: ${message}`;
}

function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function readReference(file: string): string {
  return readFileSync(new URL(file, REFERENCE_DIR), 'utf8');
}

// ---------------------------------------------------------------- JSON Schema

function schemaProblems(card: unknown): string[] {
  const validate = cardValidator();
  if (validate(card)) return [];
  return (validate.errors ?? []).map(describeSchemaError);
}

function describeSchemaError(error: ErrorObject): string {
  // Point at the offending key itself rather than at the object that holds it.
  const extra: unknown = error.keyword === 'additionalProperties' ? error.params['additionalProperty'] : undefined;
  const pointer = typeof extra === 'string' ? childPointer(error.instancePath, extra) : error.instancePath;
  return problem(pointer, `${error.message ?? error.keyword} [schema]`);
}

function cardValidator(): ValidateFunction {
  cachedValidator ??= compileCardValidator();
  return cachedValidator;
}

function compileCardValidator(): ValidateFunction {
  const bundle: unknown = JSON.parse(readReference('a2a.json'));
  if (!isObject(bundle) || !isObject(bundle['definitions'])) throw new Error('a2a.json has no definitions');
  const definitions = bundle['definitions'];
  const pointers = definitionPointers(definitions);
  const retarget = (ref: string): string => retargetRef(ref, pointers);
  const fixed = Object.fromEntries(
    Object.entries(definitions).map(([key, definition]) => [key, repairSchema(definition, retarget)]),
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...bundle, $id: SCHEMA_ID, definitions: fixed });
  return ajv.compile({ $ref: `${SCHEMA_ID}${lookupPointer(pointers, CARD_MESSAGE)}` });
}

// Titles are the CamelCase type names with spaces inserted ("Authorization CodeO Auth
// Flow"), so removing the spaces recovers the name each broken $ref file is named after.
function definitionPointers(definitions: JsonObject): Map<string, string> {
  const pointers = new Map<string, string>();
  for (const [key, definition] of Object.entries(definitions)) {
    const title = isObject(definition) && typeof definition['title'] === 'string' ? definition['title'] : key;
    pointers.set(title.replaceAll(' ', ''), `#/definitions/${encodeURIComponent(key)}`);
  }
  return pointers;
}

function lookupPointer(pointers: ReadonlyMap<string, string>, typeName: string): string {
  const pointer = pointers.get(typeName);
  if (pointer === undefined) throw new Error(`a2a.json has no definition titled like ${typeName}`);
  return pointer;
}

// Refs look like "lf.a2a.v1.AgentCapabilities.jsonschema.json": files that were never published.
function retargetRef(ref: string, pointers: ReadonlyMap<string, string>): string {
  if (ref.startsWith('#')) return ref;
  const typeName = ref.replace(/\.jsonschema\.json$/, '').split('.').pop() ?? ref;
  return lookupPointer(pointers, typeName);
}

// Drops the per-definition $schema (Ajv would treat each as a separate dialect root).
function repairSchema(node: unknown, retarget: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => repairSchema(item, retarget));
  if (!isObject(node)) return node;
  const repaired: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    repaired[key] = key === '$ref' && typeof value === 'string' ? retarget(value) : repairSchema(value, retarget);
  }
  return repaired;
}

// ------------------------------------------------------------ proto REQUIRED

function requiredProblems(card: unknown): string[] {
  const problems: string[] = [];
  checkMessage(card, CARD_MESSAGE, '', protoIndex(), problems);
  return problems;
}

function checkMessage(value: unknown, type: string, pointer: string, proto: ProtoIndex, out: string[]): void {
  const fields = proto.get(type);
  // Wrong-typed values are the schema's to report; only objects can be walked.
  if (fields === undefined || !isObject(value)) return;
  for (const field of fields) {
    const fieldPointer = childPointer(pointer, field.jsonName);
    const fieldValue = value[field.jsonName];
    if (field.required && isMissing(field, fieldValue)) {
      out.push(problem(fieldPointer, `${requiredMessage(field)} [proto ${type}.${field.name}]`));
    }
    if (fieldValue !== undefined) checkChildren(fieldValue, field, fieldPointer, proto, out);
  }
  checkOneofs(value, type, fields, pointer, out);
}

function checkChildren(value: unknown, field: ProtoField, pointer: string, proto: ProtoIndex, out: string[]): void {
  if (!proto.has(field.type)) return;
  if (field.label === 'repeated' && Array.isArray(value)) {
    value.forEach((item, index) => checkMessage(item, field.type, childPointer(pointer, index), proto, out));
  } else if (field.label === 'map' && isObject(value)) {
    for (const [key, item] of Object.entries(value)) checkMessage(item, field.type, childPointer(pointer, key), proto, out);
  } else if (field.label === 'single') {
    checkMessage(value, field.type, pointer, proto, out);
  }
}

function isMissing(field: ProtoField, value: unknown): boolean {
  if (field.label === 'repeated') return !Array.isArray(value) || value.length === 0;
  if (field.label === 'map') return !isObject(value);
  if (field.type === 'string') return typeof value !== 'string' || value === '';
  return value === undefined || value === null;
}

function requiredMessage(field: ProtoField): string {
  if (field.label === 'repeated') return 'REQUIRED list must be a non-empty array';
  if (field.label === 'map') return 'REQUIRED map must be present';
  if (field.type === 'string') return 'REQUIRED string must be present and non-empty';
  return 'REQUIRED field must be present';
}

// ProtoJSON rejects two members of one oneof; a message that is nothing but a oneof
// (SecurityScheme, OAuthFlows) is a tagged union, so setting no member is meaningless too.
function checkOneofs(value: JsonObject, type: string, fields: readonly ProtoField[], pointer: string, out: string[]): void {
  for (const oneof of new Set(fields.flatMap((field) => (field.oneof === undefined ? [] : [field.oneof])))) {
    const members = fields.filter((field) => field.oneof === oneof);
    const set = members.filter((field) => value[field.jsonName] !== undefined).map((field) => field.jsonName);
    const isUnion = members.length === fields.length;
    if (set.length > 1 || (isUnion && set.length === 0)) {
      const choices = members.map((field) => field.jsonName).join(', ');
      const found = set.length === 0 ? 'none' : set.join(', ');
      out.push(problem(pointer, `must set exactly one of ${choices}; found ${found} [proto ${type}.${oneof}]`));
    }
  }
}

function protoIndex(): ProtoIndex {
  cachedProto ??= parseProto(readReference('a2a.proto'));
  return cachedProto;
}

// A string literal is kept whole (it may contain "//" or braces); comments are blanked.
const LEXEMES = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
const TOKENS =
  /"(?:[^"\\\n]|\\.)*"|\b(message|enum|oneof|service)\s+(\w+)\s*\{|\{|\}|(?:\b(repeated|optional)\s+)?\b(map\s*<\s*[\w.]+\s*,\s*[\w.]+\s*>|[\w.]+)\s+(\w+)\s*=\s*\d+\s*(?:\[([^\]]*)\])?\s*;/g;

interface Scope {
  readonly kind: string;
  readonly name: string;
}

// Only as much proto3 as a2a.proto uses: messages (possibly nested), oneofs, maps,
// repeated/optional labels and field options. Braces in rpc/option bodies are tracked
// only so that scopes stay balanced.
function parseProto(source: string): ProtoIndex {
  const text = source.replace(LEXEMES, (lexeme) => (lexeme.startsWith('/') ? ' ' : lexeme));
  const messages = new Map<string, ProtoField[]>();
  const scopes: Scope[] = [];
  for (const match of text.matchAll(TOKENS)) {
    const [token, kind, name, label, type, fieldName, options] = match;
    if (kind !== undefined && name !== undefined) {
      scopes.push({ kind, name });
      if (kind === 'message') messages.set(name, []);
    } else if (token === '{') {
      scopes.push({ kind: 'block', name: '' });
    } else if (token === '}') {
      scopes.pop();
    } else if (type !== undefined && fieldName !== undefined) {
      addField(messages, scopes, parseField(label, type, fieldName, options ?? ''));
    }
  }
  return messages;
}

function addField(messages: Map<string, ProtoField[]>, scopes: readonly Scope[], field: Omit<ProtoField, 'oneof'>): void {
  const top = scopes.at(-1);
  const owner = top?.kind === 'oneof' ? scopes.at(-2) : top;
  if (owner?.kind !== 'message') return;
  messages.get(owner.name)?.push({ ...field, oneof: top?.kind === 'oneof' ? top.name : undefined });
}

function parseField(label: string | undefined, type: string, name: string, options: string): Omit<ProtoField, 'oneof'> {
  const map = /^map\s*<\s*[\w.]+\s*,\s*([\w.]+)\s*>$/.exec(type);
  return {
    name,
    jsonName: /\bjson_name\s*=\s*"([^"]*)"/.exec(options)?.[1] ?? lowerCamel(name),
    type: map?.[1] ?? type,
    label: map !== null ? 'map' : label === 'repeated' ? 'repeated' : 'single',
    required: /field_behavior\)\s*=\s*REQUIRED\b/.test(options),
  };
}

// protoc's default json_name: drop each underscore and upper-case the character after it.
function lowerCamel(name: string): string {
  return name.replace(/_(.)/g, (_underscore: string, next: string) => next.toUpperCase());
}

// ------------------------------------------------------------ v1.0 specifics

function v1Problems(card: unknown): string[] {
  if (!isObject(card)) return [];
  const problems: string[] = [];
  if ('url' in card) {
    problems.push(problem('/url', 'top-level url is v0.3; v1.0 puts endpoints in supportedInterfaces[].url [v1.0]'));
  }
  const interfaces = card['supportedInterfaces'];
  if (Array.isArray(interfaces)) {
    interfaces.forEach((entry, index) => problems.push(...interfaceProblems(entry, childPointer('/supportedInterfaces', index))));
  }
  return problems;
}

// Stricter than the spec, which allows "0.3" interfaces beside "1.0": cards checked here must speak 1.0 only.
function interfaceProblems(entry: unknown, pointer: string): string[] {
  if (!isObject(entry)) return [];
  const problems: string[] = [];
  const { protocolVersion, protocolBinding } = entry;
  if (protocolVersion !== PROTOCOL_VERSION) {
    problems.push(problem(`${pointer}/protocolVersion`, `must be "${PROTOCOL_VERSION}", got ${JSON.stringify(protocolVersion)} [v1.0]`));
  }
  if (typeof protocolBinding !== 'string' || !PROTOCOL_BINDINGS.has(protocolBinding)) {
    const allowed = [...PROTOCOL_BINDINGS].join(', ');
    problems.push(problem(`${pointer}/protocolBinding`, `must be one of ${allowed}, got ${JSON.stringify(protocolBinding)} [v1.0]`));
  }
  return problems;
}
