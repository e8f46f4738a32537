// ts-peer is an MCP server written with the TypeScript SDK
// (@modelcontextprotocol/server 2.4.0 and zod), for odek's interop tests.
// It serves stdio by default (serveStdio, dual-era) and Streamable HTTP with
// --http (createMcpHandler; it prints the endpoint URL as its first stdout
// line). --legacy=reject makes either one modern-only (MCP 2026-07-28).
import http from 'node:http';
import { McpServer, acceptedContent, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const args = process.argv.slice(2);
const reject = args.includes('--legacy=reject');

function factory() {
  const server = new McpServer({ name: 'odek-ts-peer', version: '0.0.1' }, { capabilities: { tools: {} } });
  server.registerTool('echo', {
    description: 'Echoes a message back.',
    inputSchema: z.object({ message: z.string() }),
  }, async ({ message }) => ({ content: [{ type: 'text', text: 'Echo: ' + message }] }));
  server.registerTool('weather', {
    description: 'Current weather in a city, as data only.',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ city: z.string(), temp_c: z.number(), sky: z.string() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ city }) => ({ content: [], structuredContent: { city, temp_c: 21.5, sky: 'clear' } }));
  // deploy asks for confirmation (MCP 2026-07-28 input_required, an
  // elicitation) before it answers.
  server.registerTool('deploy', {
    description: 'Deploys after the user confirms.',
    inputSchema: z.object({ env: z.string() }),
  }, async ({ env }, ctx) => {
    const schema = z.object({ confirm: z.boolean() });
    const got = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', schema);
    if (got?.confirm !== true) {
      return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: schema }) } });
    }
    return { content: [{ type: 'text', text: `deployed to ${env}` }] };
  });
  return server;
}

if (args.includes('--http')) {
  const handler = createMcpHandler(factory, { legacy: reject ? 'reject' : 'stateless' });
  const srv = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const response = await handler.fetch(new Request('http://' + req.headers.host + req.url,
      { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  });
  srv.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${srv.address().port}/mcp\n`);
  });
  process.stdin.on('end', () => process.exit(0)); // the test closes stdin to stop it
  process.stdin.resume();
} else {
  serveStdio(factory, reject ? { legacy: 'reject' } : {});
}
