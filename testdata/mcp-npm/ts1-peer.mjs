// ts1-peer is an MCP server written with the TypeScript SDK 1.x
// (@modelcontextprotocol/sdk 1.32.2, the generation most published servers
// are built on, server-everything included), for odek's interop tests. It
// speaks the 2025 revisions over stdio: initialize, then tools.
//
// confirm asks the client for confirmation through elicitation/create,
// which the SDK sends only to a client that declared the elicitation
// capability in initialize; otherwise the call fails with the SDK's error.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

const server = new McpServer({ name: 'odek-ts1-peer', version: '0.0.1' }, { capabilities: { tools: {} } });

server.registerTool('echo', {
  description: 'Echoes a message back.',
  inputSchema: { message: z.string() },
}, async ({ message }) => ({ content: [{ type: 'text', text: 'Echo: ' + message }] }));

server.registerTool('confirm', {
  description: 'Deploys after the user confirms.',
  inputSchema: { env: z.string() },
}, async ({ env }) => {
  const answer = await server.server.elicitInput({
    message: `Deploy to ${env}?`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  if (answer.action === 'accept' && answer.content?.confirm === true) {
    return { content: [{ type: 'text', text: `deployed to ${env}` }] };
  }
  return { content: [{ type: 'text', text: `not deployed (${answer.action})` }] };
});

await server.connect(new StdioServerTransport());
