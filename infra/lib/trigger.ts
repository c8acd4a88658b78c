// The primary trigger of the refresh: an EventBridge Scheduler schedule puts an event on a private bus, and a rule
// sends it to GitHub's workflow_dispatch endpoint through an API destination. GitHub's own cron stays in refresh.yml
// as the fallback; GitHub delays or drops scheduled runs under load, an external trigger does not depend on that.
import { Duration, SecretValue } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { REFRESH_WORKFLOW_FILE } from './layout.ts';

/** Minutes past the hour the scheduler fires; refresh.yml's fallback cron runs on 7,22,37,52. */
export const SCHEDULE_MINUTES = '0,15,30,45';
export const TRIGGER_SOURCE = 'reset-status-api.scheduler';
export const TRIGGER_DETAIL_TYPE = 'refresh-due';
export const DISPATCH_RULE_NAME = 'reset-status-api-dispatch';
export const CONNECTION_NAME = 'reset-status-api-github';
/** GitHub's REST API wants these on every call; the token comes from the connection's authorization. */
export const GITHUB_API_HEADERS = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };

export interface TriggerProps {
  /** `owner/name` of the repository. */
  repository: string;
  /** The branch the dispatched run uses; the roles trust only this one. */
  ref: string;
  /**
   * Name of a Secrets Manager secret holding the header value `Bearer <token>`, for a fine-grained token limited to
   * this repository with "Actions: read and write" (the permission workflow_dispatch needs) and nothing else.
   */
  tokenSecretName: string;
}

export class Trigger extends Construct {
  readonly bus: events.EventBus;

  constructor(scope: Construct, id: string, props: TriggerProps) {
    super(scope, id);
    const bus = (this.bus = new events.EventBus(this, 'Bus', {
      description: 'Reset Status API: refresh triggers from the scheduler',
    }));
    const connection = new events.Connection(this, 'GitHub', {
      // A fixed name, so rotating the token is one documented command (docs/deploy.md).
      connectionName: CONNECTION_NAME,
      description: 'GitHub REST API with the dispatch token from Secrets Manager',
      authorization: events.Authorization.apiKey('Authorization', SecretValue.secretsManager(props.tokenSecretName)),
      headerParameters: Object.fromEntries(
        Object.entries(GITHUB_API_HEADERS).map(([k, v]) => [k, events.HttpParameter.fromString(v)]),
      ),
    });
    const destination = new events.ApiDestination(this, 'Dispatch', {
      description: `POST workflow_dispatch for ${REFRESH_WORKFLOW_FILE}`,
      connection,
      endpoint: `https://api.github.com/repos/${props.repository}/actions/workflows/${REFRESH_WORKFLOW_FILE}/dispatches`,
      httpMethod: events.HttpMethod.POST,
      rateLimitPerSecond: 1,
    });
    new events.Rule(this, 'DispatchRule', {
      // A fixed name: the failure alarm's metric dimension is the plain rule name, which a rule on a custom bus
      // does not get from Ref (that returns `bus|rule`).
      ruleName: DISPATCH_RULE_NAME,
      description: 'Scheduler tick -> GitHub workflow_dispatch',
      eventBus: bus,
      eventPattern: { source: [TRIGGER_SOURCE], detailType: [TRIGGER_DETAIL_TYPE] },
      targets: [
        new targets.ApiDestination(destination, {
          event: events.RuleTargetInput.fromObject({ ref: props.ref }),
          // A tick older than a few minutes is superseded by the next one; retrying it later only doubles runs.
          maxEventAge: Duration.minutes(5),
          retryAttempts: 2,
        }),
      ],
    });
    new scheduler.Schedule(this, 'Every15Minutes', {
      description: 'Trigger the refresh workflow',
      schedule: scheduler.ScheduleExpression.cron({ minute: SCHEDULE_MINUTES, hour: '*' }),
      timeWindow: scheduler.TimeWindow.off(),
      target: new schedulerTargets.EventBridgePutEvents(
        {
          eventBus: bus,
          source: TRIGGER_SOURCE,
          detailType: TRIGGER_DETAIL_TYPE,
          detail: scheduler.ScheduleTargetInput.fromObject({ workflow: REFRESH_WORKFLOW_FILE }),
        },
        {
          // A tick that could not be delivered within minutes is replaced by the next one.
          maxEventAge: Duration.minutes(5),
          retryAttempts: 2,
        },
      ),
    });
  }
}
