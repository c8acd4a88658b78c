// The optional custom domain: two parameters of the one committed template. Without them the distribution has no
// alias and the *.cloudfront.net certificate; with them, the alias, the us-east-1 ACM certificate by SNI and TLS 1.2
// at least. CloudFormation decides this at deploy time, so the test evaluates the template's own conditions, rule and
// `Fn::If`s for both sets of parameter values, the way CloudFormation resolves them.
import { describe, expect, it } from 'vitest';
import { CUSTOM_DOMAIN_TLS_POLICY } from '../lib/edge.ts';
import { CERTIFICATE_ARN_PATTERN, DOMAIN_NAME_PATTERN } from '../lib/stack.ts';
import { only, synthStack } from './helpers.ts';

const { template } = synthStack();
const json = template.toJSON() as {
  Parameters: Record<string, { Default?: string; AllowedPattern?: string }>;
  Conditions: Record<string, unknown>;
  Rules: Record<string, { Assertions: { Assert: unknown }[] }>;
  Outputs: Record<string, { Value: unknown }>;
};
const distribution = only(template, 'AWS::CloudFront::Distribution', 'Edge');

const CERT = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
const NO_VALUE = Symbol('AWS::NoValue');
type Params = Record<string, string>;

/** Resolves the intrinsics the domain uses (Ref to a parameter, Fn::If/Equals/Not/And/Or); other refs stay as they are. */
function evaluate(value: unknown, params: Params): unknown {
  if (Array.isArray(value)) return value.map((v) => evaluate(v, params)).filter((v) => v !== NO_VALUE);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const [key] = Object.keys(o);
  const arg = key === undefined ? undefined : o[key];
  switch (key) {
    case 'Ref':
      if (arg === 'AWS::NoValue') return NO_VALUE;
      return typeof arg === 'string' && arg in params ? params[arg] : o;
    case 'Condition':
      return evaluate(json.Conditions[arg as string], params);
    case 'Fn::If': {
      const [cond, yes, no] = arg as [string, unknown, unknown];
      return evaluate(evaluate(json.Conditions[cond], params) === true ? yes : no, params);
    }
    case 'Fn::Equals': {
      const [a, b] = (arg as unknown[]).map((x) => evaluate(x, params));
      return JSON.stringify(a) === JSON.stringify(b);
    }
    case 'Fn::Not':
      return !(evaluate((arg as unknown[])[0], params) as boolean);
    case 'Fn::And':
      return (arg as unknown[]).every((x) => evaluate(x, params) === true);
    case 'Fn::Or':
      return (arg as unknown[]).some((x) => evaluate(x, params) === true);
    default:
      return Object.fromEntries(
        Object.entries(o)
          .map(([k, v]) => [k, evaluate(v, params)])
          .filter(([, v]) => v !== NO_VALUE),
      );
  }
}

/** What CloudFormation would accept for these values: each parameter's AllowedPattern, then the domain rule. */
function accepts(params: Params): boolean {
  for (const name of ['DomainName', 'CertificateArn']) {
    const p = json.Parameters[name]!;
    if (!new RegExp(p.AllowedPattern!).test(params[name] ?? p.Default!)) return false;
  }
  return json.Rules.CustomDomainNeedsCertificate!.Assertions.every((a) => evaluate(a.Assert, params) === true);
}

const config = (params: Params) => evaluate(distribution.props.DistributionConfig, params) as Record<string, unknown>;

describe('custom domain', () => {
  it('is two optional parameters, empty by default, so the default template has no domain', () => {
    expect(json.Parameters.DomainName).toMatchObject({ Default: '', AllowedPattern: DOMAIN_NAME_PATTERN });
    expect(json.Parameters.CertificateArn).toMatchObject({ Default: '', AllowedPattern: CERTIFICATE_ARN_PATTERN });
    const none = config({ DomainName: '', CertificateArn: '' });
    expect(none.Aliases).toBeUndefined();
    expect(none.ViewerCertificate).toEqual({ CloudFrontDefaultCertificate: true });
    expect(evaluate(json.Outputs.ApiUrl!.Value, { DomainName: '', CertificateArn: '' })).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution.id, 'DomainName'] }]],
    });
  });

  it('with a domain and its certificate: the alias, the certificate by SNI, TLS 1.2 at least, and ApiUrl on the domain', () => {
    const params = { DomainName: 'api.example.org', CertificateArn: CERT };
    expect(accepts(params)).toBe(true);
    const c = config(params);
    expect(c.Aliases).toEqual(['api.example.org']);
    expect(c.ViewerCertificate).toEqual({
      AcmCertificateArn: CERT,
      SslSupportMethod: 'sni-only',
      MinimumProtocolVersion: CUSTOM_DOMAIN_TLS_POLICY,
    });
    expect(CUSTOM_DOMAIN_TLS_POLICY).toBe('TLSv1.2_2021');
    expect(evaluate(json.Outputs.ApiUrl!.Value, params)).toEqual({ 'Fn::Join': ['', ['https://', 'api.example.org']] });
    // The alias or CNAME record points here.
    expect(json.Outputs.DistributionDomainName!.Value).toEqual({ 'Fn::GetAtt': [distribution.id, 'DomainName'] });
  });

  it.each([
    [{ DomainName: 'api.example.org', CertificateArn: '' }, 'a domain without a certificate'],
    [{ DomainName: '', CertificateArn: CERT }, 'a certificate without a domain'],
    [
      { DomainName: 'api.example.org', CertificateArn: CERT.replace('us-east-1', 'eu-central-1') },
      'a certificate outside us-east-1, which CloudFront cannot use',
    ],
    [{ DomainName: 'https://api.example.org', CertificateArn: CERT }, 'a URL instead of a domain name'],
    [
      { DomainName: 'API.example.org', CertificateArn: CERT },
      'an uppercase name (CloudFront stores aliases in lowercase)',
    ],
  ])('refuses %j at deploy time: %s', (params) => {
    expect(accepts(params)).toBe(false);
  });

  it('accepts the default (no domain) at deploy time', () => {
    expect(accepts({})).toBe(true);
  });
});
