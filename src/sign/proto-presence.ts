/**
 * How each AgentCard field behaves under Protocol Buffer field presence, from
 * the A2A v1.0 proto (`specification/a2a.proto`): what A2A §8.4.1 needs to
 * drop default values before a card is canonicalized for signing.
 *
 * - `required`: REQUIRED, always kept;
 * - `optional`: the `optional` keyword, kept whenever set, even to a default;
 * - `implicit`: no presence, dropped at its default (`""`, `false`, `0`, `[]`, `{}`);
 * - `message`: a singular message or a oneof member, kept whenever set;
 * - `struct`: `google.protobuf.Struct`, user data kept as it is.
 *
 * `of` names the message type of a message field, a repeated message field or a map's values.
 */
export interface ProtoField {
  presence: 'required' | 'optional' | 'implicit' | 'message' | 'struct';
  of?: string;
  /** A `map<string, of>`: the message type applies to each value. */
  map?: true;
}

const scopes: ProtoField = { presence: 'required' };
const optionalScopes: ProtoField = { presence: 'implicit' };
const text: ProtoField = { presence: 'implicit' };
const required: ProtoField = { presence: 'required' };

/** Message name -> JSON field name -> presence; every message an AgentCard can hold. */
export const CARD_MESSAGES: Readonly<Record<string, Readonly<Record<string, ProtoField>>>> = {
  AgentCard: {
    name: required,
    description: required,
    supportedInterfaces: { presence: 'required', of: 'AgentInterface' },
    provider: { presence: 'message', of: 'AgentProvider' },
    version: required,
    documentationUrl: { presence: 'optional' },
    capabilities: { presence: 'required', of: 'AgentCapabilities' },
    securitySchemes: { presence: 'implicit', of: 'SecurityScheme', map: true },
    securityRequirements: { presence: 'implicit', of: 'SecurityRequirement' },
    defaultInputModes: required,
    defaultOutputModes: required,
    skills: { presence: 'required', of: 'AgentSkill' },
    signatures: { presence: 'implicit', of: 'AgentCardSignature' },
    iconUrl: { presence: 'optional' },
  },
  AgentProvider: { url: required, organization: required },
  AgentCapabilities: {
    streaming: { presence: 'optional' },
    pushNotifications: { presence: 'optional' },
    extensions: { presence: 'implicit', of: 'AgentExtension' },
    extendedAgentCard: { presence: 'optional' },
  },
  AgentExtension: { uri: text, description: text, required: text, params: { presence: 'struct' } },
  AgentSkill: {
    id: required,
    name: required,
    description: required,
    tags: required,
    examples: text,
    inputModes: text,
    outputModes: text,
    securityRequirements: { presence: 'implicit', of: 'SecurityRequirement' },
  },
  AgentInterface: { url: required, protocolBinding: required, tenant: text, protocolVersion: required },
  AgentCardSignature: { protected: required, signature: required, header: { presence: 'struct' } },
  SecurityRequirement: { schemes: { presence: 'implicit', of: 'StringList', map: true } },
  StringList: { list: text },
  SecurityScheme: {
    apiKeySecurityScheme: { presence: 'message', of: 'APIKeySecurityScheme' },
    httpAuthSecurityScheme: { presence: 'message', of: 'HTTPAuthSecurityScheme' },
    oauth2SecurityScheme: { presence: 'message', of: 'OAuth2SecurityScheme' },
    openIdConnectSecurityScheme: { presence: 'message', of: 'OpenIdConnectSecurityScheme' },
    mtlsSecurityScheme: { presence: 'message', of: 'MutualTlsSecurityScheme' },
  },
  APIKeySecurityScheme: { description: text, location: required, name: required },
  HTTPAuthSecurityScheme: { description: text, scheme: required, bearerFormat: text },
  OAuth2SecurityScheme: { description: text, flows: { presence: 'required', of: 'OAuthFlows' }, oauth2MetadataUrl: text },
  OpenIdConnectSecurityScheme: { description: text, openIdConnectUrl: required },
  MutualTlsSecurityScheme: { description: text },
  OAuthFlows: {
    authorizationCode: { presence: 'message', of: 'AuthorizationCodeOAuthFlow' },
    clientCredentials: { presence: 'message', of: 'ClientCredentialsOAuthFlow' },
    implicit: { presence: 'message', of: 'ImplicitOAuthFlow' },
    password: { presence: 'message', of: 'PasswordOAuthFlow' },
    deviceCode: { presence: 'message', of: 'DeviceCodeOAuthFlow' },
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: required, tokenUrl: required, refreshUrl: text, scopes, pkceRequired: text },
  ClientCredentialsOAuthFlow: { tokenUrl: required, refreshUrl: text, scopes },
  ImplicitOAuthFlow: { authorizationUrl: text, refreshUrl: text, scopes: optionalScopes },
  PasswordOAuthFlow: { tokenUrl: text, refreshUrl: text, scopes: optionalScopes },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: required, tokenUrl: required, refreshUrl: text, scopes },
};
