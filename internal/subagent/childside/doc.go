// Package childside is what an `odek subagent` child uses besides the
// protocol (package subagent/wire): its fixed system prompt and the
// runtime-constraints block, its user message, its soft deadline, its
// budget from the task's budget block, the narrowing of its tools and
// policy by the parent's, the typed stream it writes, and the collection of
// the artifacts it staged.
//
// Invariants:
//   - No string from a parent or a task reaches the system prompt: the
//     prompt is a constant and the constraints block is built from numbers.
//   - An untrusted task is fenced with a nonce its text cannot close.
//   - A child never does more than its parent: its tools are the
//     intersection of its own and parent_tools, every risk class is decided
//     at least as strictly as parent_policy says, and an exhausted budget
//     dimension is a hard cap of zero.
//   - Only flat regular files with valid names are collected as artifacts,
//     measured in the artifact root through descriptors that follow no
//     symlink.
package childside
