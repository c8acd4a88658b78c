// What pages the operator: the API going stale (no successful refresh for 45 minutes, whatever the cause), and the
// external trigger failing (typically an expired or revoked GitHub token), which would otherwise go unnoticed
// while GitHub's fallback cron still runs now and then.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, REFRESH_METRIC } from './layout.ts';

/** Evaluation step of the staleness alarm; STALE_PERIODS of them make the 45 minutes. */
const STEP = Duration.minutes(5);
export const STALE_PERIODS = 9;

export interface AlarmsProps {
  /** The dispatch rule's plain name (not its Ref, which is `bus|rule` on a custom bus). */
  dispatchRuleName: string;
  /** The custom bus the rule is on: its metrics carry both names. */
  bus: events.IEventBus;
}

export class Alarms extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Reset Status API alarms', enforceSSL: true });
    // Every successful refresh puts 1. Nine 5-minute periods that must all breach, with missing data breaching: the
    // alarm fires exactly when no success landed in the last 45 minutes, including when nothing runs at all.
    const stale = new cloudwatch.Alarm(this, 'ApiStale', {
      alarmDescription:
        'No successful refresh for 45 minutes: the API is serving stale documents (the edge answers unknown past stale_after)',
      metric: new cloudwatch.Metric({
        namespace: METRIC_NAMESPACE,
        metricName: REFRESH_METRIC,
        statistic: 'Sum',
        period: STEP,
      }),
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      threshold: 1,
      evaluationPeriods: STALE_PERIODS,
      datapointsToAlarm: STALE_PERIODS,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    const dispatchFailing = new cloudwatch.Alarm(this, 'DispatchFailing', {
      alarmDescription:
        'The scheduler could not dispatch the refresh workflow for an hour (GitHub token expired, revoked or lacking Actions: write?)',
      metric: new cloudwatch.Metric({
        namespace: 'AWS/Events',
        metricName: 'FailedInvocations',
        dimensionsMap: { EventBusName: props.bus.eventBusName, RuleName: props.dispatchRuleName },
        statistic: 'Sum',
        period: Duration.hours(1),
      }),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      threshold: 1,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [stale, dispatchFailing]) {
      alarm.addAlarmAction(new actions.SnsAction(this.topic));
      alarm.addOkAction(new actions.SnsAction(this.topic));
    }
  }
}
