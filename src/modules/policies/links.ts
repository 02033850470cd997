import type { PolicyKind } from '../../contract/policies.ts';

/** Where a policy is read, absolute: the agent protocols' links. */
export const policyUrl = (publicBaseUrl: string, kind: PolicyKind) => `${publicBaseUrl}/policies/${kind}`;
