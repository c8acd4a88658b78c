// The whole production stack of the Reset Status API. Environment-agnostic: the repository, the token's secret and
// the alarm address are CloudFormation parameters, so the committed template is the one every operator deploys.
import { CfnCondition, CfnOutput, CfnParameter, CfnRule, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { Access, TRUSTED_REF } from './access.ts';
import { acknowledgeFindings } from './acknowledgments.ts';
import { Alarms } from './alarms.ts';
import { Edge } from './edge.ts';
import { Storage } from './storage.ts';
import { DISPATCH_RULE_NAME, Trigger } from './trigger.ts';

export const DEFAULT_TOKEN_SECRET_NAME = 'reset-status-api/github-dispatch-token';
/** A lowercase DNS name with at least two labels, or empty (no custom domain). */
export const DOMAIN_NAME_PATTERN = '^$|^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$';
/** An ACM certificate ARN in us-east-1 (the only region CloudFront reads certificates from), or empty. */
export const CERTIFICATE_ARN_PATTERN = '^$|^arn:aws[a-z-]*:acm:us-east-1:[0-9]{12}:certificate/[0-9a-f-]{36}$';

export interface ResetStatusApiStackProps extends StackProps {
  /** Path of the committed CloudFront Function bundle. */
  functionCodePath: string;
  /** Reuse the account's GitHub OIDC provider instead of creating one (IAM allows one per issuer and account). */
  useExistingOidcProvider?: boolean;
}

export class ResetStatusApiStack extends Stack {
  constructor(scope: Construct, id: string, props: ResetStatusApiStackProps) {
    super(scope, id, props);
    const repository = new CfnParameter(this, 'GitHubRepository', {
      type: 'String',
      description: 'owner/name of the GitHub repository whose workflows publish the API',
      allowedPattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$',
    }).valueAsString;
    const tokenSecretName = new CfnParameter(this, 'DispatchAuthName', {
      type: 'String',
      description:
        'Secrets Manager secret holding "Bearer <token>" for GitHub workflow_dispatch (create it before deploying)',
      default: DEFAULT_TOKEN_SECRET_NAME,
    }).valueAsString;
    const alarmEmail = new CfnParameter(this, 'AlarmEmail', {
      type: 'String',
      description: 'Address subscribed to the alarm topic (confirm the email AWS sends); empty for none',
      default: '',
    }).valueAsString;

    // A custom domain is two parameters rather than code: the stack may live in any region, while CloudFront takes
    // its certificate from us-east-1 only, so the certificate is made there (docs/deploy.md) and passed in by ARN.
    const domainName = new CfnParameter(this, 'DomainName', {
      type: 'String',
      description: 'Custom domain of the API (e.g. api.example.org); empty: only the *.cloudfront.net name',
      default: '',
      allowedPattern: DOMAIN_NAME_PATTERN,
      constraintDescription: 'a lowercase DNS name such as api.example.org, or empty',
    }).valueAsString;
    const certificateArn = new CfnParameter(this, 'CertificateArn', {
      type: 'String',
      description: 'ARN of an issued ACM certificate in us-east-1 covering DomainName; empty when DomainName is empty',
      default: '',
      allowedPattern: CERTIFICATE_ARN_PATTERN,
      constraintDescription:
        'an ACM certificate ARN in us-east-1 (arn:aws:acm:us-east-1:ACCOUNT:certificate/ID), or empty',
    }).valueAsString;
    const empty = (value: string) => Fn.conditionEquals(value, '');
    const hasDomain = new CfnCondition(this, 'HasCustomDomain', { expression: Fn.conditionNot(empty(domainName)) });
    // Refused before any resource changes: a domain without its certificate (or the reverse) cannot work.
    new CfnRule(this, 'CustomDomainNeedsCertificate', {
      assertions: [
        {
          assert: Fn.conditionOr(
            Fn.conditionAnd(empty(domainName), empty(certificateArn)),
            Fn.conditionAnd(Fn.conditionNot(empty(domainName)), Fn.conditionNot(empty(certificateArn))),
          ),
          assertDescription: 'DomainName and CertificateArn are set together (both empty for no custom domain)',
        },
      ],
    });

    const storage = new Storage(this, 'Storage');
    const edge = new Edge(this, 'Edge', {
      bucket: storage.bucket,
      functionCodePath: props.functionCodePath,
      customDomain: { domainName, certificateArn, enabled: hasDomain },
    });
    storage.denyCloudFrontOutsideApi();
    const access = new Access(this, 'Access', {
      bucket: storage.bucket,
      store: edge.store,
      repository,
      useExistingOidcProvider: props.useExistingOidcProvider === true,
    });
    const trigger = new Trigger(this, 'Trigger', {
      repository,
      ref: TRUSTED_REF.replace('refs/heads/', ''),
      tokenSecretName,
    });
    const alarms = new Alarms(this, 'Alarms', { dispatchRuleName: DISPATCH_RULE_NAME, bus: trigger.bus });
    const subscription = new sns.CfnSubscription(this, 'AlarmEmailSubscription', {
      topicArn: alarms.topic.topicArn,
      protocol: 'email',
      endpoint: alarmEmail,
    });
    subscription.cfnOptions.condition = new CfnCondition(this, 'HasAlarmEmail', {
      expression: Fn.conditionNot(empty(alarmEmail)),
    });

    acknowledgeFindings(this, { storage, edge, access });

    const out = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    out('BucketName', storage.bucket.bucketName, 'repository variable RESET_S3_BUCKET');
    out(
      'ApiUrl',
      Fn.conditionIf(
        hasDomain.logicalId,
        `https://${domainName}`,
        `https://${edge.distribution.distributionDomainName}`,
      ).toString(),
      'repository variable RESET_PUBLIC_BASE_URL: the public API (append /api/latest)',
    );
    out(
      'DistributionDomainName',
      edge.distribution.distributionDomainName,
      "target of the custom domain's alias (Route 53) or CNAME record",
    );
    out('DistributionId', edge.distribution.distributionId, 'for cache invalidations');
    out('KeyValueStoreArn', edge.store.keyValueStoreArn, 'repository variable RESET_EDGE_STORE_ARN');
    out('RefreshRoleArn', access.refreshRole.roleArn, 'repository variable AWS_ROLE_ARN (refresh.yml)');
    out('BackupRoleArn', access.backupRole.roleArn, 'repository variable AWS_BACKUP_ROLE_ARN (backup.yml)');
    out('RestoreRoleArn', access.restoreRole.roleArn, 'assume by hand to restore a backup');
    out('AlarmTopicArn', alarms.topic.topicArn, 'subscribe more endpoints here');
    out('RouterFunctionName', edge.router.functionName, 'aws cloudfront test-function --name ...');
  }
}
