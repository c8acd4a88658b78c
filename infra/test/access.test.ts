// Who may assume which role and do what with it: each statement is pinned whole, so a widened action or resource
// fails here before it reaches an account.
import { describe, expect, it } from 'vitest';
import { only, render, synthStack, type Statement } from './helpers.ts';

const { template } = synthStack();
const B = `${only(template, 'AWS::S3::Bucket', 'Storage').id}.Arn`;
const provider = only(template, 'AWS::IAM::OIDCProvider', 'Access');
const store = only(template, 'AWS::CloudFront::KeyValueStore', 'Edge');

function role(prefix: string) {
  const r = only(template, 'AWS::IAM::Role', prefix);
  const trust = (render(r.props.AssumeRolePolicyDocument) as { Statement: Statement[] }).Statement;
  const policies = r.props.Policies as { PolicyDocument: { Statement: unknown[] } }[];
  const statements = policies.flatMap((p) => render(p.PolicyDocument.Statement) as Statement[]);
  return { trust, statements, managed: r.props.ManagedPolicyArns };
}

/** Every (action, resource) pair a role is allowed, as `action on resource` strings. */
function grants(statements: Statement[]): string[] {
  const out: string[] = [];
  for (const s of statements) {
    expect(s.Effect).toBe('Allow');
    for (const a of [s.Action].flat()) for (const r of [s.Resource].flat()) out.push(`${a} on ${String(r)}`);
  }
  return out.sort();
}

const refresh = role('AccessRefreshRole');
const backup = role('AccessBackupRole');
const restore = role('AccessRestoreRole');
const GITHUB_TRUST = [
  {
    Effect: 'Allow',
    Action: 'sts:AssumeRoleWithWebIdentity',
    Principal: { Federated: `\${${provider.id}}` },
    Condition: {
      StringEquals: {
        'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
        'token.actions.githubusercontent.com:sub': 'repo:${GitHubRepository}:ref:refs/heads/main',
      },
    },
  },
];

describe('GitHub OIDC', () => {
  it("trusts GitHub's token issuer for the STS audience", () => {
    expect(provider.props).toEqual({
      Url: 'https://token.actions.githubusercontent.com',
      ClientIdList: ['sts.amazonaws.com'],
    });
  });

  it("lets only this repository's main-branch workflows assume the refresh and backup roles (sub pinned exactly, no wildcard)", () => {
    expect(refresh.trust).toEqual(GITHUB_TRUST);
    expect(backup.trust).toEqual(GITHUB_TRUST);
  });

  it('reuses an existing provider of the account when told to, instead of creating a second one', () => {
    const { template: reused } = synthStack({ useExistingOidcProvider: true });
    expect(Object.keys(reused.findResources('AWS::IAM::OIDCProvider'))).toEqual([]);
    const trust = render(only(reused, 'AWS::IAM::Role', 'AccessRefreshRole').props.AssumeRolePolicyDocument) as {
      Statement: Statement[];
    };
    expect(trust.Statement[0]?.Principal).toEqual({
      Federated: 'arn:${AWS::Partition}:iam::${AWS::AccountId}:oidc-provider/token.actions.githubusercontent.com',
    });
  });

  it('no role carries a managed policy', () => {
    for (const r of [refresh, backup, restore]) expect(r.managed).toBeUndefined();
  });
});

describe('refresh role', () => {
  it('publishes api/, keeps its state, lock and manifest keys, lists the bucket without a prefix condition, writes the edge store and puts one metric', () => {
    const edgeStore = ['DescribeKeyValueStore', 'ListKeys', 'UpdateKeys'].map(
      (a) => `cloudfront-keyvaluestore:${a} on ${store.id}.Arn`,
    );
    const state = [
      'state/state.json',
      'state/state.json.last-good',
      'state/run.lock',
      'state/publish-manifest.json',
      'state/corrupt/*',
    ];
    expect(grants(refresh.statements)).toEqual(
      [
        `s3:ListBucket on ${B}`,
        ...['GetObject', 'PutObject', 'DeleteObject'].map((a) => `s3:${a} on ${B}/api/*`),
        ...state.flatMap((k) => [`s3:GetObject on ${B}/${k}`, `s3:PutObject on ${B}/${k}`]),
        ...edgeStore,
        'cloudwatch:PutMetricData on *',
      ].sort(),
    );
  });

  it('lists without any condition (a prefix condition turns a missing key into 403)', () => {
    const listing = refresh.statements.find((s) => s.Action === 's3:ListBucket');
    expect(listing?.Condition).toBeUndefined();
  });

  it("may put metrics only in the API's namespace", () => {
    const metric = refresh.statements.find((s) => s.Action === 'cloudwatch:PutMetricData');
    expect(metric?.Condition).toEqual({ StringEquals: { 'cloudwatch:namespace': 'ResetStatusApi' } });
  });

  it('cannot read or write backups', () => {
    expect(grants(refresh.statements).filter((g) => g.includes('/backups/'))).toEqual([]);
  });
});

describe('backup role', () => {
  it('reads the live state and writes and reads snapshots; it can neither write the state nor touch api/', () => {
    expect(grants(backup.statements)).toEqual(
      [
        `s3:ListBucket on ${B}`,
        `s3:GetObject on ${B}/state/state.json`,
        `s3:GetObject on ${B}/backups/*`,
        `s3:PutObject on ${B}/backups/*`,
      ].sort(),
    );
  });
});

describe('restore role', () => {
  it("is assumed by the account's own administrators, never by a workflow token", () => {
    expect(restore.trust).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { AWS: 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' },
      },
    ]);
  });

  it('reads snapshots and writes the live state, keeping the replaced state under backups/', () => {
    expect(grants(restore.statements)).toEqual(
      [
        `s3:ListBucket on ${B}`,
        `s3:GetObject on ${B}/backups/*`,
        `s3:GetObject on ${B}/state/state.json`,
        `s3:PutObject on ${B}/state/state.json`,
        `s3:PutObject on ${B}/backups/replaced-state/*`,
      ].sort(),
    );
  });

  it('is the only role that can both read a backup and write the live state', () => {
    for (const r of [refresh, backup, restore]) {
      const g = grants(r.statements);
      const both =
        g.includes(`s3:GetObject on ${B}/backups/*`) &&
        g.some((x) => x.startsWith('s3:PutObject') && (x.includes('/state/') || x.includes('/api/')));
      expect(both).toBe(r === restore);
    }
  });
});
