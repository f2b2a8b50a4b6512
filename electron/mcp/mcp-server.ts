// The MCP face: an SDK `Server` whose tools and resources are served through the same contract
// dispatcher as the IPC and HTTP faces. The low-level Server (not McpServer) is used on purpose:
// McpServer validates arguments itself and answers a bad one with its own untagged text, while
// this face parses every argument with our schemas and answers with a tagged failure the model
// can act on. The caller owns the transport and the services; close() ends the session only.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Dispatcher } from '../../shared/contract/dispatcher.ts';
import { PackageNameSchema } from '../../shared/protocol/manifest.ts';
import { toolError } from './render.ts';
import { contractCaller, packAllowed, sessionView } from './session.ts';
import { skillText } from './skill-text.ts';
import { jsonSchemaOf, TOOLS } from './tool-schemas.ts';
import { callTool, type ToolDeps } from './tools.ts';

export interface McpFaceOptions {
  readonly dispatcher: Dispatcher;
  /** The session allowlist given at start-up; undefined = the user's settings (default: packs trusted for agents). */
  readonly allow?: readonly string[];
  /** Hosts every run may fetch from, chosen by the user at start-up. */
  readonly fetchHosts?: readonly string[];
  readonly version: string;
  /** Where bugs go (a tool that threw); never stdout, which is the protocol channel. */
  readonly onBug?: (where: string, error: unknown) => void;
}

export const INSTRUCTIONS = [
  'Sandbox Packs runs JavaScript in an isolated QuickJS sandbox, with the packs (npm packages of sandbox modules) the user installed and allowed for this session.',
  "Call list_sandbox_modules first: its specifiers are the only imports your code may use. Read a pack's documentation with read_pack_skill when you need it, check code with validate_code, and run it with run_code.",
  'The user decides which packs and which network hosts this session may use; a tool call cannot change that.',
].join(' ');

const SKILL_URI_PREFIX = 'sandbox-packs://skills/';
const SKILL_URI_SUFFIX = '/SKILL.md';

export function skillUri(packName: string): string {
  return `${SKILL_URI_PREFIX}${packName}${SKILL_URI_SUFFIX}`;
}

export function createMcpFace(options: McpFaceOptions): Server {
  const call = contractCaller(options.dispatcher);
  const deps: ToolDeps = { call, ...(options.allow ? { allow: options.allow } : {}), fetchHosts: options.fetchHosts ?? [] };
  const onBug = options.onBug ?? (() => {});
  const server = new Server({ name: 'sandbox-packs', version: options.version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });

  const tools: Tool[] = Object.values(TOOLS).map((spec) => ({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: jsonSchemaOf(spec.input, 'input'),
    outputSchema: jsonSchemaOf(spec.output, 'output'),
    annotations: {
      title: spec.title,
      readOnlyHint: spec.readOnly,
      destructiveHint: false,
      idempotentHint: spec.readOnly,
      openWorldHint: spec.name === 'run_code' && deps.fetchHosts.length > 0,
    },
  }));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return await callTool(deps, request.params.name, request.params.arguments);
    } catch (error) {
      onBug(`tool ${request.params.name}`, error);
      return toolError({ code: 'internal', message: `${request.params.name} failed inside the app; the details are in the server's log (stderr).` });
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const view = await sessionView(call, deps.allow);
    if (!view.ok) throw new McpError(ErrorCode.InternalError, `${view.code}: ${view.message}`);
    const packs = [...new Set(view.value.modules.filter((m) => m.hasSkill).map((m) => m.packName))].sort();
    return {
      resources: packs.map((packName) => ({
        uri: skillUri(packName),
        name: `${packName} SKILL.md`,
        description: `Documentation of the pack ${packName}`,
        mimeType: 'text/markdown',
      })),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const name = uri.startsWith(SKILL_URI_PREFIX) && uri.endsWith(SKILL_URI_SUFFIX) ? uri.slice(SKILL_URI_PREFIX.length, -SKILL_URI_SUFFIX.length) : undefined;
    const packName = PackageNameSchema.safeParse(name);
    if (!packName.success)
      throw new McpError(
        ErrorCode.InvalidParams,
        `invalid-request: there is no resource ${JSON.stringify(uri.slice(0, 300))}; resources/list shows the documentation this session may read.`,
      );
    const view = await sessionView(call, deps.allow);
    if (!view.ok) throw new McpError(ErrorCode.InternalError, `${view.code}: ${view.message}`);
    if (!packAllowed(view.value, packName.data)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `session-not-allowed: ${JSON.stringify(packName.data)} has no module on this session's package allowlist, so its documentation is not available here.`,
      );
    }
    const doc = await call('catalog.skillDoc', { packName: packName.data });
    if (!doc.ok) throw new McpError(ErrorCode.InvalidParams, `${doc.code}: ${doc.message}`);
    return { contents: [{ uri, mimeType: 'text/markdown', text: skillText(doc.value) }] };
  });

  return server;
}
