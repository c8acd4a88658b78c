// Every cdk-nag (AwsSolutions) finding this stack accepts, each with the reason it is accepted, in one place for
// review. infra/test/template.test.ts fails on any finding not listed here and on any reason left empty.
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Access } from './access.ts';
import type { Edge } from './edge.ts';
import type { Storage } from './storage.ts';
import { API_PREFIX, BACKUP_PREFIX, CORRUPT_PREFIX, REPLACED_STATE_PREFIX } from './layout.ts';

const ack = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

export function acknowledgeFindings(stack: Stack, parts: { storage: Storage; edge: Edge; access: Access }): void {
  const { storage, edge, access } = parts;
  const bucketArn = `<${stack.getLogicalId(storage.bucket.node.defaultChild as CfnElement)}.Arn>`;
  const objects = (prefix: string) => `AwsSolutions-IAM5[Resource::${bucketArn}/${prefix}*]`;

  ack(
    storage.bucket,
    'AwsSolutions-S1',
    'Only CloudFront (through origin access control) and three OIDC roles reach the bucket; their API calls are in CloudTrail, and server access logs of a public static API would mostly record CloudFront fetching documents anyone may read.',
  );

  const dist = edge.distribution;
  ack(dist, 'AwsSolutions-CFR1', 'A public API for users in every country; there is nothing to restrict by geography.');
  ack(
    dist,
    'AwsSolutions-CFR2',
    'No WAF: the origin is static objects behind a cache, the viewer-request function answers every malformed request itself, and nothing per request reaches compute; a web ACL would cost more than the API.',
  );
  ack(
    dist,
    'AwsSolutions-CFR3',
    'No access logs: the API serves the same public documents to everyone and keeps no per-user data; CloudFront metrics cover traffic and errors. Enable standard logging if abuse needs investigating.',
  );
  ack(
    dist,
    'AwsSolutions-CFR4',
    'Without the DomainName and CertificateArn parameters the distribution uses the default *.cloudfront.net certificate, whose minimum TLS version cannot be set; with them it requires TLSv1.2_2021 (infra/lib/edge.ts, docs/deploy.md "A custom domain").',
  );

  ack(
    access.refreshRole,
    objects(API_PREFIX),
    'The refresh publishes and removes documents anywhere under api/ (one per endpoint, language, event and variant); the CDN only ever reads that prefix.',
  );
  ack(
    access.refreshRole,
    objects(CORRUPT_PREFIX),
    'An unusable state object is set aside under state/corrupt/ with a name derived from its ETag, which is not known in advance.',
  );
  ack(
    access.refreshRole,
    'AwsSolutions-IAM5[Resource::*]',
    "cloudwatch:PutMetricData supports no resource-level permission; the statement is limited to the API's namespace by the cloudwatch:namespace condition.",
  );
  for (const role of [access.backupRole, access.restoreRole]) {
    ack(
      role,
      objects(BACKUP_PREFIX),
      'Snapshots are named by their creation time under backups/; the bucket policy makes every object there write-once (If-None-Match required, deletes denied).',
    );
  }
  ack(
    access.restoreRole,
    objects(REPLACED_STATE_PREFIX),
    'A restore keeps the state it replaces under a name derived from the backup id and the replaced ETag; write-once like every backup object.',
  );
}
