// A PreToolUse hook that rewrites its input: every write goes below
// ./sandboxed/, and the model is told so.
let data = '';
process.stdin.on('data', (c) => { data += c; });
process.stdin.on('end', () => {
  const ev = JSON.parse(data);
  const input = ev.tool_input;
  const name = input.file_path.split('/').pop();
  input.file_path = ev.cwd + '/sandboxed/' + name;
  process.stdout.write(JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: input,
      additionalContext: 'rewrite.js moved the write to sandboxed/' + name,
    },
  }));
});
