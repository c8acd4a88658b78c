// The production stack, resource by resource: what the template must hold for the API to be private at the origin,
// open at the edge, fresh or honestly unknown, and deployable by a workflow that can do nothing else.
import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CACHE_CONTROL, EXPOSE_HEADERS } from '../../builder/contract.ts';
import { FUNCTION_CODE_PATH } from '../lib/app.ts';
import { METRIC_NAMESPACE, NOT_FOUND_PATH, REFRESH_METRIC } from '../lib/layout.ts';
import { BACKUP_RETENTION_DAYS, NONCURRENT_VERSION_DAYS } from '../lib/storage.ts';
import { CONNECTION_NAME, DISPATCH_RULE_NAME, SCHEDULE_MINUTES } from '../lib/trigger.ts';
import { list, only, render, synthStack, type Statement } from './helpers.ts';
import { PAGE_CSP, PAGE_CSP_HEADER } from '../../builder/render/page-csp.ts';

const { template } = synthStack();
const bucket = only(template, 'AWS::S3::Bucket', 'Storage');
const B = `${bucket.id}.Arn`;
const bucketPolicy = (
  render(only(template, 'AWS::S3::BucketPolicy', 'Storage').props.PolicyDocument) as { Statement: Statement[] }
).Statement;
const distribution = only(template, 'AWS::CloudFront::Distribution', 'Edge');
const dist = distribution.props.DistributionConfig as Record<string, unknown>;
const behavior = dist.DefaultCacheBehavior as Record<string, unknown>;
const fn = only(template, 'AWS::CloudFront::Function', 'EdgeRouter');
const store = only(template, 'AWS::CloudFront::KeyValueStore', 'EdgeStore');

describe('bucket', () => {
  it('blocks all public access, enforces bucket-owner ownership, encrypts and keeps versions', () => {
    expect(bucket.props.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.props.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.props.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    expect(JSON.stringify(bucket.props.BucketEncryption)).toContain('AES256');
    expect(bucket.raw.DeletionPolicy).toBe('Retain');
  });

  it('expires old versions, stale delete markers, incomplete uploads and backups past their retention', () => {
    const rules = (bucket.props.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    const byId = Object.fromEntries(rules.map((r) => [r.Id, r]));
    expect(byId['expire-old-versions']).toMatchObject({
      Status: 'Enabled',
      NoncurrentVersionExpiration: { NoncurrentDays: NONCURRENT_VERSION_DAYS },
      ExpiredObjectDeleteMarker: true,
    });
    expect(byId['expire-backups']).toMatchObject({
      Status: 'Enabled',
      Prefix: 'backups/',
      ExpirationInDays: BACKUP_RETENTION_DAYS,
    });
    expect(byId['abort-incomplete-uploads']).toMatchObject({
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
    });
  });

  it('denies every request that is not TLS', () => {
    const tls = bucketPolicy.find(
      (s) => JSON.stringify(s.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
    );
    expect(tls).toMatchObject({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' } });
    expect(list(tls?.Resource)).toEqual([B, `${B}/*`]);
  });

  it('makes backups write-once for everyone: PutObject without If-None-Match and every delete are denied', () => {
    const put = bucketPolicy.find((s) => s.Sid === 'BackupsAreWrittenOnlyAsNewObjects');
    expect(put).toEqual({
      Sid: 'BackupsAreWrittenOnlyAsNewObjects',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:PutObject',
      Resource: `${B}/backups/*`,
      Condition: { Null: { 's3:if-none-match': 'true' } },
    });
    const del = bucketPolicy.find((s) => s.Sid === 'BackupsAreNeverDeleted');
    expect(del).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Resource: `${B}/backups/*` });
    expect(list(del?.Action)).toEqual(expect.arrayContaining(['s3:DeleteObject', 's3:DeleteObjectVersion']));
    expect(del?.Condition).toBeUndefined();
  });

  it('lets CloudFront (this distribution only) read objects, and denies it everything outside api/', () => {
    const allows = bucketPolicy.filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: `${B}/*`,
        Condition: {
          StringEquals: {
            'AWS:SourceArn': `arn:\${AWS::Partition}:cloudfront::\${AWS::AccountId}:distribution/\${${distribution.id}}`,
          },
        },
      },
    ]);
    expect(bucketPolicy.find((s) => s.Sid === 'CloudFrontReadsOnlyThePublicApi')).toEqual({
      Sid: 'CloudFrontReadsOnlyThePublicApi',
      Effect: 'Deny',
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Action: 's3:*',
      NotResource: `${B}/api/*`,
    });
  });
});

describe('CloudFront', () => {
  it('runs the committed router bundle on cloudfront-js-2.0 with the KeyValueStore, published', () => {
    expect(fn.props.FunctionCode).toBe(readFileSync(FUNCTION_CODE_PATH, 'utf8'));
    expect(fn.props.AutoPublish).toBe(true);
    expect(render(fn.props.FunctionConfig)).toMatchObject({
      Runtime: 'cloudfront-js-2.0',
      KeyValueStoreAssociations: [{ KeyValueStoreARN: `${store.id}.Arn` }],
    });
  });

  it('associates the function with viewer-request on the default behavior, and nothing else', () => {
    expect(render(behavior.FunctionAssociations)).toEqual([
      { EventType: 'viewer-request', FunctionARN: `${fn.id}.FunctionARN` },
    ]);
    expect(behavior.LambdaFunctionAssociations).toBeUndefined();
    expect(dist.CacheBehaviors).toBeUndefined();
  });

  it('reaches the bucket through an origin access control that signs every request', () => {
    const oac = only(template, 'AWS::CloudFront::OriginAccessControl', 'Edge');
    expect(oac.props.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const [origin, ...more] = render(dist.Origins) as Record<string, unknown>[];
    expect(more).toEqual([]);
    expect(origin).toMatchObject({
      DomainName: `${bucket.id}.RegionalDomainName`,
      OriginAccessControlId: `${oac.id}.Id`,
      S3OriginConfig: { OriginAccessIdentity: '' },
    });
  });

  it('allows every method (the function answers 405 in JSON), caches GET/HEAD, redirects to HTTPS, compresses', () => {
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      Compress: true,
      CachedMethods: ['GET', 'HEAD'],
    });
    expect([...(behavior.AllowedMethods as string[])].sort()).toEqual([
      'DELETE',
      'GET',
      'HEAD',
      'OPTIONS',
      'PATCH',
      'POST',
      'PUT',
    ]);
  });

  it('keys the cache on the URI alone', () => {
    const policy = only(template, 'AWS::CloudFront::CachePolicy', 'Edge');
    expect(render(behavior.CachePolicyId)).toBe(`\${${policy.id}}`);
    const config = policy.props.CachePolicyConfig as Record<string, unknown>;
    expect(config.ParametersInCacheKeyAndForwardedToOrigin).toEqual({
      CookiesConfig: { CookieBehavior: 'none' },
      HeadersConfig: { HeaderBehavior: 'none' },
      QueryStringsConfig: { QueryStringBehavior: 'none' },
      EnableAcceptEncodingGzip: true,
      EnableAcceptEncodingBrotli: true,
    });
    expect(config).toMatchObject({ MinTTL: 0, DefaultTTL: 30, MaxTTL: 60 });
  });

  it('adds Access-Control-Allow-Origin as a custom header on every response (not only to CORS requests), with the contract headers and nosniff', () => {
    const policy = only(template, 'AWS::CloudFront::ResponseHeadersPolicy', 'Edge');
    expect(render(behavior.ResponseHeadersPolicyId)).toBe(`\${${policy.id}}`);
    const config = policy.props.ResponseHeadersPolicyConfig as Record<
      string,
      { Items?: unknown[] } & Record<string, unknown>
    >;
    expect(config.CustomHeadersConfig?.Items).toEqual([
      { Header: 'Access-Control-Allow-Origin', Value: '*', Override: true },
      { Header: 'Access-Control-Expose-Headers', Value: EXPOSE_HEADERS, Override: true },
      { Header: 'Cache-Control', Value: CACHE_CONTROL, Override: false },
    ]);
    for (const h of ['ETag', 'Date', 'Last-Modified', 'Content-Language'])
      expect(EXPOSE_HEADERS.split(', ')).toContain(h);
    expect(config.SecurityHeadersConfig).toEqual({
      ContentTypeOptions: { Override: true },
      ContentSecurityPolicy: { ContentSecurityPolicy: PAGE_CSP_HEADER, Override: true },
    });
    // The header is the page's own meta policy with framing refused, so a new page script cannot run blocked in production.
    expect(PAGE_CSP_HEADER).toBe(`${PAGE_CSP}; frame-ancestors 'none'`);
    expect(config.CorsConfig).toBeUndefined();
  });

  it("turns S3's 403 and 404 for a missing key into the JSON not-found document with status 404", () => {
    expect(dist.CustomErrorResponses).toEqual(
      [403, 404].map((code) => ({
        ErrorCode: code,
        ResponseCode: 404,
        ResponsePagePath: NOT_FOUND_PATH,
        ErrorCachingMinTTL: 30,
      })),
    );
  });

  it('has a KeyValueStore for the freshness values', () => {
    expect(store.props.Name).toBeDefined();
  });
});

describe('alarms', () => {
  const alarms = template.findResources('AWS::CloudWatch::Alarm');
  const topic = only(template, 'AWS::SNS::Topic', 'Alarms');
  const stale = only(template, 'AWS::CloudWatch::Alarm', 'AlarmsApiStale');

  it('fires when no successful refresh was recorded for 45 minutes, missing data included', () => {
    expect(stale.props).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      MetricName: REFRESH_METRIC,
      Statistic: 'Sum',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
    const { Period, EvaluationPeriods, DatapointsToAlarm } = stale.props as Record<string, number>;
    expect(EvaluationPeriods).toBe(DatapointsToAlarm);
    expect((Period as number) * (EvaluationPeriods as number)).toBe(45 * 60);
  });

  it('fires when the scheduler fails to dispatch the workflow', () => {
    const failing = only(template, 'AWS::CloudWatch::Alarm', 'AlarmsDispatchFailing');
    expect(render(failing.props)).toMatchObject({
      Namespace: 'AWS/Events',
      MetricName: 'FailedInvocations',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(render(failing.props.Dimensions)).toContainEqual({ Name: 'RuleName', Value: DISPATCH_RULE_NAME });
  });

  it("notifies the SNS topic on alarm and on recovery, and subscribes the operator's address when given", () => {
    expect(Object.keys(alarms)).toHaveLength(2);
    for (const a of Object.values(alarms)) {
      expect(render(a.Properties.AlarmActions)).toEqual([`\${${topic.id}}`]);
      expect(render(a.Properties.OKActions)).toEqual([`\${${topic.id}}`]);
    }
    template.hasResource('AWS::SNS::Subscription', {
      Condition: 'HasAlarmEmail',
      Properties: { Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' } },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('external trigger', () => {
  const schedule = only(template, 'AWS::Scheduler::Schedule', 'Trigger');
  const rule = only(template, 'AWS::Events::Rule', 'Trigger');
  const destination = only(template, 'AWS::Events::ApiDestination', 'Trigger');
  const connection = only(template, 'AWS::Events::Connection', 'Trigger');
  const bus = only(template, 'AWS::Events::EventBus', 'Trigger');

  it('ticks every 15 minutes in UTC, exactly on time, onto a private bus', () => {
    expect(render(schedule.props)).toMatchObject({
      ScheduleExpression: `cron(${SCHEDULE_MINUTES} * * * ? *)`,
      ScheduleExpressionTimezone: 'Etc/UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: `${bus.id}.Arn`,
        EventBridgeParameters: { Source: 'reset-status-api.scheduler', DetailType: 'refresh-due' },
      },
    });
  });

  it("sends each tick to GitHub's workflow_dispatch endpoint for refresh.yml on main", () => {
    expect(render(rule.props)).toMatchObject({
      Name: DISPATCH_RULE_NAME,
      EventBusName: `\${${bus.id}}`,
      EventPattern: { source: ['reset-status-api.scheduler'], 'detail-type': ['refresh-due'] },
      Targets: [{ Arn: `${destination.id}.Arn`, Input: JSON.stringify({ ref: 'main' }) }],
    });
    expect(render(destination.props)).toMatchObject({
      HttpMethod: 'POST',
      InvocationEndpoint: 'https://api.github.com/repos/${GitHubRepository}/actions/workflows/refresh.yml/dispatches',
      ConnectionArn: `${connection.id}.Arn`,
    });
  });

  it('authorizes with the token from Secrets Manager, resolved by CloudFormation, never in the template', () => {
    const auth = render(connection.props) as {
      AuthorizationType: string;
      AuthParameters: Record<string, Record<string, unknown>>;
    };
    expect(auth.AuthorizationType).toBe('API_KEY');
    expect((auth as unknown as { Name: string }).Name).toBe(CONNECTION_NAME);
    expect(auth.AuthParameters.ApiKeyAuthParameters).toEqual({
      ApiKeyName: 'Authorization',
      ApiKeyValue: '{{resolve:secretsmanager:${DispatchAuthName}:SecretString:::}}',
    });
    expect(auth.AuthParameters.InvocationHttpParameters).toEqual({
      HeaderParameters: [
        { IsValueSecret: false, Key: 'Accept', Value: 'application/vnd.github+json' },
        { IsValueSecret: false, Key: 'X-GitHub-Api-Version', Value: '2022-11-28' },
      ],
    });
  });

  it('lets the scheduler put events on its bus and the rule invoke its destination, nothing more', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).map((p) =>
      render(p.Properties.PolicyDocument.Statement),
    );
    expect(statements).toEqual(
      expect.arrayContaining([
        [{ Action: 'events:PutEvents', Effect: 'Allow', Resource: `${bus.id}.Arn` }],
        [{ Action: 'events:InvokeApiDestination', Effect: 'Allow', Resource: `${destination.id}.Arn` }],
      ]),
    );
    expect(statements).toHaveLength(2);
  });
});
