// One-line answers for the terminal, in the five languages of the API. The reason (today.explanation), summaries and
// forecast explanations come translated from the API; only these few words are the client's own. Whatever came from
// the network is untrusted: `showLine` cleans it when a line is printed, and only the CLI's own words are coloured.
import type { ApiEvent, Forecast, Fresh, Latest } from './client.ts';
import { planAnswer, trustedProbabilities, trustedReset, UNSAFE } from './client.ts';
import type { Lang, Plan } from './config.ts';

/** The client's own words in English; every language has the same keys. `plan`: `today --plan P`, `{plan}` its name. */
const EN = {
  yes: 'Yes: Codex usage limits were reset today',
  no: 'No global reset today (so far)',
  unknown: 'Unknown: not known whether Codex reset today',
  stale: 'the data is out of date',
  lastCheck: 'last check',
  never: 'never',
  upcoming: 'announced',
  forecast: 'Chance of a global reset',
  notAnnouncement: 'a forecast, not an announcement',
  noEvents: 'No events.',
  plan: {
    yes: "Yes: today's reset reached {plan}",
    not_for_plan: "Not for your plan: today's reset names plans other than {plan}",
    no_reset: 'No reset today (so far)',
    not_stated: "Not stated: today's post does not say whether it reached {plan}",
  },
};
type Words = typeof EN;

const WORDS: Record<Lang, Words> = {
  en: EN,
  de: {
    yes: 'Ja: Die Codex-Nutzungslimits wurden heute zurückgesetzt',
    no: 'Heute (bisher) kein globaler Reset',
    unknown: 'Unbekannt: ob Codex heute zurückgesetzt wurde, ist nicht bekannt',
    stale: 'die Daten sind veraltet',
    lastCheck: 'letzte Prüfung',
    never: 'nie',
    upcoming: 'angekündigt',
    forecast: 'Wahrscheinlichkeit eines globalen Resets',
    notAnnouncement: 'eine Prognose, keine Ankündigung',
    noEvents: 'Keine Ereignisse.',
    plan: {
      yes: 'Ja: Der heutige Reset hat {plan} erreicht',
      not_for_plan: 'Nicht für Ihren Tarif: Der heutige Reset nennt andere Tarife als {plan}',
      no_reset: 'Heute (bisher) kein Reset',
      not_stated: 'Nicht angegeben: Der heutige Beitrag sagt nicht, ob er {plan} erreichte',
    },
  },
  ko: {
    yes: '예: 오늘 Codex 사용 한도가 초기화되었습니다',
    no: '오늘(지금까지) 전체 초기화 없음',
    unknown: '알 수 없음: 오늘 Codex 초기화 여부를 알 수 없습니다',
    stale: '데이터가 오래되었습니다',
    lastCheck: '마지막 확인',
    never: '없음',
    upcoming: '예고됨',
    forecast: '전체 초기화 확률',
    notAnnouncement: '예고가 아닌 예측',
    noEvents: '이벤트 없음.',
    plan: {
      yes: '예: 오늘의 리셋이 {plan}에 적용되었습니다',
      not_for_plan: '내 요금제 대상 아님: 오늘의 리셋은 {plan} 외의 요금제 대상입니다',
      no_reset: '오늘(지금까지) 리셋 없음',
      not_stated: '명시되지 않음: 오늘 게시물은 {plan} 적용 여부를 밝히지 않습니다',
    },
  },
  ja: {
    yes: 'はい: 本日 Codex の利用上限がリセットされました',
    no: '本日（現時点で）全体リセットなし',
    unknown: '不明: 本日 Codex がリセットされたかは分かりません',
    stale: 'データが古くなっています',
    lastCheck: '最終確認',
    never: 'なし',
    upcoming: '予告あり',
    forecast: '全体リセットの確率',
    notAnnouncement: '予告ではなく予測',
    noEvents: 'イベントはありません。',
    plan: {
      yes: 'はい: 本日のリセットは {plan} に適用されました',
      not_for_plan: 'あなたのプラン対象外: 本日のリセットは {plan} 以外のプランが対象です',
      no_reset: '本日（現時点で）リセットなし',
      not_stated: '記載なし: 本日の投稿は {plan} が対象か述べていません',
    },
  },
  zh: {
    yes: '是：Codex 使用额度今天已重置',
    no: '今天（目前）没有全局重置',
    unknown: '未知：不知道 Codex 今天是否重置',
    stale: '数据已过期',
    lastCheck: '最近检查',
    never: '从未',
    upcoming: '已预告',
    forecast: '全局重置的概率',
    notAnnouncement: '这是预测，不是公告',
    noEvents: '没有事件。',
    plan: {
      yes: '是：今天的重置已覆盖 {plan}',
      not_for_plan: '不适用于您的套餐：今天的重置针对 {plan} 以外的套餐',
      no_reset: '今天（目前）没有重置',
      not_stated: '未说明：今天的帖子没有说明是否覆盖 {plan}',
    },
  },
};

export type AnswerKind = 'yes' | 'no' | 'unknown';

export function answerKind(latest: Fresh<Latest>): AnswerKind {
  const r = trustedReset(latest);
  return r === true ? 'yes' : r === false ? 'no' : 'unknown';
}

/**
 * Escape sequences, removed whole: CSI (`ESC [` or 8-bit `\x9b`, then parameters up to a final byte); OSC, DCS, SOS, PM
 * and APC strings (window title, hyperlink, clipboard...) up to BEL or ST; any other `ESC` + final byte. A string
 * stops at the next introducer, so cleaning stays linear in the text's length; what no pattern matches is left to UNSAFE.
 */
const SEQUENCE =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x90\x98\x9c-\x9f]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]/g;

/** Text from the network as a terminal may print it: escape sequences removed, any other unsafe character shown as U+FFFD. */
export function terminalText(text: string): string {
  return text.replace(SEQUENCE, '').replace(UNSAFE, '\ufffd');
}

/** JSON text (from JSON.stringify, which escapes C0 but leaves C1 and bidi characters raw) with those escaped too. */
export function escapeJson(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A line to print: text (the API's, cleaned when printed) and the CLI's own answer words, the only part coloured. */
export type Line = string | readonly (string | { own: string; kind: AnswerKind })[];

const COLOURS: Record<AnswerKind, string> = { yes: '\x1b[32m', no: '\x1b[2m', unknown: '\x1b[33m' };

/** A line as it is written to the terminal: every text cleaned by terminalText, colour only on the CLI's own words. */
export function showLine(line: Line, colour: boolean): string {
  return (typeof line === 'string' ? [line] : line)
    .map((p) => (typeof p === 'string' ? terminalText(p) : colour ? `${COLOURS[p.kind]}${p.own}\x1b[0m` : p.own))
    .join('');
}

/**
 * The rest of a today line after the answer: `what` (or that the data is stale), the last check, `more`, and the API's
 * warning while a global reset is announced or landing ("using a banked reset now may waste it"), in its own
 * translated words; nothing from a stale document.
 */
function rest({ data, stale, staleAfter }: Fresh<Latest>, w: Words, what: string, more = ''): string {
  const note = stale ? null : data.banked_reset_warning?.note;
  const banked = typeof note === 'string' && note !== '' ? ` · ${note}` : '';
  const head = stale ? `${w.stale} (stale_after ${staleAfter})` : what;
  return ` — ${head} · ${w.lastCheck}: ${data.last_source_check_at ?? w.never}${more}${banked}`;
}

/** `yes`/`no`/`unknown` with the reason, the last check and the announced reset, one line. */
export function renderToday(latest: Fresh<Latest>, lang: Lang): Line {
  const w = WORDS[lang];
  const kind = answerKind(latest);
  const up = latest.data.upcoming;
  const upcoming = up ? ` · ${w.upcoming}: ${up.summary}${up.scheduled_for ? ` (${up.scheduled_for})` : ''}` : '';
  return [{ own: w[kind], kind }, rest(latest, w, latest.data.today.explanation, upcoming)];
}

/**
 * `today --plan P`: whether today's reset reached the plan, then what today's posts state (the API's translated
 * summary), until when it is still landing, and the last check.
 */
export function renderPlanToday(latest: Fresh<Latest>, plan: Plan, lang: Lang): Line {
  const w = WORDS[lang];
  const answer = planAnswer(latest, plan);
  const reach = latest.data.today_reach ?? null;
  const own = answer === 'unknown' ? w.unknown : w.plan[answer].replace('{plan}', plan);
  const kind = answer === 'yes' ? 'yes' : answer === 'not_for_plan' || answer === 'no_reset' ? 'no' : 'unknown';
  const what =
    reach !== null && answer !== 'unknown'
      ? [reach.summary, reach.note].filter((x) => typeof x === 'string' && x !== '').join(' · ')
      : latest.data.today.explanation;
  return [{ own, kind }, rest(latest, w, what)];
}

/** Today's answer as data, for `--json`, `watch` and the MCP tool; with a plan, the plan's answer first. */
export function todayAnswer(latest: Fresh<Latest>, plan?: Plan) {
  const { data, stale } = latest;
  const reach = stale ? null : (data.today_reach ?? null);
  return {
    ...(plan && {
      plan,
      plan_answer: planAnswer(latest, plan),
      propagating_until: reach?.propagating_until ?? null,
      today_reach: reach,
    }),
    answer: answerKind(latest),
    reset: trustedReset(latest),
    stale,
    stale_after: latest.staleAfter,
    reason: data.today.explanation,
    last_source_check_at: data.last_source_check_at,
    upcoming: data.upcoming,
    banked_reset_warning: stale ? null : (data.banked_reset_warning ?? null),
  };
}

/** The shortest segment for a shell prompt or a tmux status line. */
export function renderStatusline(latest: Fresh<Latest> | null): string {
  const kind = latest && answerKind(latest);
  return kind === 'yes' ? 'codex ↺ today' : kind === 'no' ? 'no reset' : '?';
}

const pct = (p: number | null) => (p === null ? '—' : `${(p * 100).toFixed(1)}%`);

/**
 * The forecast in one line. Past its stale_after (by the client's clock) it has no probability and the API's
 * explanation is left out: a live one states the very numbers that no longer hold.
 */
export function renderForecast(f: Fresh<Forecast>, lang: Lang): string {
  const w = WORDS[lang];
  const p = trustedProbabilities(f);
  const chance = `${w.forecast}: 24h ${pct(p.probability_24h)}, 48h ${pct(p.probability_48h)} (${w.notAnnouncement})`;
  return f.stale ? `${w.stale} (stale_after ${f.staleAfter}) · ${chance}` : `${chance} — ${f.data.explanation}`;
}

export function renderEvent(e: ApiEvent): string {
  return `${e.occurred_at}  ${e.type}  ${e.id}  ${e.title}`;
}

export function renderEvents(events: readonly ApiEvent[], lang: Lang): string {
  return events.length === 0 ? WORDS[lang].noEvents : events.map(renderEvent).join('\n');
}
