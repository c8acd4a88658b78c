// Who may do what: GitHub's OIDC token issuer, and one role per job, each trusted only for this repository's main
// branch and allowed only the keys its job touches. A restore (backup -> live state) is a separate role that no
// workflow can assume.
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  API_PREFIX,
  BACKUP_PREFIX,
  CORRUPT_PREFIX,
  LOCK_KEY,
  MANIFEST_KEY,
  METRIC_NAMESPACE,
  REPLACED_STATE_PREFIX,
  STATE_KEY,
  STATE_LAST_GOOD_KEY,
} from './layout.ts';

export const GITHUB_OIDC_ISSUER = 'token.actions.githubusercontent.com';
export const GITHUB_OIDC_AUDIENCE = 'sts.amazonaws.com';
/** The scheduled jobs run from the default branch only; pull requests, forks and other branches get no role. */
export const TRUSTED_REF = 'refs/heads/main';

export interface AccessProps {
  bucket: s3.IBucket;
  store: cloudfront.IKeyValueStore;
  /** `owner/name` of the repository whose workflows may assume the roles. */
  repository: string;
  /** Use the account's existing GitHub OIDC provider (there can be only one per issuer) instead of creating one. */
  useExistingOidcProvider?: boolean;
}

export class Access extends Construct {
  readonly refreshRole: iam.Role;
  readonly backupRole: iam.Role;
  readonly restoreRole: iam.Role;
  readonly oidcProviderArn: string;

  constructor(scope: Construct, id: string, props: AccessProps) {
    super(scope, id);
    this.oidcProviderArn = props.useExistingOidcProvider
      ? Stack.of(this).formatArn({
          service: 'iam',
          region: '',
          resource: 'oidc-provider',
          resourceName: GITHUB_OIDC_ISSUER,
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
        })
      : new iam.OidcProviderNative(this, 'GitHubOidc', {
          url: `https://${GITHUB_OIDC_ISSUER}`,
          clientIds: [GITHUB_OIDC_AUDIENCE],
        }).oidcProviderArn;
    const principal = new iam.WebIdentityPrincipal(this.oidcProviderArn, {
      StringEquals: {
        [`${GITHUB_OIDC_ISSUER}:aud`]: GITHUB_OIDC_AUDIENCE,
        [`${GITHUB_OIDC_ISSUER}:sub`]: `repo:${props.repository}:ref:${TRUSTED_REF}`,
      },
    });
    const { bucket } = props;
    const objects = (...keys: string[]) => keys.map((k) => bucket.arnForObjects(k));
    const allow = (sid: string, actions: string[], resources: string[]) =>
      new iam.PolicyStatement({ sid, actions, resources });
    // Listing without a prefix condition: with one, reading a missing key (a first run's state, a backup listing)
    // is a 403 instead of the 404 the stores expect.
    const list = allow('ListTheBucket', ['s3:ListBucket'], [bucket.bucketArn]);
    const role = (
      id: string,
      description: string,
      assumedBy: iam.IPrincipal,
      policy: string,
      ...statements: iam.PolicyStatement[]
    ) =>
      new iam.Role(this, id, {
        description,
        assumedBy,
        inlinePolicies: { [policy]: new iam.PolicyDocument({ statements: [list, ...statements] }) },
      });

    this.refreshRole = role(
      'RefreshRole',
      'refresh.yml: publish api/, keep the state, lock and manifest, write the edge store, put the freshness metric',
      principal,
      'refresh',
      allow('PublishTheApi', ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], objects(`${API_PREFIX}*`)),
      allow(
        'StateLockAndManifest',
        ['s3:GetObject', 's3:PutObject'],
        objects(STATE_KEY, STATE_LAST_GOOD_KEY, LOCK_KEY, MANIFEST_KEY, `${CORRUPT_PREFIX}*`),
      ),
      // What builder/publish/kvs-edge-store.ts calls: the ETag, the current keys, one batched update.
      allow(
        'WriteTheEdgeStore',
        [
          'cloudfront-keyvaluestore:DescribeKeyValueStore',
          'cloudfront-keyvaluestore:ListKeys',
          'cloudfront-keyvaluestore:UpdateKeys',
        ],
        [props.store.keyValueStoreArn],
      ),
      // PutMetricData has no resource-level permission; the namespace condition is what limits it.
      new iam.PolicyStatement({
        sid: 'PutTheFreshnessMetric',
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        conditions: { StringEquals: { 'cloudwatch:namespace': METRIC_NAMESPACE } },
      }),
    );

    this.backupRole = role(
      'BackupRole',
      'backup.yml: copy the state into a new snapshot under backups/ and read it back; never the live keys',
      principal,
      'backup',
      allow('ReadTheState', ['s3:GetObject'], objects(STATE_KEY)),
      // The bucket policy refuses a PutObject here without If-None-Match: a snapshot is never replaced.
      allow('WriteAndVerifySnapshots', ['s3:GetObject', 's3:PutObject'], objects(`${BACKUP_PREFIX}*`)),
    );

    // A human operation: assumed with an administrator's own credentials (`aws sts assume-role` or a profile),
    // never by a workflow, since restoring is the one path by which a backup's bytes reach the live state.
    this.restoreRole = role(
      'RestoreRole',
      'manual restore: read a snapshot and write it over the live state (the replaced state is kept under backups/)',
      new iam.AccountRootPrincipal(),
      'restore',
      allow('ReadSnapshots', ['s3:GetObject'], objects(`${BACKUP_PREFIX}*`)),
      allow('ReplaceTheLiveState', ['s3:GetObject', 's3:PutObject'], objects(STATE_KEY)),
      allow('KeepTheReplacedState', ['s3:PutObject'], objects(`${REPLACED_STATE_PREFIX}*`)),
    );
  }
}
