// The CDN: one distribution in front of the bucket, the router function on viewer-request with its KeyValueStore,
// a cache key of the URI alone, and response headers every answer needs whatever the request looked like.
import { Aws, type CfnCondition, Duration, Fn } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CACHE_CONTROL, EXPOSE_HEADERS } from '../../builder/contract.ts';
import { PAGE_CSP_HEADER } from '../../builder/render/page-csp.ts';
import { NOT_FOUND_PATH } from './layout.ts';

/** How long CloudFront keeps an error answer: the documents' own max-age, so a new event id appears as fast. */
const ERROR_CACHING = Duration.seconds(30);
/** The oldest TLS a viewer may use on a custom domain: TLS 1.2, with the ciphers of CloudFront's 2021 policy. */
export const CUSTOM_DOMAIN_TLS_POLICY = 'TLSv1.2_2021';

/**
 * An optional custom domain, decided at deploy time: CloudFormation parameters and the condition that they are set,
 * so the one committed template serves operators with and without a domain.
 */
export interface CustomDomain {
  domainName: string;
  /** An ACM certificate in us-east-1 (CloudFront reads certificates only from there) covering `domainName`. */
  certificateArn: string;
  enabled: CfnCondition;
}

export interface EdgeProps {
  bucket: s3.IBucket;
  /** Path of the committed CloudFront Function bundle (edge/cloudfront-function.js). */
  functionCodePath: string;
  customDomain?: CustomDomain;
}

export class Edge extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly router: cloudfront.Function;
  readonly store: cloudfront.KeyValueStore;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    this.store = new cloudfront.KeyValueStore(this, 'Store', {
      comment: 'Reset Status API: freshness values the router reads (written by each refresh)',
    });
    this.router = new cloudfront.Function(this, 'Router', {
      comment: 'Reset Status API router: lang/type/page onto object keys, JSON errors',
      // Inline code from the committed bundle: the template shows exactly what runs at the edge, and a stale
      // template is caught by `npm run synth -- --check` like a stale bundle by build-edge --check.
      code: cloudfront.FunctionCode.fromFile({ filePath: props.functionCodePath }),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      keyValueStore: this.store,
      autoPublish: true,
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Reset Status API',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      enableIpv6: true,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(props.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        // All methods reach the function, which answers 405 in JSON itself; CloudFront would refuse others with
        // its own non-JSON 403 before any function runs. Only GET and HEAD are ever forwarded to S3.
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
        compress: true,
        // The function has moved `lang`, `type` and `page` into the path (a viewer-request function runs before the
        // cache lookup, and the cache key is built from the request it returns), so nothing else may split or merge
        // cache entries: `?page=3` and `?page=4` are two URIs, never one entry keyed without the query.
        cachePolicy: new cloudfront.CachePolicy(this, 'UriOnly', {
          comment: 'Cache key = URI only; the viewer-request function rewrites lang/type/page into the path',
          // The objects' own Cache-Control (max-age=30) decides within these bounds.
          minTtl: Duration.seconds(0),
          defaultTtl: Duration.seconds(30),
          maxTtl: Duration.seconds(60),
          queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
          headerBehavior: cloudfront.CacheHeaderBehavior.none(),
          cookieBehavior: cloudfront.CacheCookieBehavior.none(),
          enableAcceptEncodingGzip: true,
          enableAcceptEncodingBrotli: true,
        }),
        // Custom headers, not a CORS configuration: CloudFront's CorsConfig adds Access-Control-Allow-Origin only when
        // the request carries an Origin header, so curl and server-side clients got none, and an answer cached for a
        // request without Origin reached browsers without it. A custom header is added to every response. nosniff
        // comes from the security-headers part, which is just as unconditional.
        responseHeadersPolicy: new cloudfront.ResponseHeadersPolicy(this, 'ContractHeaders', {
          comment: 'Open CORS and the contract headers on every response',
          customHeadersBehavior: {
            customHeaders: [
              { header: 'Access-Control-Allow-Origin', value: '*', override: true },
              // The same list the router's own answers carry.
              { header: 'Access-Control-Expose-Headers', value: EXPOSE_HEADERS, override: true },
              // Objects and the function's own answers carry it already; this covers anything that does not.
              { header: 'Cache-Control', value: CACHE_CONTROL, override: false },
            ],
          },
          securityHeadersBehavior: {
            contentTypeOptions: { override: true },
            // The human page's policy (its meta tag's, plus no framing); JSON documents are never run, so it costs them nothing.
            contentSecurityPolicy: { contentSecurityPolicy: PAGE_CSP_HEADER, override: true },
          },
        }),
        functionAssociations: [{ function: this.router, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      // The origin access control has no s3:ListBucket, so S3 answers a missing key with 403: both statuses become
      // the stored JSON not-found document with status 404, never S3's XML.
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 404,
        responsePagePath: NOT_FOUND_PATH,
        ttl: ERROR_CACHING,
      })),
    });
    if (props.customDomain) this.useCustomDomain(props.customDomain);
  }

  /**
   * The alias and its certificate only when the condition holds; otherwise the distribution keeps the
   * *.cloudfront.net name and certificate, as without a domain. The L2 construct takes a certificate only as a
   * synth-time value, so the two properties are set on the CloudFormation resource as conditional values.
   */
  private useCustomDomain(d: CustomDomain): void {
    const cfn = this.distribution.node.defaultChild as cloudfront.CfnDistribution;
    cfn.addPropertyOverride(
      'DistributionConfig.Aliases',
      Fn.conditionIf(d.enabled.logicalId, [d.domainName], Aws.NO_VALUE),
    );
    // One Fn::If per field, not around the whole object: CloudFormation's schema check (and the CDK's validation of
    // it) must see that exactly one of the certificate fields is present.
    const when = (yes: unknown, no: unknown = Aws.NO_VALUE) => Fn.conditionIf(d.enabled.logicalId, yes, no);
    cfn.addPropertyOverride('DistributionConfig.ViewerCertificate', {
      AcmCertificateArn: when(d.certificateArn),
      // sni-only: a dedicated-IP certificate costs a monthly fee and serves only clients without SNI.
      SslSupportMethod: when('sni-only'),
      MinimumProtocolVersion: when(CUSTOM_DOMAIN_TLS_POLICY),
      CloudFrontDefaultCertificate: when(Aws.NO_VALUE, true),
    });
  }
}
