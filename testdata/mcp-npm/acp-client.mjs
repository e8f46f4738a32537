// acp-client is an editor's side of `odek acp`, written with the ACP
// TypeScript SDK (@agentclientprotocol/sdk 2.4.0), for odek's interop tests
// (interop/acp_test.go). It starts the agent, initializes, opens a session
// in --cwd with one MCP server of its own (--mcp-name, --mcp-command and its
// arguments after "--"), prompts once with --prompt, answers odek's
// approvals (requests with _meta.odek.approval) with --approve and every
// other permission request with --answer (option ids), and prints one JSON
// object on stdout: the stop reason, the permission requests (tool call id,
// title, option ids, approval or not), and every tool call's last status
// and text. The checks are the Go test's; this script fails (exit 1) only
// when the protocol itself does.
//
//   node acp-client.mjs --agent ./odek --cwd DIR --prompt TEXT --answer allow_once --approve allow_server \
//     --mcp-name everything --mcp-command ./mcp-server-everything -- [args...]
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

function parseArgs(argv) {
  const o = { mcpArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      o.mcpArgs = argv.slice(i + 1);
      break;
    }
    if (!a.startsWith('--') || i + 1 >= argv.length) throw new Error('bad argument ' + a);
    o[a.slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase())] = argv[++i];
  }
  for (const k of ['agent', 'cwd', 'prompt', 'answer', 'approve', 'mcpName', 'mcpCommand']) {
    if (!o[k]) throw new Error('missing --' + k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()));
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const agent = spawn(opts.agent, ['acp'], { stdio: ['pipe', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => agent.on('exit', (code, signal) => resolve({ code, signal })));

const permissions = [];
const calls = new Map(); // tool call id → { title, kind, status, text }
const messages = [];

function record(update) {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
      if (update.content.type === 'text') messages.push(update.content.text);
      break;
    case 'tool_call':
    case 'tool_call_update': {
      const c = calls.get(update.toolCallId) ?? { text: '' };
      for (const k of ['title', 'kind', 'status']) if (update[k]) c[k] = update[k];
      for (const part of update.content ?? []) {
        if (part.type === 'content' && part.content.type === 'text') c.text += part.content.text;
      }
      calls.set(update.toolCallId, c);
      break;
    }
  }
}

const app = client({ name: 'odek-acp-interop-client' })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const approval = params.toolCall._meta?.odek?.approval === true;
    permissions.push({
      toolCallId: params.toolCall.toolCallId,
      title: params.toolCall.title ?? '',
      options: params.options.map((o) => o.optionId),
      approval,
    });
    return { outcome: { outcome: 'selected', optionId: approval ? opts.approve : opts.answer } };
  })
  .onNotification(methods.client.session.update, ({ params }) => record(params.update));

const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const result = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'odek-acp-interop-client', version: '0.0.1' },
  });
  const session = await ctx.request(methods.agent.session.new, {
    cwd: opts.cwd,
    mcpServers: [{ name: opts.mcpName, command: opts.mcpCommand, args: opts.mcpArgs, env: [] }],
  });
  const resp = await ctx.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: 'text', text: opts.prompt }],
  });
  return { agent: init.agentInfo, sessionId: session.sessionId, stopReason: resp.stopReason, meta: resp._meta ?? null };
});

agent.stdin.end(); // the client leaves: odek acp exits 0
const exit = await exited;
process.stdout.write(JSON.stringify({
  ...result,
  permissions,
  calls: Object.fromEntries(calls),
  messages,
  agentExit: exit,
}) + '\n');
