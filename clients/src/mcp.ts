// `reset-status mcp`: an MCP server on stdio with four tools and the OpenAPI document as a resource. Every result
// carries the honesty rules in words and its source links, so an agent repeats the answer as the API means it.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { createResetStatusClient, ResetStatusError, trustedReset, type ApiEvent, type ClientOptions } from './client.ts';
import { EVENT_TYPES, HISTORY_PAGE_SIZE, LANGS, type Lang } from './config.ts';

/** The most events one reset_history call returns: more than an agent's context should hold at once. */
const MCP_HISTORY_MAX = 500;
import { answerKind } from './format.ts';

export const HONESTY_RULES = [
  'reset: null means UNKNOWN. Unknown is not no: never tell the user there was no reset when the answer is unknown.',
  'A forecast is a probability, not an announcement: never present it as OpenAI saying a reset will happen.',
  'Stale data is unknown: a document past its meta.stale_after says nothing about today (stale: true here).',
].join('\n');

const langSchema = z.enum(LANGS).optional().describe('Language of the translated texts (en, de, ko, ja, zh); default en.');

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

function result(payload: unknown, links: readonly string[]): ToolResult {
  const text = `${JSON.stringify(payload, null, 2)}\n\nRules:\n${HONESTY_RULES}\n\nSources:\n${links.length ? links.map((l) => `- ${l}`).join('\n') : '- (none)'}`;
  return { content: [{ type: 'text', text }] };
}

/** An expected failure (the API down, a 404) is a tool error result the agent can read, never a crash. */
async function guarded(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (err) {
    const e = err instanceof ResetStatusError ? err : new ResetStatusError('network', String(err), null, '');
    return { isError: true, content: [{ type: 'text', text: `reset-status error ${e.code}${e.status === null ? '' : ` (HTTP ${e.status})`}: ${e.message}\nThe answer is UNKNOWN, not no.` }] };
  }
}

const eventLinks = (baseUrl: string, events: readonly ApiEvent[]) => events.flatMap((e) => [`${baseUrl}${e.url}`, ...e.sources.map((s) => s.url)]);

export function createMcpServer(options: ClientOptions & { baseUrl: string }): McpServer {
  const server = new McpServer({ name: 'reset-status', version: '0.1.0' });
  const client = (lang: Lang | undefined) => createResetStatusClient({ ...options, ...(lang ? { lang } : {}) });
  const base = options.baseUrl.replace(/\/+$/, '');

  server.registerTool(
    'reset_today',
    { description: 'Has OpenAI reset Codex usage limits for everyone today? yes / no / unknown, with the reason, the last check and any announced upcoming reset.', inputSchema: { lang: langSchema } },
    ({ lang }) =>
      guarded(async () => {
        const c = client(lang);
        const l = await c.latest();
        const links = [`${c.baseUrl}/api/latest${lang ? `?lang=${lang}` : ''}`, ...(l.data.upcoming ? [l.data.upcoming.source_url] : []), ...(l.data.latestReset ? eventLinks(base, [l.data.latestReset]) : [])];
        return result({ answer: answerKind(l), reset: trustedReset(l), stale: l.stale, stale_after: l.staleAfter, reason: l.data.today.explanation, last_source_check_at: l.data.last_source_check_at, upcoming: l.data.upcoming, latest_reset: l.data.latestReset }, links);
      }),
  );
  server.registerTool(
    'reset_forecast',
    { description: 'The chance of a global Codex reset within 24 h and 48 h (a forecast, not an announcement).', inputSchema: { lang: langSchema } },
    ({ lang }) =>
      guarded(async () => {
        const c = client(lang);
        const f = await c.forecast();
        return result({ stale: f.stale, stale_after: f.staleAfter, probability_24h: f.stale ? null : f.data.probability_24h, probability_48h: f.stale ? null : f.data.probability_48h, explanation: f.data.explanation, announced: f.data.announced, model_version: f.data.model_version }, [`${c.baseUrl}/api/forecast${lang ? `?lang=${lang}` : ''}`]);
      }),
  );
  server.registerTool(
    'reset_history',
    {
      description: `Recorded events, newest first (coverage is partial). Reads across the API's history pages up to \`limit\`; \`page\` reads one archived page instead (1 = the ${HISTORY_PAGE_SIZE} oldest events).`,
      inputSchema: {
        type: z.enum(EVENT_TYPES).optional().describe('Only events of this type.'),
        limit: z.number().int().min(1).max(MCP_HISTORY_MAX).optional().describe(`At most this many events, newest first (default 10, at most ${MCP_HISTORY_MAX}).`),
        page: z.number().int().min(1).max(9_999_999).optional().describe('One archived page instead of the newest events: 1 holds the oldest events; the newest history lists how many are archived.'),
        lang: langSchema,
      },
    },
    ({ type, limit, page, lang }) =>
      guarded(async () => {
        const c = client(lang);
        const filter = type ? { type } : {};
        if (page !== undefined) {
          const p = await c.historyPage(page, filter);
          const events = limit === undefined ? p.events : p.events.slice(0, limit);
          const url = `${c.baseUrl}/api/history?lang=${p.meta.lang}${type ? `&type=${type}` : ''}&page=${page}`;
          return result({ page: p.page, first_position: p.first_position, next: p.next, events }, [url, ...eventLinks(base, events)]);
        }
        const h = await c.history({ ...filter, limit: limit ?? 10 });
        return result({ count: h.count, truncated: h.truncated, coverage_note: h.document.coverage.note, events: h.events }, [`${c.baseUrl}/api/history`, ...eventLinks(base, h.events)]);
      }),
  );
  server.registerTool(
    'reset_event',
    { description: 'One recorded event by its id.', inputSchema: { id: z.string().min(1).max(200).describe('The event id, as in reset_history.'), lang: langSchema } },
    ({ id, lang }) =>
      guarded(async () => {
        const e = await client(lang).event(id);
        return result({ event: e }, eventLinks(base, [e]));
      }),
  );
  const openapiUrl = `${base}/api/openapi.json`;
  server.registerResource('openapi', openapiUrl, { title: 'Reset Status API OpenAPI document', mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await client(undefined).openapi()) }],
  }));
  return server;
}

export async function runMcpServer(options: ClientOptions & { baseUrl: string }): Promise<void> {
  await createMcpServer(options).connect(new StdioServerTransport());
}
