// The one private bucket: public documents under api/ (read by CloudFront alone), the builder's state, lock and
// manifest under state/, and write-once backups under backups/.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { API_PREFIX, BACKUP_PREFIX } from './layout.ts';

/** Old versions of published documents and state are an undo window, not an archive. */
export const NONCURRENT_VERSION_DAYS = 30;
/** A daily backup is kept this long, then expires by lifecycle (the only way one ever goes away). */
export const BACKUP_RETENTION_DAYS = 90;

export class Storage extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      // The state and the backups are the only copy of the history: deleting the stack must not delete them.
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        {
          id: 'expire-old-versions',
          noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS),
          expiredObjectDeleteMarker: true,
        },
        { id: 'expire-backups', prefix: BACKUP_PREFIX, expiration: Duration.days(BACKUP_RETENTION_DAYS) },
      ],
    });
    this.protectBackups();
  }

  /**
   * Backups are write-once for every principal, administrators included: a PutObject (or copy) under backups/ must
   * carry `If-None-Match: *`, which S3 answers with 412 when the key exists, and nobody may delete one. Without this a
   * role able to write backups could replace a snapshot and `backup verify` would pass on the forged copy.
   */
  private protectBackups(): void {
    const backups = this.bucket.arnForObjects(`${BACKUP_PREFIX}*`);
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'BackupsAreWrittenOnlyAsNewObjects',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [backups],
        conditions: { Null: { 's3:if-none-match': 'true' } },
      }),
    );
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'BackupsAreNeverDeleted',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:DeleteObject', 's3:DeleteObjectVersion', 's3:PutObjectVersionTagging', 's3:PutObjectTagging'],
        resources: [backups],
      }),
    );
  }

  /** CloudFront's origin access control may read nothing but the public prefix, whatever else grants it. */
  denyCloudFrontOutsideApi(): void {
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontReadsOnlyThePublicApi',
        effect: iam.Effect.DENY,
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:*'],
        notResources: [this.bucket.arnForObjects(`${API_PREFIX}*`)],
      }),
    );
  }
}
