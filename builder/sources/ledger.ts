// Turns the public codex-reset-ledger CSV into archived event records.
import { EventSchema, type Event, type EventType, type Reason, REASONS } from '../model/schemas.ts';

export const LEDGER_NAME = 'codex-reset-ledger';
export const LEDGER_URL = 'https://github.com/kosanhu2021-source/codex-reset-ledger';
export const LEDGER_COMMIT = '78180e92af42a2e3b61f6504deed058db0556225';
export const LEDGER_NOTICE =
  'Derived from codex-reset-ledger (data/codex-reset-ledger.csv). MIT License, Copyright (c) 2026 whenresets.net. Full text: data/LICENSE-codex-reset-ledger.txt';

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new Error('[data/ledger] unterminated quoted field at end of CSV');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

const HEADER = ['date_utc', 'time_utc', 'type', 'description', 'source_url', 'source_platform'] as const;

function typeOf(ledgerType: string): { type: EventType; reason: Reason } {
  if (ledgerType === 'banked') return { type: 'banked_grant', reason: 'banked' };
  if (ledgerType === 'policy') return { type: 'policy_change', reason: 'policy' };
  const reason = (REASONS as readonly string[]).includes(ledgerType) ? (ledgerType as Reason) : 'other';
  return { type: 'global_reset', reason };
}

export function ledgerRowsToEvents(csv: string): Event[] {
  const [header, ...rows] = parseCsv(csv);
  if (!header || HEADER.some((h, i) => header[i] !== h)) {
    throw new Error(`[data/ledger] unexpected header ${JSON.stringify(header)}; expected ${HEADER.join(',')}`);
  }
  const seen = new Set<string>();
  return rows.map((r, n) => {
    const [date, time, ledgerType, description, url, platform] = r;
    const where = `[data/ledger] row ${n + 2}`;
    if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`${where}: bad date_utc ${JSON.stringify(date)}`);
    if (!ledgerType || !description) throw new Error(`${where}: type and description are required`);
    const hasTime = !!time && /^\d{2}:\d{2}:\d{2}$/.test(time);
    const at = hasTime ? `${date}T${time}Z` : date;
    let id = `ledger-${date}-${hasTime ? time!.slice(0, 5).replace(':', '') : ledgerType}`;
    for (let k = 2; seen.has(id); k++) id = `${id}-${k}`;
    seen.add(id);
    const { type, reason } = typeOf(ledgerType);
    const sources = url ? [{ platform: platform || 'web', url, ...(url.includes('x.com/') ? { author: url.split('/')[3] ?? '' } : {}) }] : [];
    return EventSchema.parse({
      id,
      type,
      status: 'archived',
      reason,
      origin: 'ledger',
      time_precision: hasTime ? 'second' : 'day',
      // The ledger's time is the post's time: the announcement, not the moment every account recovered.
      time_basis: 'announcement',
      announced_at: at,
      observed_at: null,
      effective_at: null,
      evidence_text: description,
      sources,
    });
  });
}
