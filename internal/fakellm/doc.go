// Package fakellm is a fake OpenAI-compatible server, chat completions and
// the Responses API, that plays a script. odek's llm tests, the testscript end-to-end tests and
// `make demo` use it; it listens on 127.0.0.1 only unless told otherwise.
//
// # Serving
//
//	s, err := fakellm.LoadScript("testdata/demo/script.json")
//	srv, err := fakellm.Start(s, "127.0.0.1:0")   // or New(s).Start(addr), or mount New(s).Handler()
//	defer srv.Close()
//	baseURL := srv.URL()                            // "http://127.0.0.1:PORT/v1"
//	reqs := srv.Requests()                          // what the client sent, parsed
//	peak := srv.MaxInFlight()                       // most requests answered at once
//
// Each POST to <base>/chat/completions consumes the next turn, in order. When
// the turns run out the server answers 500 with the plain-text body
// "fakellm: script exhausted after N turns". Other paths get 404, other
// methods 405; every request is recorded. A request with "stream": true gets
// SSE in OpenAI's format:
//
//	data: {"id":..,"object":"chat.completion.chunk",..,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}
//	data: {... "delta":{"content":"Hel"} ...}                                   (content in chunk_size pieces)
//	data: {... "delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]} ...}
//	data: {... "delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]} ...}
//	data: {... "delta":{},"finish_reason":"tool_calls"}]}
//	data: {... "choices":[],"usage":{"prompt_tokens":..,"completion_tokens":..,"total_tokens":..}}   (only with stream_options.include_usage)
//	data: [DONE]
//
// Otherwise it answers one chat.completion JSON body.
//
// Each POST to <base>/responses (the Responses API) consumes the next turn
// of the same script, answered in that API's shapes (wire_responses.go): a
// reasoning item when the turn has reasoning (summary text, and
// encrypted_content: the turn's "encrypted_content", else the text, as
// Ollama sends it), a message item, a function_call item per call; usage as
// input_tokens (cached ones in input_tokens_details.cached_tokens); status
// "incomplete" for finish_reason length (max_output_tokens) and
// content_filter. Streamed, it is "event: <type>" and "data:" lines:
// response.created, response.in_progress, each item's added event, deltas
// in chunk_size pieces and done events, then response.completed (or
// .incomplete), and no [DONE]. The request is recorded with its items folded
// into Messages (instructions first as a system message, a reasoning item on
// the assistant message it precedes; one with no item after it is a 400),
// and its raw items, instructions, include, store, prompt_cache_key and
// text.format kept. Faults are the same on both paths. "chat_only": true at
// the top level makes the server one without /responses (404).
//
// # Script format
//
//	{
//	  "model": "fake-model",                    // optional; default: echo the request's model
//	  "reject_params": ["response_format"],     // optional; see below
//	  "refuse": [{"param": "tools", "status": 400,                      // optional; see below
//	              "body": "{\"error\":{\"message\":\"registry.ollama.ai/library/{model} does not support tools\"}}",
//	              "source": "where the body was taken from"}],
//	  "turns": [
//	    {"fault": "rate_limit", "fault_arg": 2},                      // 429, Retry-After: 2
//	    {"match": "word count",                                       // last message must contain this
//	     "content": "Let me count.",
//	     "tool_calls": [{"id": "call_1", "name": "demo__word_count",
//	                     "arguments": {"text": "hello world"}}],       // object, or a string sent verbatim
//	     "chunk_size": 4, "interleave": false,
//	     "usage": {"prompt_tokens": 120, "completion_tokens": 30, "cached_tokens": 100}},
//	    {"content": "There are 2 words.", "usage": false}             // no usage at all
//	  ]
//	}
//
// With "any_order": true at the top level, a request takes the first unused
// turn whose match fits its last message (a turn without match fits any),
// so clients calling in parallel (sub-agents) each get their own turn; a
// request no unused turn fits gets 500 "fakellm: no unused turn matches the
// last message "…"".
//
// A bare array of turns is accepted too. Unknown fields are errors.
// reject_params lists top-level request fields the endpoint does not support:
// a request carrying one is answered 400 {"error":{"message":"Unsupported
// parameter: '<name>' is not supported with this model.","type":
// "invalid_request_error","param":"<name>","code":"unsupported_parameter"}}
// and consumes no turn. refuse answers a request carrying param (with one of
// values, when given, for a string field) with status (default 400) and body
// verbatim, {model} and {value} replaced by the request's model and the
// refused value (param "input.reasoning" refuses a Responses request whose
// input holds a reasoning item); it consumes no turn and is checked before reject_params.
// source is required and says where a provider's body was copied from;
// testdata/refusals.json holds the real ones. Turn fields:
//
//   - content, reasoning_content: the assistant's text (reasoning is streamed
//     first, as reasoning_content deltas).
//   - reasoning: reasoning text under Ollama's name, "reasoning" (streamed
//     after reasoning_content, or as message.reasoning).
//   - whole_calls: stream each tool call whole in one chunk (id, index, name
//     and all the arguments), as Ollama does; no_ids: send tool calls without
//     ids.
//   - tool_calls: [{id?, name, arguments}]; id defaults to "call_<turn>_<n>";
//     arguments is a JSON object (sent compacted) or a JSON string (its value
//     is sent as is, e.g. to send invalid JSON arguments).
//   - usage: omitted or null → generated (prompt_tokens = request bytes/4,
//     completion_tokens = output bytes/4, each at least 1);
//     {"prompt_tokens", "completion_tokens", "cached_tokens"?} → sent as given
//     (cached_tokens as prompt_tokens_details.cached_tokens, cost as
//     usage.cost, the price OpenRouter reports); false → no usage
//     field at all (also no usage chunk when streaming).
//   - finish_reason: default "tool_calls" when there are tool calls, else "stop".
//   - match: a substring the last request message's content must contain.
//     On a mismatch the server answers 500 "fakellm: turn N expected "…" in
//     last message, got "…"" and does not consume the turn, so a test fails
//     loudly instead of drifting through the script.
//   - match_model: the request's model must be this one, on the same terms
//     as match (a 500 naming both in order; with any_order, a turn only a
//     request for that model takes), so one script can overload one model
//     and answer for the next.
//   - delay_ms: wait before the first chunk (streaming, after the headers) or
//     before the body; chunk_delay_ms: wait between chunks.
//   - repeat: play the turn that many times, as that many turns (a model
//     that makes one call again and again); at most 10000.
//   - after_requests: hold the answer (headers included) until the server
//     has received that many requests, this one included, so a test can
//     order parallel clients by what they sent rather than by time; a
//     client that goes away first gets nothing. after_requests_max_ms
//     bounds the hold: after that long the answer goes anyway (a test
//     whose clients never all arrive then fails on what it sees rather
//     than hanging).
//   - chunk_size: bytes per content/reasoning/arguments piece when streaming
//     (default 16; UTF-8 sequences are never split).
//   - interleave: stream several tool calls' argument pieces round-robin.
//   - encrypted_content: the Responses reasoning item's encrypted_content.
//   - fault, fault_arg: see below.
//
// # Faults
//
// A turn with a fault is consumed, so "429, then success" is two turns.
//
//	rate_limit        429 with an OpenAI-style rate_limit_exceeded body; Retry-After: fault_arg
//	                  when set (a number of seconds, or a string such as an HTTP-date, verbatim)
//	server_error      500 with an OpenAI-style server_error body
//	bad_gateway       502 with an HTML body, as a proxy sends it
//	status            HTTP status fault_arg (e.g. 503, 504, 400, 403, 404), OpenAI-style body
//	slow_first_token  headers at once, then delay_ms (else fault_arg ms, else 500 ms) before
//	                  the first chunk; the turn's content is then sent normally
//	drop_mid_stream   streaming: fault_arg chunks (default about half), then the TCP connection
//	                  is closed with no terminating chunk; non-streaming: half the JSON body
//	                  under a full Content-Length, then the close
//	malformed_sse     200 with a broken body: streaming, a valid chunk then a chunk whose JSON is
//	                  cut off, then [DONE]; non-streaming, cut-off JSON. fault_arg replaces the
//	                  body verbatim
//	context_length    400 {"error":{"message":"This model's maximum context length is 8192 tokens.
//	                  ...","type":"invalid_request_error","code":"context_length_exceeded"}}
//	unauthorized      401 {"error":{...,"code":"invalid_api_key"}}
//	hang              no response until the client goes away or the server is closed
//	keepalive_only    streaming: headers, then only ": keep-alive" SSE comments every fault_arg
//	                  ms (default 20) until the client goes away; non-streaming: like hang
//	stall_mid_stream  streaming: fault_arg chunks (default about half), then silence with the
//	                  connection open until the client goes away
//
// A streamed usage chunk has "choices": [] and comes after the finish_reason
// chunk, as OpenAI and Ollama send it.
//
// # Stalled connects
//
// StallConnects returns a StalledListener (Linux): an address where a TCP
// connect never completes, for connect-timeout tests.
//
// # Command
//
// cmd/fakellm serves a script file:
//
//	fakellm -script testdata/demo/script.json -addr 127.0.0.1:0 -url-file /tmp/fakellm.url -v
//
// It writes the base URL to -url-file (atomically) once listening, logs one
// line per request to stderr with -v, and exits 0 on SIGINT or SIGTERM.
package fakellm
