// Package risk classifies what a tool call can do: a shell command from its
// parsed command line, a path operation from where the path really resolves.
// The classes and their severity order are BEHAVIOR §11's; a command's class
// is the highest class of any of its parts.
//
// Invariants:
//   - Fail closed: what the classifier cannot see through (a program it does
//     not know, a program name built at run time, a parse error) is Unknown,
//     never Safe.
//   - Classification has no side effects: it reads the file system (Lstat,
//     Readlink) to resolve paths and symlinks, and never runs anything.
//
// The package is a leaf: the agent loop passes Assessments through, the
// policy decides on them, the built-in tools produce them.
package risk
