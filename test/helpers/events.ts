// One factory for archived test events, so model tests describe only what differs.
import type { EventType } from '../../builder/contract.ts';
import { EventSchema, type Event, type Reason } from '../../builder/model/schemas.ts';

export function testEvent(at: string, type: EventType = 'global_reset', reason: Reason = 'other'): Event {
  return EventSchema.parse({
    id: `t-${type}-${at.replace(/[^0-9]/g, '')}`,
    type,
    status: 'archived',
    reason: type === 'banked_grant' ? 'banked' : type === 'policy_change' ? 'policy' : reason,
    origin: 'ledger',
    time_precision: 'second',
    time_basis: 'announcement',
    announced_at: at,
    observed_at: null,
    effective_at: null,
    evidence_text: `test ${type} at ${at}`,
  });
}
