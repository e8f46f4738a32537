// Package builtin holds odek's built-in workspace tools: read_file,
// write_file, list_dir, glob, search_files, patch and shell. Each describes
// its own args_summary and risk (the agent loop's optional ArgsSummarizer and
// RiskAssessor), so nothing outside switches on their names.
//
// Invariants:
//   - Every path is classified by where it really resolves (risk.Classifier),
//     and the tool then works on that resolved path. Just before it acts, a
//     tool re-classifies the call; if the class rose above what the policy
//     approved (a symlink swapped in meanwhile), the call fails instead.
//   - The resolved path is reached only through internal/safepath, from a
//     descriptor of the working directory (or of "/" for an approved path
//     outside it), following no symlink at any component: a swap after the
//     re-check fails the call too. Walks open each subdirectory from its
//     parent's descriptor; writes create and rename their temp file within
//     the target directory's descriptor.
//   - Under the sandbox's map (Options.Access) no path tool reads or writes
//     a protected path, writes outside the writable roots, writes at all
//     under a read-only sandbox, or touches /proc, whatever the risk
//     policy allows: the map decides on the resolved path at AssessRisk
//     and at the re-check, then a sandbox.Guard on what was opened (the
//     file's and its directories' identities, walked up from the opened
//     descriptors). A refusal is a SandboxDeniedError, which the loop
//     counts as a denial.
//   - Every result body is file or process content and is wrapped with
//     untrusted.Wrap; the loop redacts and frames it like any result.
//   - Every output is bounded; the caps are constants below and in
//     docs/TOOLS.md. A shell output cut by its cap is saved whole as a run
//     artifact that artifact_read can page through.
//   - shell runs bash -c in its own process group; on timeout, cancel or
//     exit the whole group is killed, so nothing it started outlives it.
package builtin
