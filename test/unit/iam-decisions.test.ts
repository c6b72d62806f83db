/**
 * Local IAM keeps its decisions: an S3 object never asked for before is decided as one decided
 * before when the same Resource patterns match it, without evaluating again; one that a different
 * pattern matches (an explicit deny, no allow at all) is evaluated and decided on its own. The
 * decisions come from the policy evaluator on a role written out here.
 */
import { describe, expect, it } from 'vitest';
import { PolicyEvaluator } from '../../local/iam/policy-evaluator.ts';

const role = 'arn:aws:iam::000000000000:role/writer';
const identity = { functionName: 'writer', roleArn: role };
const put = (key: string) => ({ action: 's3:PutObject', resource: `arn:aws:s3:::lake/${key}`, context: {} });

function evaluator() {
  return new PolicyEvaluator({
    identities: { LOCALwriter: identity },
    rolePolicies: {
      [role]: [
        {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::lake/tables/*' },
            { Effect: 'Deny', Action: 's3:PutObject', Resource: 'arn:aws:s3:::lake/tables/secret-?' },
          ],
        },
      ],
    },
    resourcePolicies: {},
    roles: {},
  });
}

describe('IAM decisions kept by the Resource patterns that match', () => {
  it('answers a new object key under the same patterns at once, and evaluates one that other patterns match', async () => {
    const decisions = evaluator();
    expect(await decisions.decide(identity, put('tables/a.parquet'))).toBeNull();

    // Another key the same patterns match: answered at once (a value, not a promise), not evaluated.
    expect(decisions.decide(identity, put('tables/b.parquet'))).toBeNull();
    expect(decisions.counts()).toEqual({ evaluated: 1, kept: 1 });

    // The deny's pattern matches this one too: evaluated, and refused.
    expect(await decisions.decide(identity, put('tables/secret-1'))).toBe(
      'with an explicit deny in an identity-based policy',
    );
    // No allow matches outside tables/: evaluated, and refused.
    expect(await decisions.decide(identity, put('other/a.parquet'))).toBe(
      'because no identity-based policy allows the s3:PutObject action',
    );
    // The deny's pattern takes one character after secret-: secret-12 matches as tables/a.parquet did,
    // and is allowed at once.
    expect(decisions.decide(identity, put('tables/secret-12'))).toBeNull();
    expect(decisions.counts()).toEqual({ evaluated: 3, kept: 2 });
    // As the evaluator decides it when asked first.
    expect(await evaluator().decide(identity, put('tables/secret-12'))).toBeNull();
  });
});
