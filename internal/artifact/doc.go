// Package artifact parses odek.tool-result/v1 envelopes, validates
// odek.artifact-ref/v1 references fail closed, renders results for the model
// within max_result_chars, keeps a per-run store of saved results, and serves
// registered artifacts page by page through the artifact_read tool.
//
// Invariants:
//   - Validation fails closed: any doubt about a ref (scheme, host, path shape,
//     root containment, a symlink anywhere below the root, file type, link
//     count, size, hash) rejects it, and empty artifact roots reject every ref.
//   - No symlink is followed below an artifact root, at any component: the
//     path is opened from a descriptor of the root with openat2
//     (RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) on Linux, or by a walk that opens
//     each component with O_NOFOLLOW from the one before (internal/safepath,
//     shared with the built-in path tools). Everything after
//     the open (type, links, size, hash, the bytes served) is read from that
//     descriptor, never from the path again.
//   - The model never sees an artifact's path or bytes through Process: a
//     verified ref becomes one metadata line (id, media type, size, short hash,
//     summary). Bytes reach the model only through artifact_read, which looks
//     artifacts up by id in a Store and never accepts a path.
//   - Validation errors name the ref id and what was wrong, never file contents
//     or the file path.
//   - Every rendered field is one line and bounded, and text lines that start
//     like a metadata line are indented, so a result cannot forge metadata.
//   - Truncation counts runes, never splits one, and always ends with the
//     exact TruncationNotice.
//
// Store policy: results odek saves itself get ids result-1, result-2, …, up
// to a cap on their bytes together (LimitSaved): a save past it is refused
// whole (a *CapError; NotSavedNotice tells the model) and the saved ones
// stay; MCP
// refs that pass Validate may be registered under the id the model saw
// (Process returns them in Processed.Artifacts), so artifact_read pages both
// kinds. External ids may not take the result-N form, and a later ref with
// the same id replaces the earlier one. Every read reopens the file the same
// way, requires the same inode, a single link and the registered size, and
// re-hashes the whole file in the same pass that takes the page, so a file
// rewritten in place is refused rather than served under the old hash.
//
// The package is a leaf: it imports the standard library and the helpers
// internal/untrusted, internal/atomicfile and internal/safepath (openat2).
package artifact

// Schema names carried in the "schema" field of the payloads this package parses.
const (
	// SchemaToolResult names the tool-result envelope an MCP tool may return.
	SchemaToolResult = "odek.tool-result/v1"
	// SchemaArtifactRef names one artifact reference inside an envelope.
	SchemaArtifactRef = "odek.artifact-ref/v1"
)

// Limits of the odek-extension/v1 artifact contract.
const (
	// MaxRefs is the most artifact refs one envelope (or one merged result) may carry.
	MaxRefs = 64
	// MaxArtifactBytes is the largest artifact file a ref may point at.
	MaxArtifactBytes = 64 << 20
	// MaxFieldRunes caps each rendered metadata field before the "…" marker.
	MaxFieldRunes = 4096
	// DefaultMaxChars applies when ProcessOptions.MaxChars is zero or negative.
	DefaultMaxChars = 200000
)
