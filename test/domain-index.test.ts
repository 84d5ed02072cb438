import { describe, expect, it } from 'vitest';
import { domainsByAgent, getDomainsForAgent, type DomainIndex } from '../src/project/project-domain-index.js';

describe('domainsByAgent', () => {
  it('gives every agent the same sorted domains as getDomainsForAgent, in one pass', () => {
    const index: DomainIndex = { 'z-logs': ['a', 'b'], 'a-docs': ['b', 'c'], 'm-empty': [], 'b-costs': ['b'], 'A-upper': ['c'] };
    const byAgent = domainsByAgent(index);
    for (const agent of ['a', 'b', 'c']) expect(byAgent.get(agent)).toEqual(getDomainsForAgent(index, agent));
    expect(byAgent.get('b')).toEqual(['a-docs', 'b-costs', 'z-logs']);
    expect(byAgent.get('c')).toEqual(['A-upper', 'a-docs']);
    expect(byAgent.has('d')).toBe(false);
  });
});
