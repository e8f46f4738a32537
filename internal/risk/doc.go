// Package risk classifies what a tool call can do: a shell command from its
// parsed command line, a path operation from where the path really resolves.
// The classes and their severity order are those of docs/TOOLS.md; a command's class
// is the highest class of any of its parts.
//
// Invariants:
//   - Fail closed: what the classifier cannot see through (a program it does
//     not know, a program name built at run time, a parse error) is Unknown,
//     never Safe.
//   - Classification has no side effects: it reads the file system (Lstat,
//     Readlink) to resolve paths and symlinks, and never runs anything.
//
// Commands are parsed with mvdan.cc/sh/v3/syntax, a complete bash parser:
// the classifier must see the command structure bash will run (here-docs,
// $'…' strings, process substitution, arithmetic, functions, case), and a
// hand-written lexer that misreads any of them would be an evasion.
//
// The package is a leaf: the agent loop passes Assessments through, the
// policy decides on them, the built-in tools produce them.
package risk
